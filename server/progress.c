/*
 * progress.c: POST /v1/progress, GET /v1/jobs/{job_id} and the running
 * jobs of the staff page (see progress.h).
 *
 * How far a job is: the count of the model's progress counter (model.h
 * progress_feature: the loop counted most in training, so the main
 * phase's) over its total by its power law in the job's parameters is
 * its progress p ("counter"). A model without one, or a post without it:
 * the app's active model prices each kept counter (seconds per unit, the
 * features path's coefficients); the counters a job has done, priced,
 * over the same counters as the model expects them for the job's
 * parameters (each term's power law), priced, is p ("counters"), which a
 * set-up loop among them puts ahead of the run. The time left is then the
 * model's cost of the rest, (1 - p) times the prediction from the
 * parameters, and its interval the same share of the prediction's; once
 * a later post of the job shows the progress counter moving ("rate"),
 * the count left at the job's own pace since its first post with the
 * counter above 0 (which leaves out the set-up before it), with the
 * prediction's relative interval. When
 * no such counter is both posted and predictable from the parameters, or
 * all are done while the job still runs, p is the elapsed time's share of
 * the prediction ("time") and the time left is the prediction minus the
 * elapsed time, clipped at 0.
 * Not for: routing (http.c), the model's arithmetic (regress/model.c).
 */
#include "server/progress.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_gen.h>
#include <yajl/yajl_tree.h>

#include "common/status.h"
#include "common/text.h"
#include "regress/params.h"
#include "schema/store.h"
#include "server/cache.h"
#include "server/extend.h"
#include "server/log.h"
#include "server/ui_svg.h"

/* The latest post of one job. */
struct entry {
	char *job_id, *run_id, *app, *build_id, *args;
	int nprocs, nnodes;
	double elapsed_s, time_limit_s, received_at; /* limit <= 0: unknown */
	size_t nf;
	char **names;
	double *vals;
	/* The job's first post whose progress counter was above 0: its
	 * elapsed time and count, under model a_model (0: none yet). */
	double a_elapsed, a_count;
	int64_t a_model;
};

static struct {
	pthread_mutex_t lock;
	int loaded; /* the store's rows were read (once after a start) */
	struct entry **v;
	size_t n, cap;
} tab = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The api of the last progress request, for the staff page, which has
 * none of its own (ui.h). */
static const mpp_api *_Atomic page_api;

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void entry_free(struct entry *e)
{
	if (!e)
		return;
	for (size_t i = 0; i < e->nf; i++)
		free(e->names[i]);
	free(e->names);
	free(e->vals);
	free(e->job_id);
	free(e->run_id);
	free(e->app);
	free(e->build_id);
	free(e->args);
	free(e);
}

/* ---- reading a post ----------------------------------------------------- */

/* A job id as Slurm writes them (123, 123_4 for an array task, 123+1 for
 * a heterogeneous component): letters, digits, '_', '+', '.', '-'. */
static int job_id_ok(const char *id, char *err, size_t errlen)
{
	size_t n = strlen(id);

	if (n == 0) {
		snprintf(err, errlen, "job_id: empty");
		return -1;
	}
	if (mpp_text_check("job_id", id, n, MPP_TEXT_LABEL, err, errlen) < 0)
		return -1;
	if (n > 64 || strspn(id, "0123456789abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ_+.-") != n) {
		snprintf(err, errlen,
			 "job_id: '%.64s' is not a job id (letters, digits, "
			 "'_', '+', '.', '-'; at most 64 bytes)",
			 id);
		return -1;
	}
	return 0;
}

/* The string field `key` of o, checked by the text rule; NULL with err
 * when missing or wrong (optional: "" when missing). */
static const char *str_field(yajl_val o, const char *key,
			     enum mpp_text_kind kind, int optional, char *err,
			     size_t errlen)
{
	const char *path[] = {key, NULL};
	yajl_val v = yajl_tree_get(o, path, yajl_t_any);
	const char *s;

	if (!v && optional)
		return "";
	if (!v || !YAJL_IS_STRING(v)) {
		snprintf(err, errlen, "%s: %s", key,
			 v ? "expected a string" : "missing");
		return NULL;
	}
	s = YAJL_GET_STRING(v);
	if (mpp_text_check(key, s, strlen(s), kind, err, errlen) < 0)
		return NULL;
	return s;
}

/* The number field `key` of o within [lo, hi]; -1 with err when missing
 * (unless optional: *out untouched) or out of range. */
static int num_field(yajl_val o, const char *key, double lo, double hi,
		     int optional, double *out, char *err, size_t errlen)
{
	const char *path[] = {key, NULL};
	yajl_val v = yajl_tree_get(o, path, yajl_t_any);
	double x;

	if (!v && optional)
		return 0;
	if (!v || !YAJL_IS_NUMBER(v)) {
		snprintf(err, errlen, "%s: %s", key,
			 v ? "expected a number" : "missing");
		return -1;
	}
	x = YAJL_GET_DOUBLE(v);
	if (!isfinite(x) || x < lo || x > hi) {
		snprintf(err, errlen, "%s: %g is not in [%g, %g]", key, x, lo,
			 hi);
		return -1;
	}
	*out = x;
	return 0;
}

/* The features object into e (names checked as free text, values finite
 * and >= 0). */
static int features_field(yajl_val f, struct entry *e, char *err, size_t errlen)
{
	size_t n;

	if (!f || !YAJL_IS_OBJECT(f)) {
		snprintf(err, errlen, "features: %s",
			 f ? "expected an object of name: number" : "missing");
		return -1;
	}
	n = f->u.object.len;
	e->names = calloc(n ? n : 1, sizeof *e->names);
	e->vals = calloc(n ? n : 1, sizeof *e->vals);
	if (!e->names || !e->vals) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const char *k = f->u.object.keys[i];
		yajl_val v = f->u.object.values[i];

		if (mpp_text_check("features: a name", k, strlen(k),
				   MPP_TEXT_FREE, err, errlen) < 0)
			return -1;
		if (!YAJL_IS_NUMBER(v) || !isfinite(YAJL_GET_DOUBLE(v)) ||
		    YAJL_GET_DOUBLE(v) < 0) {
			snprintf(err, errlen,
				 "features: %.200s: expected a number >= 0", k);
			return -1;
		}
		e->names[i] = strdup(k);
		if (!e->names[i]) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		e->vals[i] = YAJL_GET_DOUBLE(v);
		e->nf = i + 1;
	}
	return 0;
}

static char *dup_or_fail(const char *s, int *fail)
{
	char *d = strdup(s);

	*fail |= d == NULL;
	return d;
}

/* A post (or a stored row's fields) into a new entry; NULL with err. */
static struct entry *parse_post(yajl_val o, char *err, size_t errlen)
{
	struct entry *e = calloc(1, sizeof *e);
	const char *id, *run, *app, *build, *args;
	const char *fpath[] = {"features", NULL};
	double np = 0, nn = 0;
	int oom = 0;

	if (!e) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	e->time_limit_s = 0;
	if (!o || !YAJL_IS_OBJECT(o)) {
		snprintf(err, errlen, "body: expected a JSON object");
		goto fail;
	}
	if (!(id = str_field(o, "job_id", MPP_TEXT_LABEL, 0, err, errlen)) ||
	    job_id_ok(id, err, errlen) < 0 ||
	    !(run = str_field(o, "run_id", MPP_TEXT_LABEL, 1, err, errlen)) ||
	    !(app = str_field(o, "app", MPP_TEXT_LABEL, 0, err, errlen)) ||
	    !(build =
		  str_field(o, "build_id", MPP_TEXT_LABEL, 1, err, errlen)) ||
	    !(args = str_field(o, "args", MPP_TEXT_FREE, 1, err, errlen)))
		goto fail;
	if (!*app) {
		snprintf(err, errlen, "app: empty");
		goto fail;
	}
	if (num_field(o, "nprocs", 1, 1e9, 0, &np, err, errlen) < 0 ||
	    num_field(o, "nnodes", 1, 1e9, 0, &nn, err, errlen) < 0 ||
	    num_field(o, "elapsed_s", 0, 1e9, 0, &e->elapsed_s, err, errlen) <
		0 ||
	    num_field(o, "time_limit_s", 1e-9, 1e9, 1, &e->time_limit_s, err,
		      errlen) < 0)
		goto fail;
	if (np != floor(np) || nn != floor(nn)) {
		snprintf(err, errlen, "nprocs, nnodes: expected whole numbers");
		goto fail;
	}
	e->nprocs = (int)np;
	e->nnodes = (int)nn;
	if (features_field(yajl_tree_get(o, fpath, yajl_t_any), e, err,
			   errlen) < 0)
		goto fail;
	e->job_id = dup_or_fail(id, &oom);
	e->run_id = dup_or_fail(run, &oom);
	e->app = dup_or_fail(app, &oom);
	e->build_id = dup_or_fail(build, &oom);
	e->args = dup_or_fail(args, &oom);
	if (oom) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return e;
fail:
	entry_free(e);
	return NULL;
}

/* The features of e as the JSON object the store keeps; malloc'ed. */
static char *features_json(const struct entry *e)
{
	yajl_gen g = yajl_gen_alloc(NULL);
	const unsigned char *buf;
	char *out = NULL;
	size_t len;

	if (!g)
		return NULL;
	yajl_gen_map_open(g);
	for (size_t i = 0; i < e->nf; i++) {
		yajl_gen_string(g, (const unsigned char *)e->names[i],
				strlen(e->names[i]));
		yajl_gen_double(g, e->vals[i]);
	}
	yajl_gen_map_close(g);
	if (yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok &&
	    (out = malloc(len + 1))) {
		memcpy(out, buf, len);
		out[len] = '\0';
	}
	yajl_gen_free(g);
	return out;
}

/* ---- the table ---------------------------------------------------------- */

/* Under tab.lock: e in place of the job's previous entry (the table
 * takes it, and the previous one's anchor when it is the same run);
 * entries past MPP_PROGRESS_KEEP_S dropped. 0, or -1 (out of
 * memory: e freed). */
static int put_locked(struct entry *e, double now)
{
	size_t i, k = 0;

	for (i = 0; i < tab.n; i++) {
		struct entry *x = tab.v[i];

		int same = !strcmp(x->job_id, e->job_id);

		if (same && !strcmp(x->run_id, e->run_id)) {
			e->a_elapsed = x->a_elapsed;
			e->a_count = x->a_count;
			e->a_model = x->a_model;
		}
		if (same || now - x->received_at > MPP_PROGRESS_KEEP_S)
			entry_free(x);
		else
			tab.v[k++] = x;
	}
	tab.n = k;
	if (tab.n == tab.cap) {
		size_t cap = tab.cap ? 2 * tab.cap : 64;
		struct entry **v = realloc(tab.v, cap * sizeof *v);

		if (!v) {
			entry_free(e);
			return -1;
		}
		tab.v = v;
		tab.cap = cap;
	}
	tab.v[tab.n++] = e;
	return 0;
}

static int load_one(void *ctx, const mpp_progress_rec *r)
{
	char err[512], ebuf[128];
	yajl_val f =
	    yajl_tree_parse(r->features ? r->features : "", ebuf, sizeof ebuf);
	struct entry *e = calloc(1, sizeof *e);
	int oom = 0;

	(void)ctx;
	if (!e || features_field(f, e, err, sizeof err) < 0) {
		yajl_tree_free(f);
		entry_free(e);
		return MPP_OK; /* a row this daemon cannot read: skipped */
	}
	yajl_tree_free(f);
	e->job_id = dup_or_fail(r->job_id ? r->job_id : "", &oom);
	e->run_id = dup_or_fail(r->run_id ? r->run_id : "", &oom);
	e->app = dup_or_fail(r->app ? r->app : "", &oom);
	e->build_id = dup_or_fail(r->build_id ? r->build_id : "", &oom);
	e->args = dup_or_fail(r->args ? r->args : "", &oom);
	e->nprocs = r->nprocs;
	e->nnodes = r->nnodes;
	e->elapsed_s = r->elapsed_s;
	e->time_limit_s = isfinite(r->time_limit_s) ? r->time_limit_s : 0;
	e->received_at = r->received_at;
	if (oom || put_locked(e, wall_now()) < 0) {
		if (oom)
			entry_free(e);
		return MPP_ENOMEM;
	}
	return MPP_OK;
}

/* Under tab.lock: the store's recent rows, once after a start, so that a
 * restart does not forget the running jobs until their next post. */
static void load_locked(const mpp_api *api)
{
	mpp_store *s = NULL;
	char err[512];

	if (tab.loaded || !api->db_path)
		return;
	tab.loaded = 1;
	if (mpp_store_open(api->db_path, MPP_STORE_READONLY, &s, err,
			   sizeof err) != MPP_OK ||
	    mpp_store_each_progress(s, wall_now() - MPP_PROGRESS_KEEP_S,
				    load_one, NULL, err, sizeof err) != MPP_OK)
		mpp_log(MPP_LOG_WARN, "progress: reading the store: %s", err);
	if (s)
		mpp_store_close(s);
}

/* ---- answers ------------------------------------------------------------ */

static void reply_take(mpp_reply *r, int status, yajl_gen g)
{
	const unsigned char *buf;
	size_t len;

	r->status = status;
	r->content_type = "application/json";
	r->body = NULL;
	r->len = 0;
	if (g && yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok &&
	    (r->body = malloc(len + 1))) {
		memcpy(r->body, buf, len);
		r->body[len] = '\0';
		r->len = len;
	}
	if (g)
		yajl_gen_free(g);
	if (!r->body)
		mpp_api_error(r, 500, "out of memory");
}

static void put_key(yajl_gen g, const char *k)
{
	yajl_gen_string(g, (const unsigned char *)k, strlen(k));
}

static void put_str(yajl_gen g, const char *k, const char *v)
{
	put_key(g, k);
	yajl_gen_string(g, (const unsigned char *)v, strlen(v));
}

/* A number, null when not finite. */
static void put_num(yajl_gen g, const char *k, double x)
{
	put_key(g, k);
	if (isfinite(x))
		yajl_gen_double(g, x);
	else
		yajl_gen_null(g);
}

static void consider_extension(const mpp_api *api, struct entry *e);

void mpp_api_progress(const mpp_api *api, const char *body, size_t len,
		      mpp_reply *r)
{
	char err[512] = "", ebuf[256] = "", *fj = NULL;
	struct entry *e = NULL;
	mpp_store *s = NULL;
	yajl_val o;
	yajl_gen g;
	int rc;

	page_api = api;
	if (strlen(body) != len) {
		mpp_api_error(r, 400, "body: contains a NUL byte");
		return;
	}
	o = yajl_tree_parse(body, ebuf, sizeof ebuf);
	if (!o) {
		ebuf[strcspn(ebuf, "\n")] = '\0';
		mpp_api_error(r, 400, "body: not JSON: %s", ebuf);
		return;
	}
	e = parse_post(o, err, sizeof err);
	yajl_tree_free(o);
	if (!e) {
		mpp_api_error(r, strcmp(err, "out of memory") ? 400 : 500, "%s",
			      err);
		return;
	}
	e->received_at = wall_now();
	fj = features_json(e);
	if (!fj) {
		entry_free(e);
		mpp_api_error(r, 500, "out of memory");
		return;
	}
	mpp_progress_rec rec = {
	    .job_id = e->job_id,
	    .run_id = e->run_id,
	    .app = e->app,
	    .build_id = e->build_id,
	    .args = e->args,
	    .features = fj,
	    .nprocs = e->nprocs,
	    .nnodes = e->nnodes,
	    .elapsed_s = e->elapsed_s,
	    .time_limit_s = e->time_limit_s,
	    .received_at = e->received_at,
	};
	rc = mpp_store_open(api->db_path, 0, &s, err, sizeof err);
	if (rc == MPP_OK)
		rc = mpp_store_put_progress(s, &rec, err, sizeof err);
	if (s)
		mpp_store_close(s);
	free(fj);
	if (rc != MPP_OK) {
		mpp_log(MPP_LOG_ERROR, "progress: %s", err);
		entry_free(e);
		mpp_api_error(r, 500, "%s", err);
		return;
	}
	pthread_mutex_lock(&tab.lock);
	load_locked(api);
	rc = put_locked(e, wall_now());
	if (rc == 0)
		consider_extension(api, e);
	pthread_mutex_unlock(&tab.lock);
	if (rc < 0) {
		mpp_api_error(r, 500, "out of memory");
		return;
	}
	g = yajl_gen_alloc(NULL);
	if (g) {
		yajl_gen_map_open(g);
		put_key(g, "stored");
		yajl_gen_integer(g, 1);
		yajl_gen_map_close(g);
	}
	reply_take(r, 200, g);
}

/* What the model says of a job's entry (see the top of this file). */
struct estimate {
	double elapsed, total, remaining, lower, upper, progress;
	double count;      /* the progress counter's posted count, or NAN */
	const char *basis; /* counter, rate, counters, time; NULL: none */
	int outlives;      /* -1: limit unknown or no estimate */
	int64_t model_id;
	int model_version;
	char note[320]; /* why there is no estimate */
};

/* The posted value of feature f, or NAN. */
static double posted_feature(const struct entry *e, const char *f)
{
	for (size_t i = 0; i < e->nf; i++)
		if (!strcmp(e->names[i], f))
			return e->vals[i];
	return NAN;
}

/* The posted value of term t (its feature or an alias), or NAN. */
static double posted(const struct entry *e, const mpp_term *t)
{
	double v = posted_feature(e, t->feature);

	for (size_t a = 0; isnan(v) && a < t->naliases; a++)
		v = posted_feature(e, t->aliases[a]);
	return v;
}

static void estimate(const mpp_api *api, const struct entry *e, double now,
		     struct estimate *x)
{
	double done = 0, whole = 0, d, w, left;
	const char *basis = "counters";
	mpp_prediction pr;
	mpp_snapshot *snap;
	const mpp_model *m;
	mpp_params p = {0};
	char err[256];

	memset(x, 0, sizeof *x);
	x->outlives = -1;
	x->elapsed =
	    e->elapsed_s + (now > e->received_at ? now - e->received_at : 0);
	x->total = x->remaining = x->lower = x->upper = x->progress = NAN;
	x->count = NAN;
	snap = mpp_cache_acquire(api->cache);
	m = mpp_snapshot_find(snap, e->app, NULL);
	if (!m) {
		snprintf(x->note, sizeof x->note, "no active model for app %s",
			 e->app);
		goto out;
	}
	x->model_id = m->id;
	x->model_version = m->version;
	if (mpp_params_from_string(e->args, e->nprocs, e->nnodes, &p) !=
	    MPP_OK) {
		snprintf(x->note, sizeof x->note, "out of memory");
		goto out;
	}
	if (mpp_model_predict_params(m, &p, &pr, err, sizeof err) != MPP_OK) {
		snprintf(x->note, sizeof x->note, "no prediction: %s", err);
		goto out;
	}
	/* The model's progress counter, posted: it alone says how far. */
	if (m->progress_feature &&
	    isfinite(d = posted_feature(e, m->progress_feature)) &&
	    isfinite(w = mpp_model_law_count(m, &m->progress, &p)) && w > 0) {
		done = d;
		whole = w;
		basis = "counter";
		x->count = d;
	}
	for (size_t i = 0; !(whole > 0) && i < m->nterms; i++) {
		const mpp_term *t = &m->terms[i];

		if (!(t->coef > 0))
			continue;
		d = posted(e, t);
		w = mpp_model_law_count(m, &t->pm, &p);
		if (!isfinite(d) || !isfinite(w))
			continue;
		done += t->coef * d;
		whole += t->coef * w;
	}
	/* Counters the model prices, not all done: they say what is left.
	 * All done while the job still runs (a set-up loop that measures
	 * the problem's size well but ends early: hpcg, miniFE, PENNANT in
	 * make bench-remaining), they say nothing of what is left: the
	 * elapsed time does. */
	if (whole > 0 && done < whole * (1 - 1e-9)) { /* laws' rounding */
		x->basis = basis;
		x->progress = done / whole;
		left = 1 - x->progress;
		x->remaining = left * pr.runtime_s;
		x->lower = left * pr.lower_s;
		x->upper = left * pr.upper_s;
		/* The job's own pace since its counter started: the count
		 * left at the rate it went from the anchor to this post,
		 * less the time since the post; the interval keeps the
		 * prediction's relative width. */
		if (isfinite(x->count) && e->a_model == m->id &&
		    x->count > e->a_count && e->elapsed_s > e->a_elapsed &&
		    pr.runtime_s > 0) {
			double rate = (x->count - e->a_count) /
				      (e->elapsed_s - e->a_elapsed);
			double r = fmax(0, (whole - x->count) / rate -
					       (x->elapsed - e->elapsed_s));
			x->basis = "rate";
			x->remaining = r;
			x->lower = r * pr.lower_s / pr.runtime_s;
			x->upper = r * pr.upper_s / pr.runtime_s;
		}
	} else {
		x->basis = "time";
		x->progress =
		    x->elapsed >= pr.runtime_s ? 1 : x->elapsed / pr.runtime_s;
		x->remaining = fmax(0, pr.runtime_s - x->elapsed);
		x->lower = fmax(0, pr.lower_s - x->elapsed);
		x->upper = fmax(0, pr.upper_s - x->elapsed);
	}
	x->total = x->elapsed + x->remaining;
	if (e->time_limit_s > 0)
		x->outlives = x->total > e->time_limit_s;
out:
	mpp_params_free(&p);
	mpp_snapshot_release(snap);
}

/* Under tab.lock: the limit-extension policy's look at a post just taken
 * (a queue: Slurm is asked on the policy's own thread, extend.h). */
static void consider_extension(const mpp_api *api, struct entry *e)
{
	struct estimate x;

	estimate(api, e, e->received_at, &x);
	/* The first post with the progress counter above 0 anchors the
	 * job's pace (a new model: anchored again). */
	if (isfinite(x.count) && x.count > 0 && e->a_model != x.model_id) {
		e->a_elapsed = e->elapsed_s;
		e->a_count = x.count;
		e->a_model = x.model_id;
	}
	if (x.basis)
		mpp_extend_consider(e->job_id, e->received_at, e->elapsed_s,
				    x.remaining, x.upper, e->time_limit_s);
}

void mpp_api_job(const mpp_api *api, const char *job_id, mpp_reply *r)
{
	struct entry *e = NULL;
	struct estimate x;
	char err[512];
	double now = wall_now();
	yajl_gen g;

	page_api = api;
	if (job_id_ok(job_id, err, sizeof err) < 0) {
		mpp_api_error(r, 400, "%s", err);
		return;
	}
	pthread_mutex_lock(&tab.lock);
	load_locked(api);
	for (size_t i = 0; i < tab.n; i++)
		if (!strcmp(tab.v[i]->job_id, job_id) &&
		    now - tab.v[i]->received_at <= MPP_PROGRESS_KEEP_S)
			e = tab.v[i];
	if (!e) {
		pthread_mutex_unlock(&tab.lock);
		mpp_api_error(r, 404,
			      "job_id: no progress from job %s (it sends "
			      "progress while it runs when built with "
			      "mpipredict-cc and a daemon is configured)",
			      job_id);
		return;
	}
	estimate(api, e, now, &x);
	g = yajl_gen_alloc(NULL);
	if (g) {
		yajl_gen_map_open(g);
		put_str(g, "job_id", e->job_id);
		put_str(g, "app", e->app);
		put_str(g, "run_id", e->run_id);
		put_num(g, "elapsed_s", x.elapsed);
		put_num(g, "predicted_total_s", x.total);
		put_num(g, "remaining_s", x.remaining);
		put_num(g, "lower_s", x.lower);
		put_num(g, "upper_s", x.upper);
		put_num(g, "progress", x.progress);
		put_key(g, "progress_basis");
		if (x.basis)
			yajl_gen_string(g, (const unsigned char *)x.basis,
					strlen(x.basis));
		else
			yajl_gen_null(g);
		put_num(g, "time_limit_s",
			e->time_limit_s > 0 ? e->time_limit_s : NAN);
		put_key(g, "outlives_limit");
		if (x.outlives < 0)
			yajl_gen_null(g);
		else
			yajl_gen_bool(g, x.outlives);
		put_num(g, "reported_s_ago", now - e->received_at);
		if (x.basis) {
			put_key(g, "model");
			yajl_gen_map_open(g);
			put_key(g, "id");
			yajl_gen_integer(g, x.model_id);
			put_key(g, "version");
			yajl_gen_integer(g, x.model_version);
			yajl_gen_map_close(g);
		} else
			put_str(g, "note", x.note);
		yajl_gen_map_close(g);
	}
	pthread_mutex_unlock(&tab.lock);
	reply_take(r, 200, g);
}

size_t mpp_progress_list(const mpp_api *api, mpp_job_view *out, size_t max)
{
	double now = wall_now();
	struct estimate x;
	size_t k = 0;

	pthread_mutex_lock(&tab.lock);
	load_locked(api);
	for (size_t i = tab.n; i-- > 0 && k < max;) {
		const struct entry *e = tab.v[i];

		if (now - e->received_at > MPP_PROGRESS_KEEP_S)
			continue;
		estimate(api, e, now, &x);
		snprintf(out[k].job_id, sizeof out[k].job_id, "%s", e->job_id);
		snprintf(out[k].app, sizeof out[k].app, "%s", e->app);
		out[k].elapsed_s = x.elapsed;
		out[k].remaining_s = x.remaining;
		out[k].progress = x.progress;
		out[k].outlives_limit = x.outlives;
		k++;
	}
	pthread_mutex_unlock(&tab.lock);
	return k;
}

/* Seconds as h:mm:ss, or "?" when not known. */
static void page_secs(FILE *f, double s)
{
	long t;

	if (!isfinite(s)) {
		fputs("?", f);
		return;
	}
	t = (long)(s + 0.5);
	fprintf(f, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

void mpp_progress_page(FILE *f)
{
	enum { MAX_SHOWN = 50 };
	const mpp_api *api = page_api;
	mpp_job_view *v;
	size_t n;

	if (!api)
		return;
	v = calloc(MAX_SHOWN, sizeof *v);
	if (!v)
		return;
	n = mpp_progress_list(api, v, MAX_SHOWN);
	fputs("<h2>Running jobs</h2><p class=\"note\">The jobs that sent "
	      "their progress (newest first, up to 50): the share of the "
	      "work the app's model expects that is done, and the time "
	      "left (GET /v1/jobs/{job_id}).</p>",
	      f);
	if (n == 0) {
		fputs("<p class=\"note\">None.</p>", f);
		free(v);
		mpp_extend_page(f, api->db_path);
		return;
	}
	fputs("<table id=\"running\"><tr><th>job</th><th>app</th>"
	      "<th>progress</th><th>elapsed</th><th>left</th>"
	      "<th>outlives its limit</th></tr>",
	      f);
	for (size_t i = 0; i < n; i++) {
		double p = isfinite(v[i].progress) ? v[i].progress : 0;

		fputs("<tr><td>", f);
		mpp_html_text(f, v[i].job_id);
		fputs("</td><td>", f);
		mpp_html_text(f, v[i].app);
		fprintf(f,
			"</td><td><svg width=\"160\" height=\"12\" "
			"role=\"img\"><rect width=\"160\" height=\"12\" "
			"fill=\"#ddd\"/><rect class=\"bar\" width=\"%.1f\" "
			"height=\"12\" fill=\"#4a7\"/></svg> ",
			160 * p);
		if (isfinite(v[i].progress))
			fprintf(f, "%.0f %%", 100 * v[i].progress);
		else
			fputs("?", f);
		fputs("</td><td>", f);
		page_secs(f, v[i].elapsed_s);
		fputs("</td><td>", f);
		page_secs(f, v[i].remaining_s);
		fprintf(f, "</td><td>%s</td></tr>",
			v[i].outlives_limit < 0 ? "?"
			: v[i].outlives_limit   ? "yes"
						: "no");
	}
	fputs("</table>", f);
	free(v);
	mpp_extend_page(f, api->db_path);
}
