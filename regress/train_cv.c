/*
 * train_cv.c: cross-validation of the whole procedure (every fold runs
 * the selection path and the final fits), the choice of target and fit from
 * its errors, the split-conformal interval, and the held-out predictions of
 * the parameters path. Not for building the model (train.c).
 */
#include "regress/train_data.h"

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "regress/pool.h"

size_t *mpp_tr_pick_targets(size_t want, size_t tmax, size_t *n)
{
	static const size_t grid[] = {1, 2,  3,  4,  5,  6,  7, 8,
				      9, 10, 12, 15, 20, 25, 30};
	size_t *t = malloc(sizeof(grid));

	*n = 0;
	if (!t)
		return NULL;
	if (want) {
		t[(*n)++] = want;
		return t;
	}
	for (size_t i = 0; i < sizeof(grid) / sizeof(*grid); i++)
		if (grid[i] <= tmax)
			t[(*n)++] = grid[i];
	return t;
}

double mpp_tr_now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

__attribute__((format(printf, 2, 3))) static void
progress(const mpp_train_opts *o, const char *fmt, ...)
{
	char msg[128];
	va_list ap;

	if (!o->progress)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	o->progress(o->ctx, msg);
}

struct cv_job {
	const struct data *d;
	const int *fits;
	size_t nfits;
	struct cv *cv;
	const mpp_train_opts *o;
	double t0;
	struct path *all; /* the path on every run, job K */
	pthread_mutex_t lock;
	size_t done;
};

/* Job f < K: the selection path and final fits on every fold but f, and
 * predictions for f. Job K: the path on every run, for the model. */
static int cv_fold(void *ctx, size_t f)
{
	struct cv_job *j = ctx;
	const struct data *d = j->d;
	struct cv *cv = j->cv;
	size_t T = cv->nt, w = 1 + cv->tmax;
	struct path p;
	int rc;

	if (f == d->K)
		return mpp_tr_run_path(d, d->K, j->all);
	rc = mpp_tr_run_path(d, f, &p);
	if (rc)
		return rc;
	for (size_t ti = 0; ti < T; ti++) {
		size_t *F = cv->kept + (f * T + ti) * cv->tmax, t;
		rc = mpp_tr_path_keep(d, f, &p, cv->targets[ti], F, &t);
		if (rc)
			break;
		cv->nkept[f * T + ti] = t;
		for (size_t q = 0; q < j->nfits; q++) {
			int fit = j->fits[q];
			double *c = cv->coef + ((f * NFITS + fit) * T + ti) * w;
			if (mpp_tr_final_fit(d, f, F, t, fit, c))
				continue;
			for (size_t r = d->bstart[f]; r < d->bstart[f + 1]; r++)
				cv->pred[(fit * T + ti) * d->m + r] =
				    mpp_tr_predict_row(d, r, F, t, c);
		}
	}
	mpp_tr_path_free(&p);
	if (rc)
		return rc;
	pthread_mutex_lock(&j->lock);
	j->done++;
	if (mpp_tr_now_s() - j->t0 > 1)
		progress(j->o,
			 "cross-validation: %zu of %zu folds done (%.1f s)",
			 j->done, d->K, mpp_tr_now_s() - j->t0);
	pthread_mutex_unlock(&j->lock);
	return MPP_OK;
}

int mpp_tr_cross_validate(const struct data *d, const int *fits, size_t nfits,
			  struct cv *cv, const mpp_train_opts *o, double t0,
			  struct path *all)
{
	size_t K = d->K, T = cv->nt, w = 1 + cv->tmax;
	struct cv_job job = {
	    d, fits, nfits, cv, o, t0, all, PTHREAD_MUTEX_INITIALIZER, 0};

	cv->pred = malloc(NFITS * T * d->m * sizeof(double));
	cv->kept = calloc(K * T * cv->tmax, sizeof(size_t));
	cv->nkept = calloc(K * T, sizeof(size_t));
	cv->coef = calloc(K * NFITS * T * w, sizeof(double));
	if (!cv->pred || !cv->kept || !cv->nkept || !cv->coef)
		return MPP_ENOMEM;
	for (size_t i = 0; i < NFITS * T * d->m; i++)
		cv->pred[i] = NAN;
	return mpp_parallel_for(K + 1, cv_fold, &job);
}

/* Relative error of a prediction, percent (a failed fit counts 100 %). */
static double rel_err(double pred, double y)
{
	return isfinite(pred) ? 100 * fabs(pred - y) / y : 100;
}

/* MAPE (percent) of (fit, ti) on the held-out runs of fold f. */
static double fold_err(const struct data *d, const struct cv *cv, int fit,
		       size_t ti, size_t f)
{
	double e = 0;

	for (size_t r = d->bstart[f]; r < d->bstart[f + 1]; r++)
		e += rel_err(cv->pred[(fit * cv->nt + ti) * d->m + r], d->y[r]);
	return e / (double)(d->bstart[f + 1] - d->bstart[f]);
}

/* Mean and standard error over the folds of x[0..K). */
static void mean_se(const double *x, size_t K, double *mean, double *se)
{
	double s = 0, ss = 0;

	for (size_t f = 0; f < K; f++) {
		s += x[f];
		ss += x[f] * x[f];
	}
	*mean = s / (double)K;
	double var = ss / (double)K - *mean * *mean;
	*se = K > 1 && var > 0 ? sqrt(var / (double)(K - 1)) : 0;
}

/* Mean over folds and its standard error, of the MAPE of (fit, ti). */
void mpp_tr_fold_mape(const struct data *d, const struct cv *cv, int fit,
		      size_t ti, double *mean, double *se)
{
	double e[d->K];

	for (size_t f = 0; f < d->K; f++)
		e[f] = fold_err(d, cv, fit, ti, f);
	mean_se(e, d->K, mean, se);
}

/*
 * Ridge replaces NNLS only when it is better by more than one standard
 * error of the per-fold difference: on real codes ridge over correlated
 * counters extrapolates badly, so NNLS keeps the benefit of the doubt.
 */
int mpp_tr_prefer_ridge(const struct data *d, const struct cv *cv, size_t tn,
			size_t tr)
{
	double diff[d->K], mean, se;

	for (size_t f = 0; f < d->K; f++)
		diff[f] = fold_err(d, cv, FIT_NNLS, tn, f) -
			  fold_err(d, cv, FIT_RIDGE, tr, f);
	mean_se(diff, d->K, &mean, &se);
	return mean > se;
}

/* Pooled MAPE (percent) of (fit, ti) over every held-out run. */
double mpp_tr_pooled_mape(const struct data *d, const struct cv *cv, int fit,
			  size_t ti)
{
	double e = 0;

	for (size_t r = 0; r < d->m; r++)
		e += rel_err(cv->pred[(fit * cv->nt + ti) * d->m + r], d->y[r]);
	return e / (double)d->m;
}

/* The one-standard-error rule: the smallest target whose error is within
 * one standard error of the best. */
size_t mpp_tr_one_se(const struct data *d, const struct cv *cv, int fit)
{
	size_t best = 0;
	double bm = INFINITY, bse = 0, m, se;

	for (size_t ti = 0; ti < cv->nt; ti++) {
		mpp_tr_fold_mape(d, cv, fit, ti, &m, &se);
		if (m < bm) {
			bm = m;
			bse = se;
			best = ti;
		}
	}
	for (size_t ti = 0; ti < best; ti++) {
		mpp_tr_fold_mape(d, cv, fit, ti, &m, &se);
		if (m <= bm + bse)
			return ti;
	}
	return best;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/*
 * Split-conformal interval factors from held-out ratios y / prediction:
 * the ranks floor((n+1) a/2) and ceil((n+1)(1 - a/2)) of the sorted ratios,
 * a = 1 - coverage. Runs without a prediction (NAN) are left out when
 * skip_missing, else they count as the smallest prediction allowed.
 * Returns the MAPE over the runs used (*nused of them); *inside gets the
 * share of them inside their interval.
 */
double mpp_tr_conformal(const struct data *d, const double *pred,
			int skip_missing, double coverage, double *lo,
			double *hi, double *inside, size_t *nused)
{
	size_t n = 0, in = 0, nm = 0;
	double *ratio = malloc(d->m * sizeof(*ratio)), mape = 0,
	       ymin = INFINITY;

	*lo = *hi = 1;
	*inside = NAN;
	*nused = 0;
	if (!ratio)
		return NAN;
	for (size_t r = 0; r < d->m; r++)
		ymin = fmin(ymin, d->y[r]);
	for (size_t r = 0; r < d->m; r++) {
		if (skip_missing && !isfinite(pred[r]))
			continue;
		mape += rel_err(pred[r], d->y[r]);
		nm++;
		/* A prediction <= 0 s is an answer the model refuses
		 * (model.c), not a ratio: counted in the MAPE (>= 100 %), left
		 * out of the interval. One below a tenth of the shortest run
		 * counts as that: it bounds the ratios. */
		if (!(pred[r] > 0) && !skip_missing)
			continue;
		double p = isfinite(pred[r]) && pred[r] > ymin / 10 ? pred[r]
								    : ymin / 10;
		ratio[n++] = d->y[r] / p;
	}
	*nused = n;
	if (n == 0) {
		free(ratio);
		return NAN;
	}
	mape /= (double)nm;
	qsort(ratio, n, sizeof(*ratio), cmp_double);
	double a = 1 - coverage;
	long ilo = (long)floor((double)(n + 1) * a / 2),
	     ihi = (long)ceil((double)(n + 1) * (1 - a / 2));
	ilo = ilo < 1 ? 1 : ilo > (long)n ? (long)n : ilo;
	ihi = ihi < 1 ? 1 : ihi > (long)n ? (long)n : ihi;
	*lo = fmin(ratio[ilo - 1], 1);
	*hi = fmax(ratio[ihi - 1], 1);
	for (size_t r = 0; r < n; r++)
		in += ratio[r] >= *lo && ratio[r] <= *hi;
	*inside = (double)in / (double)n;
	free(ratio);
	return mape;
}

/*
 * Held-out predictions from job parameters, as the model makes them: in
 * each fold, the kept columns whose power laws (fitted on the fold's
 * training runs) predict well; when some do not, the final fit is redone
 * on the others. A fold where none do gives no prediction (NAN).
 */
int mpp_tr_params_path(const struct data *d, const struct cv *cv, int fit,
		       size_t ti, double *pred)
{
	size_t T = cv->nt, w = 1 + cv->tmax, np = d->nvars + 2;
	double *pc = malloc(cv->tmax * np * sizeof(*pc)),
	       *c2 = malloc(w * sizeof(*c2));
	size_t *P = malloc(cv->tmax * sizeof(*P)),
	       *Pi = malloc(cv->tmax * sizeof(*Pi));
	int rc = MPP_OK;

	if (!pc || !c2 || !P || !Pi) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < d->m; r++)
		pred[r] = NAN;
	for (size_t f = 0; f < d->K; f++) {
		const size_t *F = cv->kept + (f * T + ti) * cv->tmax;
		size_t t = cv->nkept[f * T + ti], np_ok = 0;
		const double *c = cv->coef + ((f * NFITS + fit) * T + ti) * w;
		for (size_t i = 0; i < t; i++)
			if (mpp_tr_predictable(d, f, F[i], pc + i * np)) {
				P[np_ok] = F[i];
				Pi[np_ok++] = i;
			}
		if (np_ok < t) {
			if (np_ok == 0 ||
			    mpp_tr_final_fit(d, f, P, np_ok, fit, c2))
				continue;
			c = c2;
		}
		for (size_t r = d->bstart[f]; r < d->bstart[f + 1]; r++) {
			pred[r] = c[0];
			for (size_t i = 0; i < np_ok; i++)
				pred[r] +=
				    c[1 + i] *
				    mpp_tr_power_eval(d, r, pc + Pi[i] * np);
		}
	}
out:
	free(pc);
	free(c2);
	free(P);
	free(Pi);
	return rc;
}
