/*
 * hist.c: history predictions in the daemon (hist.h). The predictor is
 * history/history.c, the same code the trace replay measures; this file
 * feeds it from the jobs table and turns its answer into JSON.
 */
#include "server/hist.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_gen.h>

#include "history/history.h"
#include "history/nag.h"
#include "common/status.h"
#include "server/api.h"
#include "server/log.h"
#include "server/metrics.h"

struct mpp_histsvc {
	pthread_mutex_t lock;
	mpp_hist *hist;
	/* The online method's loss, for every predictor built (a rebuild
	 * too); has_loss 0: the study's. */
	mpp_nag_loss loss;
	int has_loss;
	int64_t last_id;
	/* Keys past this many are dropped by rebuilding from the (pruned)
	 * jobs table: a user's many distinct requests and sizes would
	 * otherwise grow the predictor without bound in a daemon that never
	 * restarts. */
	size_t max_keys;
	unsigned long rebuilds;
	/* The latest updated_at of the jobs table when it was last read: a
	 * row already learnt that is written again after it (a job reported
	 * twice, with another run time or state) makes the next refresh
	 * rebuild from the table, as the predictor cannot unlearn a run. */
	double mark;
};

static double now_unix(void);

/* Where learn() puts a row: the shared predictor (locked) or a new one
 * being rebuilt (not yet shared). */
typedef struct target {
	mpp_histsvc *h;
	mpp_hist *into; /* NULL: h->hist under h->lock */
} target;

/* A finished job teaches the history under the user's name and, when
 * different, under "uid:N": a request carries one or the other. */
static int learn(void *ctx, const mpp_job_rec *r)
{
	target *t = ctx;
	mpp_hist *hist = t->into ? t->into : t->h->hist;
	char uid[32];
	mpp_hist_job j = {
	    .user = r->user,
	    .app = r->app,
	    .req_s = isfinite(r->time_limit_s) ? r->time_limit_s : 0,
	    .procs = isfinite(r->ntasks) ? r->ntasks : 0,
	    .submit_s = isfinite(r->submit_at) ? r->submit_at : 0,
	    .end_s = isfinite(r->end_at) ? r->end_at : 0,
	};
	int rc;

	if (!t->into)
		pthread_mutex_lock(&t->h->lock);
	rc = mpp_hist_observe(hist, &j, r->runtime_s);
	if (rc == MPP_OK && r->uid >= 0) {
		snprintf(uid, sizeof(uid), "uid:%lld", (long long)r->uid);
		if (strcmp(uid, r->user) != 0) {
			j.user = uid;
			j.alias = 1; /* the models have learnt it above */
			rc = mpp_hist_observe(hist, &j, r->runtime_s);
		}
	}
	if (!t->into)
		pthread_mutex_unlock(&t->h->lock);
	/* A row the predictor refuses (a 300-byte user name) is skipped. */
	return rc == MPP_ENOMEM ? rc : MPP_OK;
}

/* A new, empty predictor of h's method and loss; NULL: out of memory. */
static mpp_hist *hist_new(const mpp_histsvc *h, int method)
{
	mpp_hist *p = mpp_hist_new(method);

	if (p && h->has_loss && method == MPP_HIST_ONLINE &&
	    mpp_hist_set_loss(p, &h->loss)) {
		mpp_hist_free(p);
		return NULL;
	}
	return p;
}

int mpp_histsvc_open(const char *db_path, int method, const mpp_nag_loss *loss,
		     size_t max_keys, mpp_histsvc **out, char *err,
		     size_t errlen)
{
	mpp_histsvc *h = calloc(1, sizeof(*h));
	mpp_store *s = NULL;
	int rc;

	*out = NULL;
	if (h && loss) {
		h->loss = *loss;
		h->has_loss = 1;
	}
	if (!h || !(h->hist = hist_new(h, method))) {
		free(h);
		snprintf(err, errlen, "out of memory");
		return MPP_ENOMEM;
	}
	pthread_mutex_init(&h->lock, NULL);
	h->max_keys = max_keys;
	rc = mpp_store_open(db_path, MPP_STORE_READONLY, &s, err, errlen);
	target t = {h, h->hist};
	int changed;
	/* The mark first: a row written while the table is read is then
	 * seen again by the first refresh, never missed. */
	if (rc == MPP_OK)
		rc = mpp_store_jobs_changed(s, 0, 0, &changed, &h->mark, err,
					    errlen);
	if (rc == MPP_OK)
		rc = mpp_store_each_job(s, 0, learn, &t, &h->last_id, err,
					errlen);
	mpp_store_close(s);
	if (rc) {
		mpp_histsvc_free(h);
		return rc;
	}
	*out = h;
	return MPP_OK;
}

void mpp_histsvc_free(mpp_histsvc *h)
{
	if (!h)
		return;
	mpp_hist_free(h->hist);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* A new predictor from what the table holds now, swapped in for the old
 * one; on failure the old one keeps serving. */
static int rebuild(mpp_histsvc *h, mpp_store *s, const char *why, char *err,
		   size_t errlen)
{
	mpp_hist *fresh = hist_new(h, mpp_hist_method(h->hist)), *old;
	int64_t last = 0;
	target t = {h, fresh};
	int rc;

	if (!fresh)
		return MPP_OK; /* keep serving from the old one */
	rc = mpp_store_each_job(s, 0, learn, &t, &last, err, errlen);
	if (rc) {
		mpp_hist_free(fresh);
		return rc;
	}
	pthread_mutex_lock(&h->lock);
	old = h->hist;
	h->hist = fresh;
	h->last_id = last > h->last_id ? last : h->last_id;
	pthread_mutex_unlock(&h->lock);
	mpp_hist_free(old);
	h->rebuilds++;
	mpp_log(MPP_LOG_INFO,
		"history: %s: rebuilt from the jobs table (%zu keys)", why,
		mpp_hist_nkeys(fresh));
	return MPP_OK;
}

int mpp_histsvc_refresh(mpp_histsvc *h, mpp_store *s, char *err, size_t errlen)
{
	int64_t last = h->last_id;
	target t = {h, NULL};
	double mark = h->mark;
	char why[96];
	size_t nkeys;
	int changed, rc;

	/* A job learnt before that was written again: start again from the
	 * table (rare: a job reported twice). The mark is read before the
	 * rows, so a write between the two is seen by the next call. */
	rc = mpp_store_jobs_changed(s, last, h->mark, &changed, &mark, err,
				    errlen);
	if (rc)
		return rc;
	if (changed) {
		rc = rebuild(h, s, "a finished job was reported again", err,
			     errlen);
		if (rc == MPP_OK)
			h->mark = mark;
		return rc;
	}
	/* Rows are read after last_id, in id order; learn() takes the lock
	 * per row, so predictions go on meanwhile. */
	rc = mpp_store_each_job(s, last > 0 ? last : 0, learn, &t, &last, err,
				errlen);
	h->last_id = last;
	if (rc)
		return rc;
	h->mark = mark;
	pthread_mutex_lock(&h->lock);
	nkeys = mpp_hist_nkeys(h->hist);
	pthread_mutex_unlock(&h->lock);
	if (nkeys <= h->max_keys)
		return MPP_OK;
	/* Too many keys: start again from what the table keeps. */
	snprintf(why, sizeof(why), "%zu keys, over %zu", nkeys, h->max_keys);
	return rebuild(h, s, why, err, errlen);
}

static void put_key(yajl_gen g, const char *s)
{
	yajl_gen_string(g, (const unsigned char *)s, strlen(s));
}

/* A name from a script may not be UTF-8: its bytes past ASCII become '?'
 * rather than making the answer invalid JSON (as api.c does). */
static void put_name(yajl_gen g, const char *s)
{
	size_t n = strlen(s);
	yajl_gen_config(g, yajl_gen_validate_utf8, 1);
	yajl_gen_status st = yajl_gen_string(g, (const unsigned char *)s, n);
	yajl_gen_config(g, yajl_gen_validate_utf8, 0);
	if (st != yajl_gen_invalid_string)
		return;
	char *c = strdup(s);
	if (!c) {
		yajl_gen_null(g);
		return;
	}
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)c[i] >= 0x80)
			c[i] = '?';
	yajl_gen_string(g, (const unsigned char *)c, n);
	free(c);
}

static void put_num(yajl_gen g, double x)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%.17g", x);
	yajl_gen_number(g, buf, (size_t)n);
}

static double now_unix(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int mpp_histsvc_answer(mpp_histsvc *h, const mpp_request *q, const char *app,
		       double ntasks, mpp_audit *audit, mpp_reply *r)
{
	char uid[32];
	const char *user = q->user;
	mpp_hist_pred p;
	mpp_hist_job j;
	const unsigned char *buf;
	size_t len;
	yajl_gen g;
	int rc;

	if (!h)
		return -1;
	if (!user && q->uid >= 0) {
		snprintf(uid, sizeof(uid), "uid:%.0f", q->uid);
		user = uid;
	}
	if (!user || !*user)
		return -1;
	j = (mpp_hist_job){.user = user,
			   .app = app,
			   .req_s = q->time_limit_s > 0 ? q->time_limit_s : 0,
			   .procs = ntasks,
			   .submit_s = now_unix()};
	pthread_mutex_lock(&h->lock);
	rc = mpp_hist_predict(h->hist, &j, &p);
	pthread_mutex_unlock(&h->lock);
	if (rc != MPP_OK || !p.known)
		return -1;
	g = yajl_gen_alloc(NULL);
	if (!g)
		return -1;
	yajl_gen_map_open(g);
	put_key(g, "app");
	put_name(g, app ? app : "");
	put_key(g, "runtime_s");
	put_num(g, p.runtime_s);
	put_key(g, "lower_s");
	put_num(g, p.lower_s);
	put_key(g, "upper_s");
	put_num(g, p.upper_s);
	put_key(g, "basis");
	put_key(g, "history");
	put_key(g, "history");
	yajl_gen_map_open(g);
	put_key(g, "user");
	put_name(g, user);
	put_key(g, "errors");
	yajl_gen_integer(g, (long long)p.nerrors);
	yajl_gen_map_close(g);
	put_key(g, "ignored_features");
	yajl_gen_array_open(g);
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	if (yajl_gen_get_buf(g, &buf, &len) != yajl_gen_status_ok ||
	    !(r->body = malloc(len + 1))) {
		yajl_gen_free(g);
		return -1;
	}
	memcpy(r->body, buf, len);
	r->body[len] = '\0';
	r->len = len;
	r->status = 200;
	r->content_type = "application/json";
	yajl_gen_free(g);

	mpp_prediction_rec rec = {
	    .at = now_unix(),
	    .job_id = q->job_id,
	    .app = app ? app : "",
	    .basis = "history",
	    .user = user,
	    .partition = q->partition,
	    .runtime_s = p.runtime_s,
	    .lower_s = p.lower_s,
	    .upper_s = p.upper_s,
	};
	mpp_metrics_prediction(MPP_BASIS_HISTORY);
	if (mpp_audit_push(audit, &rec) != 0)
		mpp_metrics_error(MPP_ERR_AUDIT_DROPPED, 1);
	return 0;
}
