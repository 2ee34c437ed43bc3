/*
 * hist.c: history predictions in the daemon (hist.h). The predictor is
 * history/history.c, the same code the trace replay measures; this file
 * feeds it from the jobs table and turns its answer into JSON.
 */
#include "server/hist.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_gen.h>

#include "history/choose.h"
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
	/* The method every predictor is built with: the fixed one, or
	 * auto's current choice. */
	int method;
	/* --history auto (choose.h): the choice is made again from the
	 * jobs table after every `every` jobs learnt. */
	int is_auto;
	mpp_histsvc_auto cfg;
	unsigned long since_choice;
	/* The choice runs in a thread of its own (seconds of replays), on
	 * its own read-only connection to db_path; what it changes (a
	 * rebuild with the new method) it changes under refresh_lock, which
	 * the keeper's refresh holds throughout. */
	pthread_mutex_t refresh_lock;
	char *db_path;
	pthread_t chooser;
	int chooser_started;
	atomic_int choosing;
};

/* The latest choice and its evidence, for /metrics and the staff page:
 * process-wide (one history per daemon), under its own lock, as those
 * readers have no handle on the history. */
static pthread_mutex_t summary_lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
	int set; /* a history is running */
	int is_auto, method, chosen, have_result;
	mpp_choose_result res;
	double chosen_at; /* Unix time of the last choice */
	unsigned long chooses, switches, guard_switches;
	int guarded, procs;
	char why[128]; /* the last choice's outcome, when not a replay */
} summary;

static double now_unix(void);
static void publish(mpp_histsvc *h);
static int rebuild(mpp_histsvc *h, mpp_store *s, const char *why, char *err,
		   size_t errlen);

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
	if (!t->into)
		t->h->since_choice++;
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

/* --history-guard off: the learners always answer (process-wide, set
 * before the history opens). */
static int guard_off;

void mpp_histsvc_guard(int on)
{
	guard_off = !on;
}

/* A new, empty predictor of h's method and loss; NULL: out of memory. */
static mpp_hist *hist_new(const mpp_histsvc *h, int method)
{
	mpp_hist *p = mpp_hist_new(method);

	if (p && guard_off)
		(void)mpp_hist_set_guard(p, 0); /* cannot fail: empty */

	if (p && h->has_loss && method == MPP_HIST_ONLINE &&
	    mpp_hist_set_loss(p, &h->loss)) {
		mpp_hist_free(p);
		return NULL;
	}
	return p;
}

/* ---- auto: the choice from the jobs table (choose.h) ------------------ */

typedef struct table {
	mpp_swf_job *jobs;
	double *start, *end; /* for the machine size */
	size_t n, cap;
	double max_limit;
} table;

static long name_id(const char *s)
{
	uint64_t x = 1469598103934665603ULL;

	for (; s && *s; s++)
		x = (x ^ (unsigned char)*s) * 1099511628211ULL;
	return (long)(x >> 2); /* positive: a user, never -1 (unknown) */
}

/* A finished job as a trace job: the user and app by a hash of their names
 * (the replay only compares them). */
static int collect(void *ctx, const mpp_job_rec *r)
{
	table *t = ctx;
	mpp_swf_job *j;

	if (!isfinite(r->submit_at) || !(r->runtime_s > 0))
		return MPP_OK;
	if (t->n == t->cap) {
		size_t nc = t->cap ? 2 * t->cap : 1024;
		mpp_swf_job *g = realloc(t->jobs, nc * sizeof(*g));
		double *a, *b;
		if (g)
			t->jobs = g;
		a = g ? realloc(t->start, nc * sizeof(*a)) : NULL;
		if (a)
			t->start = a;
		b = a ? realloc(t->end, nc * sizeof(*b)) : NULL;
		if (!b)
			return MPP_ENOMEM;
		t->end = b;
		t->cap = nc;
	}
	j = &t->jobs[t->n];
	*j = (mpp_swf_job){
	    .id = (long)r->id,
	    .submit_s = r->submit_at,
	    .run_s = r->runtime_s < 1 ? 1 : r->runtime_s,
	    .req_s = isfinite(r->time_limit_s) ? r->time_limit_s : 0,
	    .procs = isfinite(r->ntasks) && r->ntasks >= 1 && r->ntasks < 1e9
			 ? (int)r->ntasks
			 : 1,
	    .user = name_id(r->user),
	    .app = r->app && *r->app ? name_id(r->app) : -1,
	};
	if (j->req_s > t->max_limit)
		t->max_limit = j->req_s;
	t->start[t->n] = isfinite(r->start_at) ? r->start_at : NAN;
	t->end[t->n] = isfinite(r->end_at) ? r->end_at : NAN;
	t->n++;
	return MPP_OK;
}

static int by_submit(const void *a, const void *b)
{
	const mpp_swf_job *x = a, *y = b;

	if (x->submit_s != y->submit_s)
		return x->submit_s < y->submit_s ? -1 : 1;
	return (x->id > y->id) - (x->id < y->id);
}

typedef struct edge {
	double t;
	int d;
} edge;

static int by_edge(const void *a, const void *b)
{
	const edge *x = a, *y = b;

	if (x->t != y->t)
		return x->t < y->t ? -1 : 1;
	return x->d - y->d; /* an end before a start at one instant */
}

/* The machine size guessed from the table: the largest sum of ntasks
 * running at one time (at least the widest job). */
static int machine_of(const table *t)
{
	edge *e = malloc((2 * t->n + 1) * sizeof(*e));
	size_t ne = 0;
	long cur = 0, best = 1;

	for (size_t k = 0; k < t->n; k++)
		if (t->jobs[k].procs > best)
			best = t->jobs[k].procs;
	if (!e)
		return (int)best;
	for (size_t k = 0; k < t->n; k++)
		if (isfinite(t->start[k]) && isfinite(t->end[k]) &&
		    t->end[k] > t->start[k]) {
			e[ne++] = (edge){t->start[k], t->jobs[k].procs};
			e[ne++] = (edge){t->end[k], -t->jobs[k].procs};
		}
	qsort(e, ne, sizeof(*e), by_edge);
	for (size_t k = 0; k < ne; k++) {
		cur += e[k].d;
		if (cur > best)
			best = cur;
	}
	free(e);
	return best > 1000000000 ? 1000000000 : (int)best;
}

/* Reads the table and chooses, the current choice as the champion:
 * *method is the choice's method (unchanged when there are too few jobs:
 * summary.why says so). apply (the chooser thread): a new method is
 * installed, under refresh_lock, before the choice is shown. */
static int choose_from(mpp_histsvc *h, mpp_store *s, int apply, int *method,
		       char *err, size_t errlen)
{
	table t = {0};
	mpp_choose_result res;
	mpp_choose_opts o = {.margin = h->cfg.margin};
	int64_t last = 0;
	int rc, champion;

	pthread_mutex_lock(&summary_lock);
	champion = summary.chosen;
	pthread_mutex_unlock(&summary_lock);
	rc = mpp_store_each_job(s, 0, collect, &t, &last, err, errlen);
	if (rc == MPP_ENOMEM)
		snprintf(err, errlen, "out of memory");
	if (rc) {
		free(t.jobs);
		free(t.start);
		free(t.end);
		return rc;
	}
	/* A job without a limit: the largest limit seen (the request bounds
	 * what a corrector may raise a prediction to). */
	for (size_t k = 0; k < t.n; k++) {
		mpp_swf_job *j = &t.jobs[k];
		if (!(j->req_s > 0))
			j->req_s = t.max_limit;
		if (j->req_s < j->run_s)
			j->req_s = j->run_s;
	}
	if (t.n)
		qsort(t.jobs, t.n, sizeof(*t.jobs), by_submit);
	o.procs = h->cfg.procs > 0 ? h->cfg.procs : machine_of(&t);
	o.champion = champion;
	rc = mpp_choose(t.jobs, t.n, &o, &res, err, errlen);
	free(t.jobs);
	free(t.start);
	free(t.end);
	if (apply)
		pthread_mutex_lock(&h->refresh_lock);
	if (rc == MPP_OK) {
		/* The new predictor first, then the choice is shown: what
		 * /metrics names is what answers. */
		int m, corrector;
		mpp_choose_candidate(res.chosen, &m, &corrector);
		if (apply && m != h->method) {
			h->method = m;
			rc = rebuild(h, s, "auto chose another method", err,
				     errlen);
			if (rc) {
				pthread_mutex_unlock(&h->refresh_lock);
				return rc;
			}
		}
	}
	pthread_mutex_lock(&summary_lock);
	summary.procs = o.procs;
	summary.chosen_at = now_unix();
	summary.chooses++;
	if (rc == MPP_EINVAL) {
		/* Too few jobs: the champion stays. */
		snprintf(summary.why, sizeof(summary.why), "%s", err);
		rc = MPP_OK;
	} else if (rc == MPP_OK) {
		summary.why[0] = 0;
		summary.res = res;
		summary.have_result = 1;
		if (res.chosen != summary.chosen)
			summary.switches++;
		summary.chosen = res.chosen;
	}
	champion = summary.chosen;
	pthread_mutex_unlock(&summary_lock);
	if (rc == MPP_OK) {
		int corrector;
		mpp_choose_candidate(champion, method, &corrector);
		mpp_log(MPP_LOG_INFO,
			"history: auto: %s (%zu jobs, %d "
			"processors)",
			mpp_choose_name(champion), t.n, o.procs);
	}
	if (apply)
		pthread_mutex_unlock(&h->refresh_lock);
	return rc;
}

int mpp_histsvc_open_auto(const char *db_path, const mpp_histsvc_auto *a,
			  size_t max_keys, mpp_histsvc **out, char *err,
			  size_t errlen)
{
	mpp_store *s = NULL;
	int method = MPP_HIST_TSAFRIR, rc;

	pthread_mutex_lock(&summary_lock);
	memset(&summary, 0, sizeof(summary));
	summary.is_auto = 1;
	pthread_mutex_unlock(&summary_lock);
	rc = mpp_store_open(db_path, MPP_STORE_READONLY, &s, err, errlen);
	if (rc == MPP_OK) {
		mpp_histsvc tmp = {.cfg = *a};
		rc = choose_from(&tmp, s, 0, &method, err, errlen);
	}
	mpp_store_close(s);
	if (rc)
		return rc;
	rc =
	    mpp_histsvc_open(db_path, method, NULL, max_keys, out, err, errlen);
	if (rc == MPP_OK) {
		(*out)->is_auto = 1;
		(*out)->cfg = *a;
		if ((*out)->cfg.every == 0)
			(*out)->cfg.every = MPP_HISTSVC_EVERY;
		pthread_mutex_lock(&summary_lock);
		summary.is_auto = 1;
		pthread_mutex_unlock(&summary_lock);
	}
	return rc;
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
	if (h) {
		h->method = method;
		h->db_path = strdup(db_path);
	}
	if (!h || !h->db_path || !(h->hist = hist_new(h, method))) {
		if (h)
			free(h->db_path);
		free(h);
		snprintf(err, errlen, "out of memory");
		return MPP_ENOMEM;
	}
	pthread_mutex_init(&h->lock, NULL);
	pthread_mutex_init(&h->refresh_lock, NULL);
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
	pthread_mutex_lock(&summary_lock);
	summary.set = 1;
	summary.method = method;
	pthread_mutex_unlock(&summary_lock);
	publish(h);
	*out = h;
	return MPP_OK;
}

void mpp_histsvc_free(mpp_histsvc *h)
{
	if (!h)
		return;
	if (h->chooser_started)
		pthread_join(h->chooser, NULL); /* a choice under way ends */
	pthread_mutex_lock(&summary_lock);
	summary.set = 0;
	pthread_mutex_unlock(&summary_lock);
	pthread_mutex_destroy(&h->refresh_lock);
	free(h->db_path);
	mpp_hist_free(h->hist);
	pthread_mutex_destroy(&h->lock);
	free(h);
}

/* A new predictor from what the table holds now, swapped in for the old
 * one; on failure the old one keeps serving. */
static int rebuild(mpp_histsvc *h, mpp_store *s, const char *why, char *err,
		   size_t errlen)
{
	mpp_hist *fresh = hist_new(h, h->method), *old;
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
	pthread_mutex_lock(&summary_lock);
	summary.method = h->method;
	pthread_mutex_unlock(&summary_lock);
	mpp_log(MPP_LOG_INFO,
		"history: %s: rebuilt from the jobs table (%zu keys)", why,
		mpp_hist_nkeys(fresh));
	return MPP_OK;
}

/* The chooser thread: the choice on its own connection; a failure is
 * logged, the current predictor stays. */
static void *chooser_main(void *arg)
{
	mpp_histsvc *h = arg;
	mpp_store *s = NULL;
	char err[256];
	int method, rc;

	rc = mpp_store_open(h->db_path, MPP_STORE_READONLY, &s, err,
			    sizeof(err));
	if (rc == MPP_OK)
		rc = choose_from(h, s, 1, &method, err, sizeof(err));
	mpp_store_close(s);
	if (rc)
		mpp_log(MPP_LOG_WARN, "history: auto: %s", err);
	atomic_store(&h->choosing, 0);
	return NULL;
}

static int refresh_locked(mpp_histsvc *h, mpp_store *s, char *err,
			  size_t errlen);

int mpp_histsvc_refresh(mpp_histsvc *h, mpp_store *s, char *err, size_t errlen)
{
	int rc;

	pthread_mutex_lock(&h->refresh_lock);
	rc = refresh_locked(h, s, err, errlen);
	pthread_mutex_unlock(&h->refresh_lock);
	return rc;
}

static int refresh_locked(mpp_histsvc *h, mpp_store *s, char *err,
			  size_t errlen)
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
	publish(h);
	if (h->is_auto && h->since_choice >= h->cfg.every &&
	    !atomic_load(&h->choosing)) {
		/* Chosen again in a thread of its own: a few replays of the
		 * table, seconds for tens of thousands of jobs, during which
		 * predictions go on from the current predictor and this
		 * thread goes on with its audit batches and reloads. */
		h->since_choice = 0;
		if (h->chooser_started)
			pthread_join(h->chooser, NULL); /* it has ended */
		atomic_store(&h->choosing, 1);
		h->chooser_started =
		    pthread_create(&h->chooser, NULL, chooser_main, h) == 0;
		if (!h->chooser_started) {
			atomic_store(&h->choosing, 0);
			mpp_log(MPP_LOG_WARN, "history: auto: cannot start a "
					      "thread; the choice waits");
		}
	}
	if (nkeys <= h->max_keys)
		return MPP_OK;
	/* Too many keys: start again from what the table keeps. */
	snprintf(why, sizeof(why), "%zu keys, over %zu", nkeys, h->max_keys);
	return rebuild(h, s, why, err, errlen);
}

/* Candidate i's method (choose.h). */
static int cand_method(int i)
{
	int method, corrector;

	mpp_choose_candidate(i, &method, &corrector);
	return method;
}

/* The guard's state, for /metrics. */
static void publish(mpp_histsvc *h)
{
	unsigned long sw;
	int g;

	pthread_mutex_lock(&h->lock);
	g = mpp_hist_guard(h->hist, &sw);
	pthread_mutex_unlock(&h->lock);
	pthread_mutex_lock(&summary_lock);
	summary.guarded = g;
	summary.guard_switches = sw;
	pthread_mutex_unlock(&summary_lock);
}

void mpp_histsvc_metrics(mpp_histsvc_print print, void *ctx)
{
	pthread_mutex_lock(&summary_lock);
	if (!summary.set) {
		pthread_mutex_unlock(&summary_lock);
		return;
	}
	print(ctx, "# HELP mpipredictd_history_choice The history's predictor "
		   "(1), and with --history auto the corrector of the choice.\n"
		   "# TYPE mpipredictd_history_choice gauge\n");
	if (summary.is_auto) {
		print(ctx,
		      "mpipredictd_history_choice{pred=\"%s\","
		      "corrector=\"%s\"} 1\n",
		      mpp_hist_method_name(cand_method(summary.chosen)),
		      summary.chosen % 2 ? "request" : "steps");
		print(ctx,
		      "# HELP mpipredictd_history_score Each candidate's score "
		      "on the newest part of the jobs table at the last "
		      "choice (--history auto; metric avebsld_old: on the "
		      "older part).\n"
		      "# TYPE mpipredictd_history_score gauge\n");
		for (int i = 0; summary.have_result && i < MPP_CHOOSE_NCAND;
		     i++) {
			const mpp_choose_score *c = &summary.res.cand[i];
			const char *n = mpp_choose_name(i);
			print(ctx,
			      "mpipredictd_history_score{candidate=\"%s\","
			      "metric=\"avebsld_old\"} %.4f\n"
			      "mpipredictd_history_score{candidate=\"%s\","
			      "metric=\"avebsld\"} %.4f\n"
			      "mpipredictd_history_score{candidate=\"%s\","
			      "metric=\"mae_s\"} %.1f\n"
			      "mpipredictd_history_score{candidate=\"%s\","
			      "metric=\"under\"} %.4f\n",
			      n, c->avebsld_old, n, c->avebsld_new, n,
			      c->mae_new_s, n, c->under_new);
		}
		print(ctx,
		      "# HELP mpipredictd_history_chosen_at_seconds When the "
		      "history was last chosen (Unix time).\n"
		      "# TYPE mpipredictd_history_chosen_at_seconds gauge\n"
		      "mpipredictd_history_chosen_at_seconds %.0f\n"
		      "# HELP mpipredictd_history_choices_total Choices made "
		      "(at start and after every N jobs).\n"
		      "# TYPE mpipredictd_history_choices_total counter\n"
		      "mpipredictd_history_choices_total %lu\n"
		      "# HELP mpipredictd_history_switches_total Choices that "
		      "replaced the champion.\n"
		      "# TYPE mpipredictd_history_switches_total counter\n"
		      "mpipredictd_history_switches_total %lu\n",
		      summary.chosen_at, summary.chooses, summary.switches);
	} else {
		print(ctx, "mpipredictd_history_choice{pred=\"%s\"} 1\n",
		      mpp_hist_method_name(summary.method));
	}
	print(ctx,
	      "# HELP mpipredictd_history_guarded 1 while the learner's "
	      "recent error is above Tsafrir's and Tsafrir answers.\n"
	      "# TYPE mpipredictd_history_guarded gauge\n"
	      "mpipredictd_history_guarded %d\n"
	      "# HELP mpipredictd_history_guard_switches_total Times the "
	      "learner's guard engaged.\n"
	      "# TYPE mpipredictd_history_guard_switches_total counter\n"
	      "mpipredictd_history_guard_switches_total %lu\n",
	      summary.guarded, summary.guard_switches);
	pthread_mutex_unlock(&summary_lock);
}

void mpp_histsvc_page(FILE *f)
{
	pthread_mutex_lock(&summary_lock);
	if (!summary.set) {
		pthread_mutex_unlock(&summary_lock);
		return;
	}
	fprintf(f,
		"<h2>History predictor</h2><p class=\"note\">Jobs without a "
		"model are answered from their users' finished jobs by "
		"<b id=\"history-choice\">%s%s</b>",
		summary.is_auto ? mpp_choose_name(summary.chosen)
				: mpp_hist_method_name(summary.method),
		"");
	if (summary.is_auto) {
		time_t at = (time_t)summary.chosen_at;
		struct tm tm;
		char when[32] = "?";
		if (gmtime_r(&at, &tm))
			strftime(when, sizeof(when), "%Y-%m-%d %H:%M", &tm);
		fprintf(f,
			", chosen by itself (--history auto) at %s UTC on "
			"%d processors, %lu choices, %lu switches. Each "
			"candidate replayed the jobs table through EASY++; "
			"the challenger is the best on the older part, it "
			"replaces the champion when better by the margin on "
			"the newest part.",
			when, summary.procs, summary.chooses, summary.switches);
		if (summary.why[0]) {
			fputs(" Last choice: ", f);
			for (const char *c = summary.why; *c; c++)
				fputc(*c == '<' || *c == '&' ? ' ' : *c, f);
			fputc('.', f);
		}
	}
	fprintf(f, "%s</p>",
		summary.guarded ? " The learner is guarded: Tsafrir answers."
				: "");
	if (summary.is_auto && summary.have_result) {
		fprintf(f,
			"<table id=\"history\"><tr><th>candidate</th><th>"
			"AVEbsld, older %zu jobs</th><th>AVEbsld, newest %zu "
			"jobs</th><th>MAE (s)</th><th>under-predicted</th>"
			"</tr>",
			summary.res.nold, summary.res.nnew);
		for (int i = 0; i < MPP_CHOOSE_NCAND; i++) {
			const mpp_choose_score *c = &summary.res.cand[i];
			fprintf(f,
				"<tr><td>%s%s</td><td>%.2f</td><td>%.2f</td>"
				"<td>%.0f</td><td>%.1f %%</td></tr>",
				mpp_choose_name(i),
				i == summary.chosen ? " (chosen)" : "",
				c->avebsld_old, c->avebsld_new, c->mae_new_s,
				100 * c->under_new);
		}
		fputs("</table>", f);
	}
	pthread_mutex_unlock(&summary_lock);
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
