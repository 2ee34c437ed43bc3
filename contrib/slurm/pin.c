/*
 * pin.c: resolves the urls' host names outside of any job and hands the
 * addresses to libcurl (see pin.h for why and the promises).
 *
 * State: one entry per url, "host:port:addr,addr..." as CURLOPT_RESOLVE
 * reads it, behind a mutex that is only held to copy or swap a string,
 * never across getaddrinfo(). The refresh thread sleeps on a condition
 * variable (CLOCK_MONOTONIC) so that fini() wakes it at once.
 *
 * Not for: choosing among the addresses (libcurl tries them in order, and
 * happy-eyeballs between IPv4 and IPv6), or caching anything per job.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <curl/curl.h>

#include "contrib/slurm/config.h"
#include "contrib/slurm/pin.h"
#include "contrib/slurm/slurm_api.h"

/* The longest address list kept per url (CURLOPT_RESOLVE's entry). */
#define ENTRY_MAX 1024

static struct {
	char *host; /* NULL: an address literal, nothing to resolve */
	long port;
	char *entry; /* NULL: not resolved (yet) */
} pins[MPP_MAX_URLS];
static int npins;

static pthread_mutex_t pin_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pin_wake;
static pthread_t pin_thread;
static bool thread_running, stopping;

/* getaddrinfo() for host: "host:port:a,b,..." (malloc'd), or NULL with why
 * filled. IPv6 addresses go in brackets, as CURLOPT_RESOLVE wants them. */
static char *resolve(const char *host, long port, char *why, size_t whylen)
{
	struct addrinfo hints = {0}, *res = NULL;
	char entry[ENTRY_MAX];
	size_t n;
	int rc, count = 0;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc) {
		snprintf(why, whylen, "%s",
			 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
		return NULL;
	}
	n = (size_t)snprintf(entry, sizeof(entry), "%s:%ld:", host, port);
	for (struct addrinfo *a = res; a && n < sizeof(entry); a = a->ai_next) {
		char addr[INET6_ADDRSTRLEN];
		const void *src =
		    a->ai_family == AF_INET
			? (const void *)&((struct sockaddr_in *)a->ai_addr)
			      ->sin_addr
			: (const void *)&((struct sockaddr_in6 *)a->ai_addr)
			      ->sin6_addr;
		int w;

		if ((a->ai_family != AF_INET && a->ai_family != AF_INET6) ||
		    !inet_ntop(a->ai_family, src, addr, sizeof(addr)))
			continue;
		w = snprintf(entry + n, sizeof(entry) - n,
			     a->ai_family == AF_INET6 ? "%s[%s]" : "%s%s",
			     count ? "," : "", addr);
		if (w < 0 || (size_t)w >= sizeof(entry) - n)
			break; /* keep the addresses that fit */
		n += (size_t)w;
		count++;
	}
	freeaddrinfo(res);
	if (!count) {
		snprintf(why, whylen, "no IPv4 or IPv6 address");
		return NULL;
	}
	return strdup(entry);
}

/* Resolves url u's host and swaps its entry in; a failure keeps the old
 * one. Logs at load (first) and when the addresses change or a refresh
 * fails. Called without pin_lock held. */
static void refresh(int u, bool first)
{
	char why[256], *e;
	double t0 = mpp_now_s(), ms;
	bool changed;

	e = resolve(pins[u].host, pins[u].port, why, sizeof(why));
	ms = (mpp_now_s() - t0) * 1000.0;
	pthread_mutex_lock(&pin_lock);
	if (!e) {
		pthread_mutex_unlock(&pin_lock);
		slurm_error(PFX "%s: cannot resolve %s (%s) after %.0f ms; %s",
			    mpp_cfg.urls[u], pins[u].host, why, ms,
			    first ? "jobs are submitted unchanged until it "
				    "resolves"
				  : "keeping the addresses it had");
		return;
	}
	changed = !pins[u].entry || strcmp(pins[u].entry, e);
	free(pins[u].entry);
	pins[u].entry = e;
	pthread_mutex_unlock(&pin_lock);
	if (first || changed)
		slurm_info(PFX "%s: %s resolved in %.0f ms: %s",
			   mpp_cfg.urls[u], pins[u].host, ms,
			   strchr(strchr(e, ':') + 1, ':') + 1);
}

static void *refresher(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&pin_lock);
	while (!stopping) {
		struct timespec ts;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += mpp_cfg.resolve_seconds;
		while (!stopping && pthread_cond_timedwait(&pin_wake, &pin_lock,
							   &ts) != ETIMEDOUT)
			;
		for (int u = 0; u < npins && !stopping; u++) {
			if (!pins[u].host)
				continue;
			pthread_mutex_unlock(&pin_lock);
			refresh(u, false);
			pthread_mutex_lock(&pin_lock);
		}
	}
	pthread_mutex_unlock(&pin_lock);
	return NULL;
}

/* The host and port of url into pins[u]; host NULL for a literal. */
static int parse(int u, char *err, size_t errlen)
{
	CURLU *cu = curl_url();
	char *host = NULL, *port = NULL;
	struct in_addr a4;
	int rc = -1;

	if (!cu ||
	    curl_url_set(cu, CURLUPART_URL, mpp_cfg.urls[u], 0) != CURLUE_OK ||
	    curl_url_get(cu, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    curl_url_get(cu, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) !=
		CURLUE_OK) {
		snprintf(err, errlen, "url '%s': cannot read its host and port",
			 mpp_cfg.urls[u]);
		goto out;
	}
	pins[u].port = strtol(port, NULL, 10);
	if (host[0] != '[' && inet_pton(AF_INET, host, &a4) != 1 &&
	    !(pins[u].host = strdup(host))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	rc = 0;
out:
	curl_free(host);
	curl_free(port);
	curl_url_cleanup(cu);
	return rc;
}

int mpp_pin_start(char *err, size_t errlen)
{
	pthread_condattr_t ca;
	bool names = false;

	mpp_pin_stop();
	for (int u = 0; u < mpp_cfg.nurls; u++) {
		npins = u + 1;
		if (parse(u, err, errlen)) {
			mpp_pin_stop();
			return -1;
		}
		if (pins[u].host) {
			refresh(u, true);
			names = true;
		}
	}
	if (!names)
		return 0;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&pin_wake, &ca);
	pthread_condattr_destroy(&ca);
	stopping = false;
	if (pthread_create(&pin_thread, NULL, refresher, NULL)) {
		pthread_cond_destroy(&pin_wake);
		mpp_pin_stop();
		snprintf(err, errlen,
			 "cannot start the thread that resolves "
			 "url host names again");
		return -1;
	}
	thread_running = true;
	return 0;
}

void mpp_pin_stop(void)
{
	if (thread_running) {
		pthread_mutex_lock(&pin_lock);
		stopping = true;
		pthread_cond_signal(&pin_wake);
		pthread_mutex_unlock(&pin_lock);
		pthread_join(pin_thread, NULL);
		pthread_cond_destroy(&pin_wake);
		thread_running = false;
	}
	for (int u = 0; u < npins; u++) {
		free(pins[u].host);
		free(pins[u].entry);
		pins[u].host = pins[u].entry = NULL;
	}
	npins = 0;
}

/* CURLOPT_RESOLVER_START_FUNCTION: libcurl asks before it starts resolving
 * a name it does not hold; the answer is always no. */
static int refuse_resolver(void *resolver_state, void *reserved, void *userdata)
{
	(void)resolver_state;
	(void)reserved;
	(void)userdata;
	return 1;
}

bool mpp_pin_use(CURL *h, int u, struct curl_slist **list, char *why,
		 size_t whylen)
{
	char *copy = NULL;

	*list = NULL;
	if (u >= npins || !pins[u].host)
		return true;
	pthread_mutex_lock(&pin_lock);
	if (pins[u].entry)
		copy = strdup(pins[u].entry);
	pthread_mutex_unlock(&pin_lock);
	if (!copy) {
		snprintf(why, whylen, "host %s not resolved (yet)",
			 pins[u].host);
		return false;
	}
	*list = curl_slist_append(NULL, copy);
	free(copy);
	if (!*list) {
		snprintf(why, whylen, "out of memory");
		return false;
	}
	curl_easy_setopt(h, CURLOPT_RESOLVE, *list);
	curl_easy_setopt(h, CURLOPT_RESOLVER_START_FUNCTION, refuse_resolver);
	return true;
}
