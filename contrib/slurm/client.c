/*
 * client.c: the plugin's HTTP client: POST /v1/predict to each configured
 * url in turn, hedged, within one deadline (libcurl's multi interface,
 * CURLOPT_NOSIGNAL; no fork, no signal, no thread of its own).
 *
 * In config order (those the breaker asks last for now at the end), a url
 * that fails (refused connection, 5xx, garbage) hands over to the next at
 * once, and one that has not answered after hedge_ms is joined by the next
 * in parallel; the first answer (a prediction or a refusal) wins. Host
 * names are never resolved during a call: each transfer gets the addresses
 * pin.c resolved beforehand (CURLOPT_RESOLVE), and a resolver start is
 * refused, because libcurl waits for a still-running resolver thread when
 * it cleans up a handle, whatever the deadline.
 *
 * Not for: deciding what to do with the answer (policy.c).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <jansson.h>

#include "contrib/slurm/breaker.h"
#include "contrib/slurm/client.h"
#include "contrib/slurm/config.h"
#include "contrib/slurm/pin.h"
#include "contrib/slurm/slurm_api.h"

#define MAX_ANSWER 65536

struct answer {
	char buf[MAX_ANSWER];
	size_t len;
	bool too_big;
};

static size_t on_data(char *data, size_t size, size_t n, void *ctx)
{
	struct answer *a = ctx;
	size_t len = size * n;

	if (a->len + len >= sizeof(a->buf)) {
		a->too_big = true;
		return 0;
	}
	memcpy(a->buf + a->len, data, len);
	a->len += len;
	return len;
}

/* Reads the daemon's 200 answer; false unless it is as docs/design.md
 * says. */
static bool parse_answer(const struct answer *a, struct mpp_prediction *p,
			 char *why, size_t whylen)
{
	json_error_t jerr;
	json_t *root = json_loadb(a->buf, a->len, 0, &jerr);
	json_t *model = NULL, *version = NULL;
	const char *app = NULL;
	bool ok = false;

	if (!root) {
		snprintf(why, whylen, "answer is not JSON (%s)", jerr.text);
		return false;
	}
	if (json_unpack_ex(root, &jerr, 0, "{s:s, s:F, s:F, s:F, s?o}", "app",
			   &app, "runtime_s", &p->runtime_s, "lower_s",
			   &p->lower_s, "upper_s", &p->upper_s, "model",
			   &model)) {
		snprintf(why, whylen, "unexpected answer (%s)", jerr.text);
		goto out;
	}
	if (!isfinite(p->runtime_s) || !isfinite(p->upper_s) ||
	    !isfinite(p->lower_s) || p->lower_s < 0 ||
	    p->runtime_s < p->lower_s || p->upper_s < p->runtime_s ||
	    p->upper_s > 1e9) {
		snprintf(why, whylen, "answer has an impossible interval");
		goto out;
	}
	if (!app[0] || strlen(app) >= sizeof(p->app)) {
		snprintf(why, whylen, "answer has an empty or overlong app");
		goto out;
	}
	version =
	    json_is_object(model) ? json_object_get(model, "version") : NULL;
	p->version =
	    json_is_integer(version) ? json_integer_value(version) : -1;
	snprintf(p->app, sizeof(p->app), "%s", app);
	ok = true;
out:
	json_decref(root);
	return ok;
}

/* One url being asked. */
struct attempt {
	CURL *h;
	struct answer *a;
	struct curl_slist *pinned; /* CURLOPT_RESOLVE's list */
};

/* Appends "; text" (or text) to why. */
static void why_add(char *why, size_t whylen, const char *url, const char *what)
{
	size_t n = strlen(why);

	if (n + 1 < whylen)
		snprintf(why + n, whylen - n, "%s%s: %s", n ? "; " : "", url,
			 what);
}

/* Starts asking url i, with what is left of the budget (and a little more)
 * as curl's own limit: mpp_ask's loop ends the call at the deadline, and
 * curl's limit is only a backstop, so that the two clocks do not race to
 * say which url was silent. False (and why filled) when it cannot be
 * started. */
static bool launch(CURLM *m, struct attempt *at, int i, const char *body,
		   struct curl_slist *hdr, double deadline, char *why,
		   size_t whylen)
{
	long left = (long)ceil((deadline - mpp_now_s()) * 1000.0) + 20;
	char what[300];

	at->a = malloc(sizeof(*at->a));
	at->h = at->a ? curl_easy_init() : NULL;
	if (!at->h) {
		free(at->a);
		at->a = NULL;
		why_add(why, whylen, mpp_cfg.urls[i], "out of memory");
		return false;
	}
	at->a->len = 0;
	at->a->too_big = false;
	if (!mpp_pin_use(at->h, i, &at->pinned, what, sizeof(what))) {
		curl_easy_cleanup(at->h);
		free(at->a);
		at->h = NULL;
		at->a = NULL;
		why_add(why, whylen, mpp_cfg.urls[i], what);
		return false;
	}
	curl_easy_setopt(at->h, CURLOPT_URL, mpp_cfg.urls[i]);
	curl_easy_setopt(at->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(at->h, CURLOPT_TIMEOUT_MS, left);
	curl_easy_setopt(at->h, CURLOPT_CONNECTTIMEOUT_MS, left);
	curl_easy_setopt(at->h, CURLOPT_PROXY, "");
	curl_easy_setopt(at->h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(at->h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(at->h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(at->h, CURLOPT_WRITEDATA, at->a);
	if (curl_multi_add_handle(m, at->h) != CURLM_OK) {
		curl_easy_cleanup(at->h);
		curl_slist_free_all(at->pinned);
		free(at->a);
		at->h = NULL;
		at->a = NULL;
		at->pinned = NULL;
		why_add(why, whylen, mpp_cfg.urls[i],
			"cannot start a transfer");
		return false;
	}
	return true;
}

static void drop(CURLM *m, struct attempt *at)
{
	if (at->h) {
		curl_multi_remove_handle(m, at->h);
		curl_easy_cleanup(at->h);
	}
	curl_slist_free_all(at->pinned);
	free(at->a);
	at->h = NULL;
	at->a = NULL;
	at->pinned = NULL;
}

/* What one finished transfer says. Only MPP_ASK_OK fills p. A refusal's why
 * replaces the failures before it; a failure's is appended. */
static enum mpp_outcome judge(struct attempt *at, const char *url, CURLcode cc,
			      struct mpp_prediction *p, char *why,
			      size_t whylen)
{
	char what[300];
	long status = 0;

	/* curl's own limit is the budget's end: its timeout is ours, said
	 * the same way whichever clock saw the deadline first. */
	if (cc == CURLE_OPERATION_TIMEDOUT) {
		why_add(why, whylen, url, "no answer in time");
		return MPP_ASK_FAILED;
	}
	if (cc != CURLE_OK) {
		why_add(why, whylen, url,
			at->a->too_big ? "answer over 64 KiB"
				       : curl_easy_strerror(cc));
		return MPP_ASK_FAILED;
	}
	curl_easy_getinfo(at->h, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 400 && status < 500) {
		json_t *e = json_loadb(at->a->buf, at->a->len, 0, NULL);
		const char *msg =
		    json_string_value(json_object_get(e, "error"));

		snprintf(what, sizeof(what), "%s (HTTP %ld: %.200s)",
			 status == 404 ? "no model" : "request refused", status,
			 msg ? msg : "no reason given");
		json_decref(e);
		why[0] = '\0';
		why_add(why, whylen, url, what);
		return MPP_ASK_REFUSED;
	}
	if (status != 200) {
		snprintf(what, sizeof(what), "HTTP status %ld", status);
		why_add(why, whylen, url, what);
		return MPP_ASK_FAILED;
	}
	if (!parse_answer(at->a, p, what, sizeof(what))) {
		why_add(why, whylen, url, what);
		return MPP_ASK_FAILED;
	}
	return MPP_ASK_OK;
}

/* POST the body to the urls, all within the deadline. In config order,
 * those asked last for now after the rest; a url that fails (refused, 5xx,
 * garbage) hands over to the next at once, and one that has not answered
 * after hedge_ms is joined by the next in parallel, so that a hung daemon
 * cannot use up the budget of a healthy one. The first answer (a
 * prediction or a refusal) wins. at[k] asks url order[k]. */
enum mpp_outcome mpp_ask(const char *body, double deadline,
			 struct mpp_prediction *p, char *why, size_t whylen)
{
	struct attempt at[MPP_MAX_URLS] = {{0}};
	struct curl_slist *hdr = NULL, *h2;
	enum mpp_outcome res = MPP_ASK_FAILED;
	CURLM *m = curl_multi_init();
	int next = 0, active = 0, win = MPP_MAX_URLS, order[MPP_MAX_URLS];
	double hedge_at = 0;

	mpp_url_order(order);

	why[0] = '\0';
	hdr = curl_slist_append(NULL, "Content-Type: application/json");
	/* Else curl waits up to 1 s for "100 Continue" on big bodies. */
	h2 = hdr ? curl_slist_append(hdr, "Expect:") : NULL;
	if (!m || !h2) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (;;) {
		CURLMsg *msg;
		int left, still;
		double t = mpp_now_s(), wait;

		if (t >= deadline) {
			for (int k = 0; k < next; k++)
				if (at[k].h)
					why_add(why, whylen,
						mpp_cfg.urls[order[k]],
						"no answer in time");
			if (!why[0])
				snprintf(why, whylen, "no url asked in time");
			break;
		}
		/* Ask the next url when nothing is under way, or when the
		 * last one asked has had hedge_ms, or one has just failed. */
		if (next < mpp_cfg.nurls && (!active || t >= hedge_at)) {
			if (launch(m, &at[next], order[next], body, hdr,
				   deadline, why, whylen))
				active++;
			next++;
			hedge_at = t + mpp_cfg.hedge_ms / 1000.0;
			continue;
		}
		if (!active)
			break;
		if (curl_multi_perform(m, &still) != CURLM_OK) {
			snprintf(why, whylen, "libcurl multi interface failed");
			break;
		}
		while ((msg = curl_multi_info_read(m, &left))) {
			int k = 0;

			if (msg->msg != CURLMSG_DONE)
				continue;
			while (k < next && at[k].h != msg->easy_handle)
				k++;
			if (k == next)
				continue;
			res = judge(&at[k], mpp_cfg.urls[order[k]],
				    msg->data.result, p, why, whylen);
			drop(m, &at[k]);
			active--;
			mpp_url_record(order[k], res == MPP_ASK_FAILED);
			if (res != MPP_ASK_FAILED) {
				win = k;
				goto out;
			}
			hedge_at = 0;
		}
		t = mpp_now_s();
		wait = deadline - t;
		if (next < mpp_cfg.nurls && hedge_at - t < wait)
			wait = hedge_at - t;
		if (active && wait > 0)
			curl_multi_poll(m, NULL, 0, (int)ceil(wait * 1000.0),
					NULL);
	}
out:
	/* Still silent: a failure if asked before the url that answered
	 * (it had hedge_ms at least), else not judged. */
	for (int k = 0; k < next; k++) {
		if (at[k].h && k < win)
			mpp_url_record(order[k], true);
		drop(m, &at[k]);
	}
	curl_multi_cleanup(m);
	curl_slist_free_all(hdr);
	return res;
}
