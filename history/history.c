/*
 * history.c: predictions from the same user's finished jobs (history.h).
 *
 * The state is a hash table of small fixed-size records, one per key:
 * the user ("u"), the user and app ("a"), the user and request ("r"), the
 * user, request and size ("s"). Each record keeps the last NLAST run times
 * of the jobs under that key and, for user records, the log-errors of the
 * last NLAST predictions made for that user (the interval).
 *
 * Not for scheduling: the replay's scheduler is history/easy.c; not for
 * storage: the daemon's rows are in the `jobs` table (schema/).
 */
#include "history/history.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "history/learn.h"
#include "history/nag.h"

enum { NLAST = 16, KEYMAX = 512 };
/* The learners' guard: their errors and Tsafrir's over the last GUARD_K
 * jobs, compared once GUARD_MIN are known. */
enum { GUARD_K = 64, GUARD_MIN = 16 };

typedef struct rec {
	char *key; /* NULL: empty slot */
	uint64_t hash;
	double last[NLAST]; /* ring: last[(pos - 1) % NLAST] is the newest */
	size_t n, pos;
	double lerr[NLAST]; /* ring of log(actual / predicted) */
	size_t nerr, epos;
	/* User records, for the learned method: totals over every finished
	 * job, the end of the last one, a ring of log(actual / request). */
	double nrun, sum_run, sum_procs, last_end;
	double lrat[NLAST];
	size_t nrat, rpos;
	/* The online method: the user's last three finished jobs, newest
	 * first: their submission times and run times. */
	double sub3[3], run3[3];
	size_t n3;
} rec;

struct mpp_hist {
	int method;
	rec *slots;
	size_t cap, n;
	mpp_learn *learn; /* MPP_HIST_LEARNED */
	mpp_nag *nag;     /* MPP_HIST_ONLINE */
	/* The guard of the learners (LEARNED, ONLINE): a learner can go
	 * wrong on a site it does not suit (the online one's MAE was ten
	 * times Tsafrir's on one trace). Their absolute errors and
	 * Tsafrir's over the last GUARD_K finished jobs; while the learner's
	 * sum is above Tsafrir's, Tsafrir answers (guarded), until the
	 * learner, which goes on learning and being scored, is back below. */
	double gerr_l[GUARD_K], gerr_t[GUARD_K];
	size_t gn, gpos;
	int guard_off, guarded;
	unsigned long gswitches;
};

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* The learned method's fit (learn.h): the last 5,000 finished jobs,
 * refitted every 100 once 200 are held; under-predictions weigh
 * h->under times over-predictions (mpp_hist_set_under). */
enum { LEARN_WINDOW = 5000, LEARN_EVERY = 100, LEARN_MIN = 200 };

static mpp_learn *learn_new(double under)
{
	return mpp_learn_new(MPP_HIST_NFEAT, LEARN_WINDOW, LEARN_EVERY,
			     LEARN_MIN, under);
}

/* The online method's model (nag.h): the study's 19 features
 * (online_features() below), the products of each pair of x[1..16] and
 * the squares of x[1..18], as the study's quadratic predictor. It answers
 * once it has learnt from ONLINE_MIN finished jobs; before that, ours (the
 * study's answered 1 s from its empty model: a daemon must not tell a
 * site's first users that). */
enum {
	ONLINE_BASE = 19,
	ONLINE_NQ = ONLINE_BASE + 16 * 15 / 2 + 18,
	ONLINE_MIN = 200
};

static void quadratic(const double *x, double *q)
{
	size_t k = ONLINE_BASE;

	memcpy(q, x, ONLINE_BASE * sizeof(*q));
	for (size_t a = 1; a <= 16; a++)
		for (size_t b = a + 1; b <= 16; b++)
			q[k++] = x[a] * x[b];
	for (size_t a = 1; a <= 18; a++)
		q[k++] = x[a] * x[a];
}

mpp_hist *mpp_hist_new(int method)
{
	mpp_hist *h;

	if (method != MPP_HIST_TSAFRIR && method != MPP_HIST_OURS &&
	    method != MPP_HIST_LEARNED && method != MPP_HIST_ONLINE)
		return NULL;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->method = method;
	h->cap = 64;
	h->slots = calloc(h->cap, sizeof(*h->slots));
	if (method == MPP_HIST_LEARNED)
		h->learn = learn_new(1);
	if (method == MPP_HIST_ONLINE)
		h->nag = mpp_nag_new(ONLINE_NQ, &mpp_nag_study);
	if (!h->slots || (method == MPP_HIST_LEARNED && !h->learn) ||
	    (method == MPP_HIST_ONLINE && !h->nag)) {
		mpp_hist_free(h);
		return NULL;
	}
	return h;
}

void mpp_hist_free(mpp_hist *h)
{
	if (!h)
		return;
	for (size_t i = 0; h->slots && i < h->cap; i++)
		free(h->slots[i].key);
	free(h->slots);
	mpp_learn_free(h->learn);
	mpp_nag_free(h->nag);
	free(h);
}

int mpp_hist_method_parse(const char *name, int *method)
{
	if (name && strcmp(name, "tsafrir") == 0)
		*method = MPP_HIST_TSAFRIR;
	else if (name && strcmp(name, "ours") == 0)
		*method = MPP_HIST_OURS;
	else if (name && strcmp(name, "learned") == 0)
		*method = MPP_HIST_LEARNED;
	else if (name && strcmp(name, "online") == 0)
		*method = MPP_HIST_ONLINE;
	else
		return -1;
	return 0;
}

const char *mpp_hist_method_name(int method)
{
	return method == MPP_HIST_TSAFRIR   ? "tsafrir"
	       : method == MPP_HIST_LEARNED ? "learned"
	       : method == MPP_HIST_ONLINE  ? "online"
					    : "ours";
}

size_t mpp_hist_nkeys(const mpp_hist *h)
{
	return h->n;
}

int mpp_hist_method(const mpp_hist *h)
{
	return h->method;
}

int mpp_hist_set_under(mpp_hist *h, double under)
{
	mpp_learn *l;

	if (h->method != MPP_HIST_LEARNED || !(under > 0) || !isfinite(under) ||
	    mpp_learn_nobs(h->learn))
		return MPP_EINVAL;
	l = learn_new(under);
	if (!l)
		return MPP_ENOMEM;
	mpp_learn_free(h->learn);
	h->learn = l;
	return MPP_OK;
}

int mpp_hist_set_loss(mpp_hist *h, const mpp_nag_loss *loss)
{
	mpp_nag *m;

	if (h->method != MPP_HIST_ONLINE || mpp_nag_nobs(h->nag))
		return MPP_EINVAL;
	m = mpp_nag_new(ONLINE_NQ, loss);
	if (!m)
		return MPP_EINVAL;
	mpp_nag_free(h->nag);
	h->nag = m;
	return MPP_OK;
}

static rec *find(const mpp_hist *h, const char *key, uint64_t hash)
{
	for (size_t i = hash & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
		rec *r = &h->slots[i];
		if (!r->key)
			return NULL;
		if (r->hash == hash && strcmp(r->key, key) == 0)
			return r;
	}
}

static int grow(mpp_hist *h)
{
	size_t cap = h->cap * 2;
	rec *slots = calloc(cap, sizeof(*slots));

	if (!slots)
		return MPP_ENOMEM;
	for (size_t i = 0; i < h->cap; i++) {
		rec *r = &h->slots[i];
		if (!r->key)
			continue;
		size_t j = r->hash & (cap - 1);
		while (slots[j].key)
			j = (j + 1) & (cap - 1);
		slots[j] = *r;
	}
	free(h->slots);
	h->slots = slots;
	h->cap = cap;
	return MPP_OK;
}

static rec *get_or_add(mpp_hist *h, const char *key)
{
	uint64_t hash = fnv1a(key);
	rec *r = find(h, key, hash);
	size_t i;

	if (r)
		return r;
	if ((h->n + 1) * 2 > h->cap && grow(h))
		return NULL;
	for (i = hash & (h->cap - 1); h->slots[i].key;
	     i = (i + 1) & (h->cap - 1))
		;
	r = &h->slots[i];
	memset(r, 0, sizeof(*r));
	r->key = strdup(key);
	if (!r->key)
		return NULL;
	r->hash = hash;
	h->n++;
	return r;
}

/* The keys of job j; a key part that is unknown gives an empty key. */
typedef struct keys {
	char u[KEYMAX], a[KEYMAX], r[KEYMAX], s[KEYMAX];
} keys;

static void make_keys(const mpp_hist_job *j, keys *k)
{
	int app = j->app && *j->app, req = j->req_s > 0, procs = j->procs > 0;

	snprintf(k->u, sizeof(k->u), "u\x1f%s", j->user);
	k->a[0] = k->r[0] = k->s[0] = 0;
	if (app)
		snprintf(k->a, sizeof(k->a), "a\x1f%s\x1f%s", j->user, j->app);
	if (req)
		snprintf(k->r, sizeof(k->r), "r\x1f%s\x1f%s\x1f%.0f", j->user,
			 app ? j->app : "", j->req_s);
	if (req && procs)
		snprintf(k->s, sizeof(k->s), "s\x1f%s\x1f%s\x1f%.0f\x1f%.0f",
			 j->user, app ? j->app : "", j->req_s, j->procs);
}

static const rec *lookup(const mpp_hist *h, const char *key)
{
	return *key ? find(h, key, fnv1a(key)) : NULL;
}

static double newest(const rec *r, size_t back)
{
	return r->last[(r->pos + NLAST - 1 - back) % NLAST];
}

/* Tsafrir's rule on one record: the mean of its last two run times,
 * truncated to seconds as the study's simulator did; NAN with fewer. */
static double last_two(const rec *r)
{
	if (!r || r->n < 2)
		return NAN;
	return floor((newest(r, 0) + newest(r, 1)) / 2);
}

/*
 * The base of ours: the same user's jobs that look most like this one. A
 * job with the same request and size as recent ones of the same user (and
 * app) is usually a rerun of them: the mean of the last two such jobs (the
 * last one alone when there is one). Else the same request at any size,
 * else the same app (when known), else Tsafrir's user-wide rule.
 */
static double ours_base(const mpp_hist *h, const keys *k)
{
	const rec *s = lookup(h, k->s), *r = lookup(h, k->r),
		  *a = lookup(h, k->a), *u = lookup(h, k->u);

	if (s && s->n >= 2)
		return last_two(s);
	if (s && s->n == 1)
		return newest(s, 0);
	if (r && r->n >= 2)
		return last_two(r);
	if (r && r->n == 1)
		return newest(r, 0);
	if (a && a->n >= 2)
		return last_two(a);
	return last_two(u);
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return (a > b) - (a < b);
}

/* The q-quantile (nearest rank) of the user's log-errors, log(actual /
 * base prediction), over the last NLAST. */
static double err_quantile(const rec *u, double q)
{
	double v[NLAST];
	size_t n = u->nerr < NLAST ? u->nerr : NLAST;
	size_t i;

	memcpy(v, u->lerr, sizeof(v));
	qsort(v, n, sizeof(*v), cmp_double);
	i = (size_t)ceil(q * (double)n);
	return v[i ? i - 1 : 0];
}

/* The method's base prediction, before any correction by the user's
 * errors; NAN when there is too little history. */
static double base(const mpp_hist *h, const keys *k)
{
	const rec *a;

	if (h->method != MPP_HIST_TSAFRIR)
		return ours_base(h, k);
	/* Tsafrir's rule per user, and per user and app when the app is
	 * known (from the script): the app's last two when there are two. */
	a = lookup(h, k->a);
	if (a && a->n >= 2)
		return last_two(a);
	return last_two(lookup(h, k->u));
}

/* A time as a feature: seconds, never negative. */
static double tf(double t)
{
	return t > 0 ? t : 0;
}

/* Features 10-18 of both learners: the user's running jobs (processors,
 * elapsed sum, count, longest), the time of day and of week (cos, sin),
 * the job's size. */
static void running_and_clock(const mpp_hist_job *j, double *x)
{
	double t = j->submit_s > 0 ? j->submit_s : 0;
	double day = 2 * M_PI * fmod(t, 86400) / 86400;
	double week = 2 * M_PI * fmod(t, 604800) / 604800;

	x[10] = j->running_procs > 0 ? j->running_procs : 0;
	x[11] = tf(j->running_elapsed_s);
	x[12] = j->running > 0 ? j->running : 0;
	x[13] = tf(j->running_max_s);
	x[14] = cos(day);
	x[15] = sin(day);
	x[16] = cos(week);
	x[17] = sin(week);
	x[18] = j->procs > 0 ? j->procs : 0;
}

/*
 * The learned method's features of job j, from the state before it ends
 * (after Gaussier et al.'s list, plus what this product knows): 1; the
 * user's last three run times (each capped at the request; the request
 * when missing); the request; the means of the last two and three; the
 * mean of all the user's runs; the time since the user's last job ended
 * (at most a week);
 * the size over the user's mean size; the user's running jobs' processors,
 * elapsed sum, count and longest; the time of day and of week (cos, sin);
 * the size; ours' prediction (same app, request, size first); the request
 * times the user's median actual/requested ratio.
 */
static void features(const mpp_hist *h, const mpp_hist_job *j, const keys *k,
		     double *x)
{
	const rec *u = lookup(h, k->u);
	double req = j->req_s > 0 ? j->req_s : 0, l[3], b;
	size_t nl = u ? (u->n < 3 ? u->n : 3) : 0;

	for (size_t i = 0; i < 3; i++) {
		l[i] = i < nl ? newest(u, i) : (req > 0 ? req : NAN);
		if (req > 0 && l[i] > req)
			l[i] = req;
	}
	if (nl == 0 && !(req > 0))
		l[0] = l[1] = l[2] = 0;
	for (size_t i = 0; i < 3; i++)
		if (!isfinite(l[i]))
			l[i] = nl ? newest(u, 0) : 0;
	x[0] = 1;
	x[1] = tf(l[0]);
	x[2] = tf(l[1]);
	x[3] = tf(l[2]);
	x[4] = tf(req);
	x[5] = tf((l[0] + l[1]) / 2);
	x[6] = tf((l[0] + l[1] + l[2]) / 3);
	x[7] = tf(u && u->nrun > 0 ? u->sum_run / u->nrun : req);
	/* At most a week: a user back after months must not be an
	 * extrapolation of the linear model far past what it was fitted on
	 * (the daemon's clock runs on; a trace's gaps are bounded). */
	x[8] = tf(u && u->last_end > 0 && j->submit_s > 0
		      ? fmin(j->submit_s - u->last_end, 7 * 86400.0)
		      : 0);
	x[9] = u && u->nrun > 0 && u->sum_procs > 0 && j->procs > 0
		   ? j->procs / (u->sum_procs / u->nrun)
		   : 1;
	running_and_clock(j, x);
	b = ours_base(h, k);
	if (!isfinite(b))
		b = req;
	if (req > 0 && b > req)
		b = req;
	x[19] = tf(b);
	x[20] = tf(req);
	if (u && u->nrat > 0 && req > 0) {
		double v[NLAST];
		size_t n = u->nrat < NLAST ? u->nrat : NLAST;
		memcpy(v, u->lrat, sizeof(v));
		qsort(v, n, sizeof(*v), cmp_double);
		x[20] = tf(req * exp(v[(n - 1) / 2]));
	}
	x[21] = u ? u->nrun : 0;
}

/*
 * The online method's features, the SC'15 study's 19 as its predictor
 * computes them (predictor_sgdlinear): 1; for each of the user's last
 * three finished jobs, the time from its submission to now if it ended
 * (its run time otherwise), capped at the request (the request when
 * there is no such job); the request; the means of the first two and
 * three (0.33 x the sum, as the study); the mean of all the user's runs
 * (0 before any); the time since the user's last job ended (0 before
 * any); the size over the user's mean size (0 before any); the user's
 * running jobs' processors, elapsed sum, count and longest; the time of
 * day and of week (cos, sin); the size. The "since its submission"
 * features measure how long ago the user submitted, wait included: that
 * is what the study's predictor learnt from, and what reached 45.80.
 */
static void online_features(const mpp_hist *h, const mpp_hist_job *j,
			    const keys *k, double *x)
{
	const rec *u = lookup(h, k->u);
	double req = j->req_s > 0 ? j->req_s : 0, now = j->submit_s;
	size_t n3 = u ? u->n3 : 0;

	running_and_clock(j, x);
	x[0] = 1;
	for (size_t i = 0; i < 3; i++) {
		double v = req;
		if (i < n3)
			v = u->sub3[i] + u->run3[i] > now ? u->run3[i]
							  : now - u->sub3[i];
		x[1 + i] = tf(fmin(req, v));
	}
	x[4] = req;
	x[5] = n3 >= 2 ? 0.5 * (x[1] + x[2]) : n3 == 1 ? x[1] : req;
	x[6] = n3 >= 3 ? 0.33 * (x[1] + x[2] + x[3]) : x[5];
	x[7] = u && u->nrun > 0 ? u->sum_run / u->nrun : 0;
	x[8] = u && u->last_end > 0 ? tf(now - u->last_end) : 0;
	x[9] = u && u->nrun > 0 && u->sum_procs > 0
		   ? j->procs / (u->sum_procs / u->nrun)
		   : 0;
	for (size_t i = ONLINE_BASE; i < MPP_HIST_NFEAT; i++)
		x[i] = 0;
}

/* The learned prediction from features x: NAN before the first fit. */
static double learned(const mpp_hist *h, const double *x)
{
	double f;

	if (mpp_learn_predict(h->learn, x, &f))
		return NAN;
	return f;
}

/* Tsafrir's answer from a learner's records (they keep the user's and
 * the user and app's last runs as Tsafrir's do): NAN with too little. */
static double tsafrir_of(const mpp_hist *h, const keys *k, double req)
{
	const rec *a = lookup(h, k->a);
	double p = a && a->n >= 2 ? last_two(a) : last_two(lookup(h, k->u));

	if (!isfinite(p))
		return NAN;
	if (req > 0 && p > req)
		p = req;
	return p < 1 ? 1 : p;
}

int mpp_hist_set_guard(mpp_hist *h, int on)
{
	if (h->gn || h->n) /* already observing */
		return MPP_EINVAL;
	h->guard_off = !on;
	return MPP_OK;
}

int mpp_hist_guard(const mpp_hist *h, unsigned long *switches)
{
	if (switches)
		*switches = h->gswitches;
	return h->guarded;
}

/* A learner's and Tsafrir's answers for a job that ended after runtime_s:
 * their errors in the window, and whether the learner is guarded now. */
static void guard_learn(mpp_hist *h, double learner_s, double tsafrir_s,
			double runtime_s)
{
	double sl = 0, st = 0;
	size_t n;
	int now;

	if (h->guard_off)
		return;
	h->gerr_l[h->gpos] = fabs(learner_s - runtime_s);
	h->gerr_t[h->gpos] = fabs(tsafrir_s - runtime_s);
	h->gpos = (h->gpos + 1) % GUARD_K;
	h->gn++;
	n = h->gn < GUARD_K ? h->gn : GUARD_K;
	if (n < GUARD_MIN)
		return;
	for (size_t i = 0; i < n; i++) {
		sl += h->gerr_l[i];
		st += h->gerr_t[i];
	}
	now = sl > st;
	if (now && !h->guarded)
		h->gswitches++;
	h->guarded = now;
}

static int check_job(const mpp_hist_job *j)
{
	if (!j || !j->user || !*j->user || strlen(j->user) > KEYMAX / 4 ||
	    (j->app && strlen(j->app) > KEYMAX / 4))
		return MPP_EINVAL;
	return MPP_OK;
}

int mpp_hist_predict(const mpp_hist *h, const mpp_hist_job *j,
		     mpp_hist_pred *out)
{
	double req = j && j->req_s > 0 ? j->req_s : 0, b, p;
	const rec *u;
	keys k;

	memset(out, 0, sizeof(*out));
	if (check_job(j))
		return MPP_EINVAL;
	make_keys(j, &k);
	b = base(h, &k);
	u = lookup(h, k.u);
	if (h->method == MPP_HIST_LEARNED) {
		features(h, j, &k, out->feat);
		out->nfeat = MPP_HIST_NFEAT;
	}
	if (h->method == MPP_HIST_ONLINE) {
		online_features(h, j, &k, out->feat);
		out->nfeat = MPP_HIST_NFEAT;
	}
	out->known = isfinite(b);
	if (!out->known) {
		out->runtime_s = req;
		out->upper_s = req;
		return MPP_OK;
	}
	/* Ours removes the user's own bias: the base times the median of
	 * the user's last errors. Tsafrir's rule is kept as published. */
	p = b;
	if (h->method != MPP_HIST_TSAFRIR && u && u->nerr >= 4)
		p = floor(b * exp(err_quantile(u, 0.5)));
	if (h->method == MPP_HIST_LEARNED) {
		double f = learned(h, out->feat);
		if (isfinite(f))
			p = floor(f);
	}
	if (h->method == MPP_HIST_ONLINE &&
	    mpp_nag_nobs(h->nag) >= ONLINE_MIN) {
		/* The study's answer: |x.b|, at least 1 s. */
		double q[ONLINE_NQ];
		quadratic(out->feat, q);
		p = floor(fabs(mpp_nag_predict(h->nag, q)));
	}
	if (req > 0 && p > req)
		p = req;
	if (p < 1)
		p = 1;
	if (h->method == MPP_HIST_LEARNED || h->method == MPP_HIST_ONLINE) {
		double t = tsafrir_of(h, &k, req);
		out->learner_s = p;
		out->tsafrir_s = isfinite(t) ? t : p;
		if (h->guarded && !h->guard_off && isfinite(t)) {
			p = t;
			out->guarded = 1;
		}
	}
	out->runtime_s = p;
	out->lower_s = 0;
	out->upper_s = req > 0 ? req : p;
	if (u && u->nerr >= 4) {
		double lo = b * exp(err_quantile(u, 0.05));
		double hi = b * exp(err_quantile(u, 0.95));
		out->lower_s = lo < p ? lo : p;
		out->upper_s = hi > p ? hi : p;
		if (req > 0 && out->upper_s > req)
			out->upper_s = req;
		if (out->lower_s > out->upper_s)
			out->lower_s = out->upper_s;
		out->nerrors = u->nerr < NLAST ? u->nerr : NLAST;
	}
	return MPP_OK;
}

static void push(rec *r, double v)
{
	r->last[r->pos] = v;
	r->pos = (r->pos + 1) % NLAST;
	if (r->n < NLAST)
		r->n++;
}

int mpp_hist_observe(mpp_hist *h, const mpp_hist_job *j, double runtime_s)
{
	return mpp_hist_observe_at(h, j, runtime_s, NULL);
}

/* The learned method's weight of a finished job in the fit: the study's
 * 11 + log(1 / (run x procs)), at least 1. A squared loss in seconds is
 * ruled by the longest jobs; this gives the short and narrow ones, whose
 * bounded slowdown a wrong prediction hurts most, up to 11 times their
 * say. */
static double weight(const mpp_hist_job *j, double runtime_s)
{
	double m = j->procs > 0 ? j->procs : 1;
	double w = 11 - log(runtime_s * m);

	return w > 1 ? w : 1;
}

int mpp_hist_observe_at(mpp_hist *h, const mpp_hist_job *j, double runtime_s,
			const mpp_hist_pred *at_submit)
{
	const char *ks[4];
	double b;
	keys k;
	rec *u;

	if (check_job(j) || !(runtime_s > 0) || !isfinite(runtime_s))
		return MPP_EINVAL;
	make_keys(j, &k);
	if ((h->method == MPP_HIST_LEARNED || h->method == MPP_HIST_ONLINE) &&
	    !j->alias) {
		/* The guard scores both answers made at submission (or, with
		 * none kept, the answers the state gives now). */
		mpp_hist_pred now;
		const mpp_hist_pred *p = at_submit;
		if (!p || p->nfeat != MPP_HIST_NFEAT) {
			if (mpp_hist_predict(h, j, &now) == MPP_OK)
				p = &now;
			else
				p = NULL;
		}
		if (p && p->known && p->learner_s > 0)
			guard_learn(h, p->learner_s, p->tsafrir_s, runtime_s);
	}
	if (h->method == MPP_HIST_LEARNED && !j->alias) {
		double x[MPP_HIST_NFEAT];
		int rc;
		if (at_submit && at_submit->nfeat == MPP_HIST_NFEAT)
			memcpy(x, at_submit->feat, sizeof(x));
		else
			features(h, j, &k, x);
		rc =
		    mpp_learn_add(h->learn, x, runtime_s, weight(j, runtime_s));
		if (rc == MPP_ENOMEM)
			return rc;
	}
	if (h->method == MPP_HIST_ONLINE && !j->alias) {
		double x[MPP_HIST_NFEAT], q[ONLINE_NQ];
		if (at_submit && at_submit->nfeat == MPP_HIST_NFEAT)
			memcpy(x, at_submit->feat, sizeof(x));
		else
			online_features(h, j, &k, x);
		quadratic(x, q);
		(void)mpp_nag_fit(
		    h->nag, q, runtime_s,
		    mpp_nag_weight_of(mpp_nag_loss_of(h->nag)->weight,
				      runtime_s, j->procs));
	}
	b = base(h, &k);
	ks[0] = k.u;
	ks[1] = k.a;
	ks[2] = k.r;
	ks[3] = k.s;
	for (int i = 0; i < (h->method == MPP_HIST_TSAFRIR ? 2 : 4); i++) {
		rec *r;
		if (!*ks[i])
			continue;
		r = get_or_add(h, ks[i]);
		if (!r)
			return MPP_ENOMEM;
		push(r, runtime_s);
	}
	u = get_or_add(h, k.u);
	if (!u)
		return MPP_ENOMEM;
	if (isfinite(b) && b > 0) {
		u->lerr[u->epos] = log(runtime_s / b);
		u->epos = (u->epos + 1) % NLAST;
		u->nerr++;
	}
	memmove(u->sub3 + 1, u->sub3, 2 * sizeof(*u->sub3));
	memmove(u->run3 + 1, u->run3, 2 * sizeof(*u->run3));
	u->sub3[0] = j->submit_s;
	u->run3[0] = runtime_s;
	if (u->n3 < 3)
		u->n3++;
	u->nrun++;
	u->sum_run += runtime_s;
	u->sum_procs += j->procs > 0 ? j->procs : 0;
	if (j->end_s > u->last_end)
		u->last_end = j->end_s;
	if (j->req_s > 0) {
		u->lrat[u->rpos] = log(runtime_s / j->req_s);
		u->rpos = (u->rpos + 1) % NLAST;
		u->nrat++;
	}
	return MPP_OK;
}

double mpp_hist_correct(double initial_s, double req_s, int ncorrections)
{
	static const double step[] = {60,    300,   900,   1800,   3600,  7200,
				      18000, 36000, 72000, 180000, 360000};
	int n = (int)(sizeof(step) / sizeof(step[0]));
	double p;

	if (ncorrections < 1)
		ncorrections = 1;
	p = initial_s + step[ncorrections > n ? n - 1 : ncorrections - 1];
	if (req_s > 0 && p > req_s)
		p = req_s;
	return p;
}
