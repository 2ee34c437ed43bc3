/*
 * train.c: from the run rows of one app to a model (train.h).
 *
 * Steps: load the rows into a dense matrix (runs in a shuffled order cut
 * into K contiguous folds); for each fold, run the selection path on the
 * other folds (fold constant and duplicate columns, then the iterative top-p
 * loop) and the final fits for every candidate target, and predict the
 * held-out fold; choose the target (one-standard-error rule) and the final
 * fit from those errors; redo the path on all runs for the model; derive the
 * interval factors and the parameter models. The solvers are in fit.c.
 */
#include "regress/train.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "regress/fit.h"

enum { FIT_NNLS, FIT_RIDGE, FIT_OLS, NFITS };
static const char *const fit_names[NFITS] = {"nnls", "ridge", "ols"};

/* Near-duplicate columns: |correlation| at least this. */
#define DUP_CORR (1 - 1e-8)
/* A parameter model with a larger CV error (percent) is not predictable. */
#define PM_MAX_MAPE 20.0
/* The largest target cross-validation tries (a model people can read). */
#define MAX_TARGET 30
/* Gram matrices per fold are kept when features are at most this many. */
#define GRAM_MAX 2500

struct data {
	size_t m, k;       /* runs (in fold order), usable feature columns */
	size_t *col;       /* column -> feature index in the run set       */
	const double **rv; /* per position: the run's values (NAN: absent)   */
	double *y;         /* run times                                    */
	size_t *row;       /* position -> index in the run set             */
	gsl_matrix *Zt;    /* k x m, each column standardised over all runs */
	size_t K, *bstart; /* fold f holds positions [bstart[f], bstart[f+1]) */
	gsl_matrix **G;    /* per fold block: Zt_b Zt_b^T, or NULL          */
	double **bs, **bzy; /* per block: sums of w z and of w z y           */
	int seed_method;
	double top_p;
	mpp_params *params; /* per position                                  */
	size_t nvars;       /* parameters usable in power laws               */
	char **vars;
};

static int in_train(const struct data *d, size_t f, size_t r)
{
	return f >= d->K || r < d->bstart[f] || r >= d->bstart[f + 1];
}

static size_t ntrain(const struct data *d, size_t f)
{
	return f >= d->K ? d->m : d->m - (d->bstart[f + 1] - d->bstart[f]);
}

static double xval(const struct data *d, size_t r, size_t j)
{
	/* Absent in a build that has the column: zero (usable_features()). */
	double v = d->rv[r][d->col[j]];
	return isnan(v) ? 0 : v;
}

/* A deterministic pseudo-random sequence (splitmix64). */
static uint64_t mix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/*
 * Run fn(ctx, i) for i in [0, n) on up to one thread per online CPU; the
 * calls must touch disjoint data. Returns the first non-zero result.
 */
struct pool {
	pthread_mutex_t lock;
	size_t next, n;
	int rc;
	int (*fn)(void *ctx, size_t i);
	void *ctx;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->rc ? p->n : p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		int rc = p->fn(p->ctx, i);
		if (rc) {
			pthread_mutex_lock(&p->lock);
			if (!p->rc)
				p->rc = rc;
			pthread_mutex_unlock(&p->lock);
		}
	}
}

static int parallel_for(size_t n, int (*fn)(void *ctx, size_t i), void *ctx)
{
	struct pool p = {PTHREAD_MUTEX_INITIALIZER, 0, n, 0, fn, ctx};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = ncpu < 1 ? 1 : ncpu > 8 ? 8 : (size_t)ncpu, started = 0;
	pthread_t tid[8];

	if (nt > n)
		nt = n;
	for (size_t t = 1; t < nt; t++)
		if (pthread_create(&tid[started], NULL, pool_worker, &p) == 0)
			started++;
	pool_worker(&p);
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	return p.rc;
}

/* ---- loading ---------------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Parameters that every run shows with a positive value and that vary. */
static int choose_vars(struct data *d)
{
	const mpp_params *p0 = &d->params[0];

	d->vars = calloc(p0->n + 1, sizeof(*d->vars));
	if (!d->vars)
		return MPP_ENOMEM;
	for (size_t i = 0; i < p0->n; i++) {
		const char *name = p0->names[i];
		double lo = INFINITY, hi = -INFINITY;
		int ok = 1;
		for (size_t r = 0; ok && r < d->m; r++) {
			const double *v = mpp_params_get(&d->params[r], name);
			if (!v || !(*v > 0))
				ok = 0;
			else {
				lo = fmin(lo, *v);
				hi = fmax(hi, *v);
			}
		}
		if (ok && hi > lo) {
			d->vars[d->nvars] = strdup(name);
			if (!d->vars[d->nvars])
				return MPP_ENOMEM;
			d->nvars++;
		}
	}
	qsort(d->vars, d->nvars, sizeof(*d->vars), cmp_str);
	return MPP_OK;
}

static void data_free(struct data *d)
{
	free(d->col);
	free(d->rv);
	free(d->y);
	free(d->row);
	gsl_matrix_free(d->Zt);
	for (size_t b = 0; d->G && b < d->K; b++)
		gsl_matrix_free(d->G[b]);
	for (size_t b = 0; d->bs && b < d->K; b++) {
		free(d->bs[b]);
		free(d->bzy[b]);
	}
	free(d->G);
	free(d->bs);
	free(d->bzy);
	free(d->bstart);
	for (size_t r = 0; d->params && r < d->m; r++)
		mpp_params_free(&d->params[r]);
	free(d->params);
	for (size_t i = 0; i < d->nvars; i++)
		free(d->vars[i]);
	free(d->vars);
}

/*
 * A feature is usable when every build among the rows has it in at least one
 * row; within a build that has the column, an empty cell counts zero.
 * Returns the usable count in *nusable and marks them in use[].
 */
static int usable_features(const mpp_runs *rs, const size_t *rows, size_t nrows,
			   char *use, size_t *nusable)
{
	size_t nb = 0, *build = malloc(nrows * sizeof(*build));
	const char **names = malloc(nrows * sizeof(*names));
	char *has = NULL;

	if (!build || !names) {
		free(build);
		free(names);
		return MPP_ENOMEM;
	}
	for (size_t i = 0; i < nrows; i++) {
		const char *b = rs->runs[rows[i]].build_id;
		size_t j;
		for (j = 0; j < nb && strcmp(names[j], b); j++)
			;
		if (j == nb)
			names[nb++] = b;
		build[i] = j;
	}
	has = malloc(nb);
	*nusable = 0;
	for (size_t f = 0; has && f < rs->nfeatures; f++) {
		memset(has, 0, nb);
		for (size_t i = 0; i < nrows; i++)
			if (!isnan(rs->runs[rows[i]].values[f]))
				has[build[i]] = 1;
		/* time:* columns (time inside and outside MPI) measure the
		 * run's outcome, not its work: never a predictor. */
		use[f] = (char)(memchr(has, 0, nb) == NULL &&
				strncmp(rs->features[f], "time:", 5) != 0);
		*nusable += use[f] ? 1 : 0;
	}
	free(build);
	free(names);
	if (!has)
		return MPP_ENOMEM;
	free(has);
	return MPP_OK;
}

static int load(struct data *d, const mpp_runs *rs, const size_t *rows,
		size_t nrows, const mpp_train_opts *o, size_t *nabsent,
		char *err, size_t errlen)
{
	char *use = calloc(rs->nfeatures + 1, 1);
	uint64_t state = o->seed;
	size_t nuse;
	int rc;

	if (!use)
		return MPP_ENOMEM;
	rc = usable_features(rs, rows, nrows, use, &nuse);
	if (rc) {
		free(use);
		return rc;
	}
	*nabsent = rs->nfeatures - nuse;
	if (nuse == 0) {
		free(use);
		snprintf(err, errlen, "app %s: no feature column is usable",
			 rs->runs[rows[0]].app);
		return MPP_EINVAL;
	}
	d->m = nrows;
	d->k = nuse;
	d->col = malloc(nuse * sizeof(*d->col));
	d->rv = malloc(nrows * sizeof(*d->rv));
	d->y = malloc(nrows * sizeof(*d->y));
	d->row = malloc(nrows * sizeof(*d->row));
	d->params = calloc(nrows, sizeof(*d->params));
	d->Zt = gsl_matrix_alloc(nuse, nrows);
	if (!d->col || !d->rv || !d->y || !d->row || !d->params || !d->Zt) {
		free(use);
		return MPP_ENOMEM;
	}
	for (size_t f = 0, j = 0; f < rs->nfeatures; f++)
		if (use[f])
			d->col[j++] = f;
	free(use);
	/* Shuffle the runs (Fisher-Yates) so that folds are contiguous. */
	for (size_t i = 0; i < nrows; i++)
		d->row[i] = rows[i];
	for (size_t i = nrows - 1; i > 0; i--) {
		size_t j = (size_t)(mix(&state) % (i + 1)), t = d->row[i];
		d->row[i] = d->row[j];
		d->row[j] = t;
	}
	for (size_t r = 0; r < nrows; r++) {
		const mpp_run *run = &rs->runs[d->row[r]];
		d->y[r] = run->runtime_s;
		d->rv[r] = run->values;
		if (mpp_params_from_string(run->args, run->nprocs, run->nnodes,
					   &d->params[r]))
			return MPP_ENOMEM;
	}
	for (size_t j = 0; j < nuse; j++) {
		double mean = 0, ss = 0;
		for (size_t r = 0; r < nrows; r++)
			mean += xval(d, r, j);
		mean /= (double)nrows;
		for (size_t r = 0; r < nrows; r++)
			ss += (xval(d, r, j) - mean) * (xval(d, r, j) - mean);
		double sd = sqrt(ss / (double)nrows);
		double *zr = gsl_matrix_ptr(d->Zt, j, 0);
		for (size_t r = 0; r < nrows; r++)
			zr[r] = sd > 0 ? (xval(d, r, j) - mean) / sd : 0;
	}
	d->K = o->folds < nrows ? o->folds : nrows;
	d->bstart = malloc((d->K + 1) * sizeof(*d->bstart));
	if (!d->bstart)
		return MPP_ENOMEM;
	for (size_t f = 0; f <= d->K; f++)
		d->bstart[f] = f * nrows / d->K;
	return choose_vars(d);
}

/*
 * The ranking fits weigh run r by w = 1/y^2 (relative error, as the final
 * fit): a run of 0.5 s counts as much as one of 500 s. Per fold block, when
 * the features fit in memory, keep sum w z z^T, sum w z and sum w z y of the
 * standardised columns, so that a fold's moments are sums of blocks.
 */
static int block_gram(void *ctx, size_t b)
{
	struct data *d = ctx;
	size_t r0 = d->bstart[b], nb = d->bstart[b + 1] - r0;
	gsl_matrix *zw = gsl_matrix_alloc(d->k, nb);

	d->G[b] = gsl_matrix_calloc(d->k, d->k);
	d->bs[b] = calloc(d->k, sizeof(double));
	d->bzy[b] = calloc(d->k, sizeof(double));
	if (!zw || !d->G[b] || !d->bs[b] || !d->bzy[b]) {
		gsl_matrix_free(zw);
		return MPP_ENOMEM;
	}
	for (size_t i = 0; i < d->k; i++) {
		const double *z = gsl_matrix_const_ptr(d->Zt, i, 0);
		double *o = gsl_matrix_ptr(zw, i, 0);
		for (size_t r = r0; r < r0 + nb; r++) {
			o[r - r0] = z[r] / d->y[r];
			d->bs[b][i] += z[r] / (d->y[r] * d->y[r]);
			d->bzy[b][i] += z[r] / d->y[r];
		}
	}
	/* In slices of 128 runs, so that the rows a slice multiplies stay
	 * in cache: a third less time than one call over the block. */
	for (size_t c0 = 0; c0 < nb; c0 += 128) {
		gsl_matrix_view sl = gsl_matrix_submatrix(
		    zw, 0, c0, d->k, nb - c0 < 128 ? nb - c0 : 128);
		gsl_blas_dsyrk(CblasLower, CblasNoTrans, 1, &sl.matrix, 1,
			       d->G[b]);
	}
	gsl_matrix_free(zw);
	for (size_t i = 0; i < d->k; i++)
		for (size_t j = i + 1; j < d->k; j++)
			gsl_matrix_set(d->G[b], i, j,
				       gsl_matrix_get(d->G[b], j, i));
	return MPP_OK;
}

static int block_grams(struct data *d)
{
	if (d->k > d->m || d->k > GRAM_MAX)
		return MPP_OK;
	d->G = calloc(d->K, sizeof(*d->G));
	d->bs = calloc(d->K, sizeof(*d->bs));
	d->bzy = calloc(d->K, sizeof(*d->bzy));
	if (!d->G || !d->bs || !d->bzy)
		return MPP_ENOMEM;
	return parallel_for(d->K, block_gram, d);
}

/* ---- folding constant and duplicate columns ---------------------------- */

struct keyed {
	double key;
	size_t j;
};

static int cmp_keyed(const void *a, const void *b)
{
	double x = ((const struct keyed *)a)->key,
	       y = ((const struct keyed *)b)->key;
	return (x > y) - (x < y);
}

/*
 * On the training runs of fold f: rep[j] = j for a column kept, the kept
 * column it duplicates (|correlation| >= DUP_CORR), or (size_t)-1 when it is
 * constant. Near-duplicates have nearly equal projections on a random sign
 * vector, so only columns close in that projection are compared.
 */
static int fold_columns(const struct data *d, size_t f, size_t *rep)
{
	size_t k = d->k, m = d->m;
	double nt = (double)ntrain(d, f);
	double *mu = malloc(k * sizeof(*mu)), *nrm = malloc(k * sizeof(*nrm));
	double *sign = malloc(m * sizeof(*sign));
	struct keyed *key = malloc(k * sizeof(*key));
	size_t nkey = 0;
	uint64_t state = 12345;

	if (!mu || !nrm || !sign || !key) {
		free(mu);
		free(nrm);
		free(sign);
		free(key);
		return MPP_ENOMEM;
	}
	for (size_t r = 0; r < m; r++)
		sign[r] = (mix(&state) & 1) ? 1 : -1;
	for (size_t j = 0; j < k; j++) {
		const double *z = gsl_matrix_const_ptr(d->Zt, j, 0);
		double s = 0, ss = 0, p = 0;
		for (size_t r = 0; r < m; r++)
			if (in_train(d, f, r))
				s += z[r];
		mu[j] = s / nt;
		for (size_t r = 0; r < m; r++) {
			if (!in_train(d, f, r))
				continue;
			double c = z[r] - mu[j];
			ss += c * c;
			p += sign[r] * c;
		}
		nrm[j] = sqrt(ss);
		if (!(nrm[j] > 1e-9 * sqrt(nt))) {
			rep[j] = (size_t)-1;
			continue;
		}
		rep[j] = j;
		key[nkey].key = fabs(p / nrm[j]);
		key[nkey++].j = j;
	}
	qsort(key, nkey, sizeof(*key), cmp_keyed);
	double window = 10 * sqrt(2 * (1 - DUP_CORR));
	for (size_t a = 0; a < nkey; a++) {
		size_t i = key[a].j;
		if (rep[i] != i)
			continue;
		const double *zi = gsl_matrix_const_ptr(d->Zt, i, 0);
		for (size_t b = a + 1;
		     b < nkey && key[b].key - key[a].key <= window; b++) {
			size_t l = key[b].j;
			if (rep[l] != l)
				continue;
			const double *zl = gsl_matrix_const_ptr(d->Zt, l, 0);
			double dot = 0;
			for (size_t r = 0; r < m; r++)
				if (in_train(d, f, r))
					dot +=
					    (zi[r] - mu[i]) * (zl[r] - mu[l]);
			if (fabs(dot) >= DUP_CORR * nrm[i] * nrm[l])
				rep[l] = i;
		}
	}
	/* The representative of a group is its first column. */
	for (size_t j = 0; j < k; j++) {
		if (rep[j] == (size_t)-1 || rep[j] == j)
			continue;
		size_t r0 = rep[j];
		if (j < r0) {
			for (size_t l = 0; l < k; l++)
				if (rep[l] == r0)
					rep[l] = j;
		}
	}
	free(mu);
	free(nrm);
	free(sign);
	free(key);
	return MPP_OK;
}

/* ---- ranking fits ------------------------------------------------------ */

/* Weighted (w = 1/y^2) sums over the training runs of fold f: total
 * weight, weighted mean run time, weighted centred sum of squares. */
static void wstats(const struct data *d, size_t f, double *W, double *ybar,
		   double *yy)
{
	double wy = 0, n = 0;

	*W = 0;
	for (size_t r = 0; r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		*W += 1 / (d->y[r] * d->y[r]);
		wy += 1 / d->y[r];
		n++;
	}
	*ybar = wy / *W;
	*yy = n - wy * wy / *W;
	if (*yy < 0)
		*yy = 0;
}

/*
 * Rows (one per column of S) of the weighted, centred training values:
 * (z - weighted mean) / y, and yc = (y - weighted mean) / y. With unit
 * set, each row is scaled to unit norm.
 */
static void weighted_rows(const struct data *d, size_t f, const size_t *S,
			  size_t s, gsl_matrix *Z, gsl_vector *yc, int unit)
{
	double W, ybar, yy;

	wstats(d, f, &W, &ybar, &yy);
	for (size_t r = 0, c = 0; r < d->m; r++)
		if (in_train(d, f, r))
			gsl_vector_set(yc, c++, (d->y[r] - ybar) / d->y[r]);
	for (size_t i = 0; i < s; i++) {
		const double *z = gsl_matrix_const_ptr(d->Zt, S[i], 0);
		double *o = gsl_matrix_ptr(Z, i, 0), mu = 0, ss = 0;
		size_t c = 0;
		for (size_t r = 0; r < d->m; r++)
			if (in_train(d, f, r))
				mu += z[r] / (d->y[r] * d->y[r]);
		mu /= W;
		for (size_t r = 0; r < d->m; r++) {
			if (!in_train(d, f, r))
				continue;
			o[c] = (z[r] - mu) / d->y[r];
			ss += o[c] * o[c];
			c++;
		}
		for (c = 0; unit && ss > 0 && c < Z->size2; c++)
			o[c] /= sqrt(ss);
	}
}

/* Weighted centred moments of the columns S over the training runs of
 * fold f: C = sum w (z - mu)(z - mu)^T, g = sum w (z - mu)(y - ybar). */
static int moments(const struct data *d, size_t f, const size_t *S, size_t s,
		   gsl_matrix *C, gsl_vector *g, double *yy)
{
	double W, ybar;

	wstats(d, f, &W, &ybar, yy);
	if (d->G) {
		double *sz = calloc(s, sizeof(*sz));
		if (!sz)
			return MPP_ENOMEM;
		gsl_matrix_set_zero(C);
		gsl_vector_set_zero(g);
		for (size_t b = 0; b < d->K; b++) {
			if (b == f)
				continue;
			for (size_t i = 0; i < s; i++) {
				const double *gr =
				    gsl_matrix_const_ptr(d->G[b], S[i], 0);
				double *cr = gsl_matrix_ptr(C, i, 0);
				for (size_t j = 0; j < s; j++)
					cr[j] += gr[S[j]];
				sz[i] += d->bs[b][S[i]];
				*gsl_vector_ptr(g, i) += d->bzy[b][S[i]];
			}
		}
		for (size_t i = 0; i < s; i++) {
			double *cr = gsl_matrix_ptr(C, i, 0);
			for (size_t j = 0; j < s; j++)
				cr[j] -= sz[i] * sz[j] / W;
			*gsl_vector_ptr(g, i) -= sz[i] * ybar;
		}
		free(sz);
		return MPP_OK;
	}
	size_t nt = ntrain(d, f);
	gsl_matrix *Zs = gsl_matrix_alloc(s, nt);
	gsl_vector *yc = gsl_vector_alloc(nt);
	if (!Zs || !yc) {
		gsl_matrix_free(Zs);
		gsl_vector_free(yc);
		return MPP_ENOMEM;
	}
	weighted_rows(d, f, S, s, Zs, yc, 0);
	gsl_blas_dgemv(CblasNoTrans, 1, Zs, yc, 0, g);
	gsl_blas_dsyrk(CblasLower, CblasNoTrans, 1, Zs, 0, C);
	for (size_t i = 0; i < s; i++)
		for (size_t j = i + 1; j < s; j++)
			gsl_matrix_set(C, i, j, gsl_matrix_get(C, j, i));
	gsl_matrix_free(Zs);
	gsl_vector_free(yc);
	return MPP_OK;
}

/* Standardised coefficients of the columns S (default method). */
static int rank_default(const struct data *d, size_t f, const size_t *S,
			size_t s, gsl_vector *beta)
{
	size_t nt = ntrain(d, f);
	int rc;

	if (s <= nt) {
		gsl_matrix *C = gsl_matrix_alloc(s, s);
		gsl_vector *g = gsl_vector_alloc(s);
		double yy;
		rc = C && g ? moments(d, f, S, s, C, g, &yy) : MPP_ENOMEM;
		if (rc == MPP_OK)
			rc = mpp_fit_rank_primal(C, g, yy, nt, beta);
		gsl_matrix_free(C);
		gsl_vector_free(g);
		return rc;
	}
	gsl_matrix *Zc = gsl_matrix_alloc(s, nt);
	gsl_vector *yc = gsl_vector_alloc(nt);
	if (!Zc || !yc) {
		gsl_matrix_free(Zc);
		gsl_vector_free(yc);
		return MPP_ENOMEM;
	}
	weighted_rows(d, f, S, s, Zc, yc, 1);
	rc = mpp_fit_rank_dual(Zc, yc, beta);
	gsl_matrix_free(Zc);
	gsl_vector_free(yc);
	return rc;
}

/* Raw least-squares coefficients of the columns S (the seed's step 1):
 * minimum-norm, with the intercept taken out by centring. */
static int ols_raw(const struct data *d, size_t f, const size_t *S, size_t s,
		   gsl_vector *a, double *intercept)
{
	size_t nt = ntrain(d, f);
	gsl_matrix *A = gsl_matrix_alloc(nt, s);
	gsl_vector *b = gsl_vector_alloc(nt);
	double *mu = calloc(s, sizeof(*mu)), ybar = 0;
	int rc;

	if (!A || !b || !mu) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		ybar += d->y[r] / (double)nt;
		for (size_t i = 0; i < s; i++)
			mu[i] += xval(d, r, S[i]) / (double)nt;
	}
	for (size_t r = 0, c = 0; r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		for (size_t i = 0; i < s; i++)
			gsl_matrix_set(A, c, i, xval(d, r, S[i]) - mu[i]);
		gsl_vector_set(b, c++, d->y[r] - ybar);
	}
	rc = mpp_fit_minnorm(A, b, a);
	if (rc == MPP_OK && intercept) {
		*intercept = ybar;
		for (size_t i = 0; i < s; i++)
			*intercept -= gsl_vector_get(a, i) * mu[i];
	}
out:
	gsl_matrix_free(A);
	gsl_vector_free(b);
	free(mu);
	return rc;
}

/* ---- the selection path -------------------------------------------------- */

/*
 * The rounds of the top-p loop on one fold: round i ranked size[i] columns,
 * best first, in order + off[i]. Sizes fall by top_p each round down to 1.
 * The loop with target t keeps the first t of the smallest round with more
 * than t columns (all columns when none has more).
 */
struct path {
	size_t nrounds;
	size_t *size, *off, *order;
	size_t *rep; /* fold_columns() result on this fold (default method) */
};

static void path_free(struct path *p)
{
	free(p->size);
	free(p->off);
	free(p->order);
	free(p->rep);
	memset(p, 0, sizeof(*p));
}

static int cmp_abs_desc(const void *a, const void *b)
{
	double x = fabs(((const struct keyed *)a)->key),
	       y = fabs(((const struct keyed *)b)->key);
	if (x != y)
		return (x < y) - (x > y);
	size_t i = ((const struct keyed *)a)->j,
	       j = ((const struct keyed *)b)->j;
	return (i > j) - (i < j);
}

/* The size of the round after one of s columns. */
static size_t next_size(const struct data *d, size_t s)
{
	size_t next = (size_t)ceil((double)s * d->top_p);
	return next >= s ? s - 1 : next < 1 ? 1 : next;
}

static int run_path(const struct data *d, size_t f, struct path *p)
{
	size_t k = d->k, s = 0, cap = 0, rounds = 0, used = 0;
	size_t *S = malloc(k * sizeof(*S));
	struct keyed *kb = malloc(k * sizeof(*kb));
	int rc = MPP_OK;

	memset(p, 0, sizeof(*p));
	p->rep = malloc(k * sizeof(*p->rep));
	if (!S || !kb || !p->rep) {
		rc = MPP_ENOMEM;
		goto out;
	}
	if (d->seed_method) {
		for (size_t j = 0; j < k; j++)
			p->rep[j] = j;
	} else {
		rc = fold_columns(d, f, p->rep);
		if (rc)
			goto out;
	}
	for (size_t j = 0; j < k; j++)
		if (p->rep[j] == j)
			S[s++] = j;
	for (size_t n = s; n > 1; n = next_size(d, n)) {
		cap += n;
		rounds++;
	}
	p->size = malloc((rounds + 1) * sizeof(size_t));
	p->off = malloc((rounds + 1) * sizeof(size_t));
	p->order = malloc((cap + 1) * sizeof(size_t));
	if (!p->size || !p->off || !p->order) {
		rc = MPP_ENOMEM;
		goto out;
	}
	while (s > 1) {
		gsl_vector *beta = gsl_vector_alloc(s);
		if (!beta) {
			rc = MPP_ENOMEM;
			goto out;
		}
		rc = d->seed_method ? ols_raw(d, f, S, s, beta, NULL)
				    : rank_default(d, f, S, s, beta);
		for (size_t i = 0; rc == MPP_OK && i < s; i++) {
			kb[i].key = gsl_vector_get(beta, i);
			kb[i].j = S[i];
		}
		gsl_vector_free(beta);
		if (rc)
			goto out;
		qsort(kb, s, sizeof(*kb), cmp_abs_desc);
		p->size[p->nrounds] = s;
		p->off[p->nrounds] = used;
		for (size_t i = 0; i < s; i++)
			p->order[used + i] = S[i] = kb[i].j;
		used += s;
		p->nrounds++;
		s = next_size(d, s);
	}
	if (p->nrounds == 0 && s == 1) {
		/* One column only: nothing to rank. */
		p->size[0] = 1;
		p->off[0] = 0;
		p->order[0] = S[0];
		p->nrounds = 1;
	}
out:
	free(S);
	free(kb);
	if (rc)
		path_free(p);
	return rc;
}

/*
 * Swaps that refine the loop's choice of t columns: |coefficient| ranks
 * collinear columns unreliably, and where counters scale almost alike the
 * loop can drop the one that matters early (a jacobi3d stencil kept its
 * halo-face counter, n^2 per iteration, over its cell counter, n^3, and
 * erred by 23 % on held-out sizes). Starting from the loop's choice K, one
 * kept column is swapped for one of a wider round R (s columns, K among
 * them) while that raises the weighted sum of squares explained on the
 * training runs of fold f, at most SWAP_PASSES passes over the kept
 * columns. The target stays what cross-validation picks, and every fold
 * refines its own choice, so the cross-validated error still measures the
 * whole procedure. K gets the t columns, in R's ranking order.
 */
#define SWAP_PASSES 4
/* The candidates: the smallest round with at least this many columns and
 * at least twice the target. */
#define SWAP_POOL 8

static int refine_keep(const struct data *d, size_t f, const size_t *R,
		       size_t s, size_t t, size_t *K)
{
	gsl_matrix *C = gsl_matrix_alloc(s, s), *L = gsl_matrix_alloc(t, t);
	gsl_vector *g = gsl_vector_alloc(s), *gt = gsl_vector_alloc(t),
		   *x = gsl_vector_alloc(t);
	size_t *pos = malloc(t * sizeof(*pos)), n = 0;
	char *in = calloc(s, 1);
	double yy, cur = -INFINITY;
	int rc = C && L && g && gt && x && pos && in ? MPP_OK : MPP_ENOMEM;

	if (rc == MPP_OK)
		rc = moments(d, f, R, s, C, g, &yy);
	if (rc == MPP_OK)
		rc = mpp_fit_unit_scale(C, g);
	for (size_t j = 0; rc == MPP_OK && j < s; j++)
		for (size_t i = 0; i < t; i++)
			if (R[j] == K[i]) {
				in[j] = 1;
				pos[n++] = j;
			}
	if (rc == MPP_OK && n != t)
		rc = MPP_EINVAL; /* rounds are nested: cannot happen */
	if (rc == MPP_OK)
		cur = mpp_fit_explained(C, g, pos, L, gt, x);
	for (int pass = 0, moved = 1;
	     rc == MPP_OK && moved && pass < SWAP_PASSES; pass++) {
		moved = 0;
		for (size_t i = 0; i < t; i++) {
			size_t was = pos[i], best = was;
			for (size_t j = 0; j < s; j++) {
				if (in[j])
					continue;
				pos[i] = j;
				double e =
				    mpp_fit_explained(C, g, pos, L, gt, x);
				/* Clearly better only: ties keep the rank. */
				if (e > cur + 1e-9 * (yy > 0 ? yy : 1)) {
					cur = e;
					best = j;
				}
			}
			pos[i] = best;
			in[was] = 0;
			in[best] = 1;
			moved |= best != was;
		}
	}
	for (size_t j = 0, k = 0; rc == MPP_OK && j < s; j++)
		if (in[j])
			K[k++] = R[j];
	gsl_matrix_free(C);
	gsl_matrix_free(L);
	gsl_vector_free(g);
	gsl_vector_free(gt);
	gsl_vector_free(x);
	free(pos);
	free(in);
	return rc;
}

/*
 * The columns the loop keeps for target t on fold f, into K (room for t);
 * *n gets how many (<= t). The loop keeps the first t of its smallest
 * round with more than t columns; the default method then refines that
 * choice (refine_keep), the seed method keeps it as it is.
 */
static int path_keep(const struct data *d, size_t f, const struct path *p,
		     size_t t, size_t *K, size_t *n)
{
	*n = 0;
	if (p->nrounds == 0)
		return MPP_OK;
	size_t best = 0, pool = 0, want = 2 * t > SWAP_POOL ? 2 * t : SWAP_POOL;
	for (size_t i = 0; i < p->nrounds; i++) {
		if (p->size[i] > t)
			best = i;
		if (p->size[i] >= want)
			pool = i;
	}
	size_t s = p->size[best];
	*n = s < t ? s : t;
	memcpy(K, p->order + p->off[best], *n * sizeof(*K));
	if (d->seed_method || s <= t)
		return MPP_OK;
	return refine_keep(d, f, p->order + p->off[pool], p->size[pool], t, K);
}

/* ---- final fits ---------------------------------------------------------- */

/*
 * Fit runtime = c[0] + sum c[1+i] x[F[i]] on the training runs of fold f.
 * nnls and ridge minimise relative error (rows weighted by 1/y); ols is the
 * seed's plain least squares.
 */
static int final_fit(const struct data *d, size_t f, const size_t *F, size_t t,
		     int fit, double *c)
{
	size_t nt = ntrain(d, f);
	int rc;

	if (t == 0) {
		/* No column left (all constant): the intercept alone, the
		 * (weighted) mean run time. */
		double W, yy;
		wstats(d, f, &W, &c[0], &yy);
		if (fit == FIT_OLS) {
			c[0] = 0;
			for (size_t r = 0; r < d->m; r++)
				if (in_train(d, f, r))
					c[0] += d->y[r] / (double)nt;
		}
		return MPP_OK;
	}
	if (fit == FIT_OLS) {
		gsl_vector *a = gsl_vector_alloc(t);
		if (!a)
			return MPP_ENOMEM;
		rc = ols_raw(d, f, F, t, a, &c[0]);
		for (size_t i = 0; rc == MPP_OK && i < t; i++)
			c[1 + i] = gsl_vector_get(a, i);
		gsl_vector_free(a);
		return rc;
	}
	if (nt < t + 2)
		return MPP_EINVAL;
	/* Weighted means and spreads (weights 1/y^2) for scaling. */
	double *mu = calloc(t, sizeof(*mu)), *sd = calloc(t, sizeof(*sd));
	double W = 0, ybar = 0;
	gsl_matrix *A = gsl_matrix_alloc(nt, fit == FIT_NNLS ? t + 1 : t);
	gsl_vector *b = gsl_vector_alloc(nt);
	gsl_vector *x = gsl_vector_alloc(fit == FIT_NNLS ? t + 1 : t);
	if (!mu || !sd || !A || !b || !x) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		double w = 1 / (d->y[r] * d->y[r]);
		W += w;
		ybar += w * d->y[r];
		for (size_t i = 0; i < t; i++)
			mu[i] += w * xval(d, r, F[i]);
	}
	ybar /= W;
	for (size_t i = 0; i < t; i++)
		mu[i] /= W;
	for (size_t r = 0; r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		double w = 1 / (d->y[r] * d->y[r]);
		for (size_t i = 0; i < t; i++) {
			double e = xval(d, r, F[i]) - mu[i];
			sd[i] += w * e * e / W;
		}
	}
	for (size_t i = 0; i < t; i++) {
		sd[i] = sqrt(sd[i]);
		if (!(sd[i] > 0))
			sd[i] = fabs(mu[i]) > 0 ? fabs(mu[i]) : 1;
	}
	for (size_t r = 0, row = 0; r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		double iy = 1 / d->y[r];
		if (fit == FIT_NNLS) {
			/* Non-negativity survives positive scaling, not
			 * centring: scale only. */
			gsl_matrix_set(A, row, 0, iy);
			for (size_t i = 0; i < t; i++)
				gsl_matrix_set(A, row, 1 + i,
					       xval(d, r, F[i]) / sd[i] * iy);
			gsl_vector_set(b, row, 1);
		} else {
			for (size_t i = 0; i < t; i++)
				gsl_matrix_set(A, row, i,
					       (xval(d, r, F[i]) - mu[i]) /
						   sd[i] * iy);
			gsl_vector_set(b, row, (d->y[r] - ybar) * iy);
		}
		row++;
	}
	if (fit == FIT_NNLS) {
		rc = mpp_fit_nnls(A, b, 1, x);
		if (rc == MPP_OK) {
			c[0] = gsl_vector_get(x, 0);
			for (size_t i = 0; i < t; i++)
				c[1 + i] = gsl_vector_get(x, 1 + i) / sd[i];
		}
	} else {
		double lambda;
		rc = mpp_fit_ridge_gcv(A, b, x, &lambda);
		if (rc == MPP_OK) {
			c[0] = ybar;
			for (size_t i = 0; i < t; i++) {
				c[1 + i] = gsl_vector_get(x, i) / sd[i];
				c[0] -= c[1 + i] * mu[i];
			}
		}
	}
out:
	free(mu);
	free(sd);
	gsl_matrix_free(A);
	gsl_vector_free(b);
	gsl_vector_free(x);
	return rc;
}

static double predict_row(const struct data *d, size_t r, const size_t *F,
			  size_t t, const double *c)
{
	double y = c[0];

	for (size_t i = 0; i < t; i++)
		y += c[1 + i] * xval(d, r, F[i]);
	return y;
}

/* ---- parameter models ---------------------------------------------------- */

static int serial(const struct data *d, size_t r)
{
	const double *np = mpp_params_get(&d->params[r], "nprocs");
	return np && *np == 1;
}

/* Run r is outside folds f and g (either may be K: no fold). */
static int in_train2(const struct data *d, size_t f, size_t g, size_t r)
{
	return in_train(d, f, r) && in_train(d, g, r);
}

/*
 * log x[j] = c0 + sum e_v log(param v), fitted on the runs outside folds f
 * and g (K: no fold; truncated SVD); coef gets c0, the exponents, and last
 * a flag: 1 when x is zero exactly on the one-rank runs (communication
 * counters), which are then left out of the fit. MPP_EINVAL when x is not
 * positive on the runs to fit, or there are too few of them.
 */
static int power_fit(const struct data *d, size_t f, size_t g, size_t j,
		     double *coef)
{
	size_t nt = 0, p = d->nvars + 1, nzero = 0;
	gsl_matrix *A;
	gsl_vector *b, *x;
	int rc;

	for (size_t r = 0; r < d->m; r++) {
		if (!in_train2(d, f, g, r))
			continue;
		double v = xval(d, r, j);
		if (v > 0)
			nt++;
		else if (v == 0 && serial(d, r))
			nzero++;
		else
			return MPP_EINVAL;
	}
	/* Zeros count only when every one-rank run is zero. */
	for (size_t r = 0; nzero && r < d->m; r++)
		if (in_train2(d, f, g, r) && serial(d, r) && xval(d, r, j) != 0)
			return MPP_EINVAL;
	if (nt < p + 1)
		return MPP_EINVAL;
	A = gsl_matrix_alloc(nt, p);
	b = gsl_vector_alloc(nt);
	x = gsl_vector_alloc(p);
	if (!A || !b || !x) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t r = 0, row = 0; r < d->m; r++) {
		if (!in_train2(d, f, g, r) || !(xval(d, r, j) > 0))
			continue;
		gsl_matrix_set(A, row, 0, 1);
		for (size_t v = 0; v < d->nvars; v++)
			gsl_matrix_set(
			    A, row, 1 + v,
			    log(*mpp_params_get(&d->params[r], d->vars[v])));
		gsl_vector_set(b, row++, log(xval(d, r, j)));
	}
	rc = mpp_fit_tsvd(A, b, x);
	for (size_t v = 0; rc == MPP_OK && v < p; v++)
		coef[v] = gsl_vector_get(x, v);
	coef[p] = nzero > 0;
out:
	gsl_matrix_free(A);
	gsl_vector_free(b);
	gsl_vector_free(x);
	return rc;
}

static double power_eval(const struct data *d, size_t r, const double *coef)
{
	double l = coef[0];

	if (coef[d->nvars + 1] != 0 && serial(d, r))
		return 0;
	for (size_t v = 0; v < d->nvars; v++)
		l += coef[1 + v] *
		     log(*mpp_params_get(&d->params[r], d->vars[v]));
	return exp(l);
}

/* Cross-validated MAPE (percent) of column j's power law over the runs
 * outside fold f (K: all runs) where it is not zero, NAN if it cannot be
 * fitted. With f < K it is nested inside the training runs of fold f. */
static double power_cv(const struct data *d, size_t f, size_t j)
{
	double *coef = malloc((d->nvars + 2) * sizeof(*coef)), sum = 0;
	size_t n = 0;

	if (!coef)
		return NAN;
	for (size_t g = 0; g < d->K; g++) {
		if (g == f)
			continue;
		if (power_fit(d, f, g, j, coef)) {
			free(coef);
			return NAN;
		}
		for (size_t r = d->bstart[g]; r < d->bstart[g + 1]; r++) {
			double x = xval(d, r, j), e = power_eval(d, r, coef);
			if (x > 0) {
				sum += fabs(e - x) / x;
				n++;
			} else if (e != 0) {
				free(coef);
				return NAN;
			}
		}
	}
	free(coef);
	return n ? 100 * sum / (double)n : NAN;
}

/* ---- cross-validation and the model -------------------------------------- */

struct cv {
	size_t nt; /* candidate targets                        */
	size_t *targets;
	double *pred;  /* [fit][target][position] held-out predictions */
	size_t *kept;  /* [fold][target][t] columns kept            */
	size_t *nkept; /* [fold][target]                            */
	double *coef;  /* [fold][fit][target][1 + tmax]             */
	size_t tmax;
};

static size_t *pick_targets(size_t want, size_t tmax, size_t *n)
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

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void progress(const mpp_train_opts *o, const char *fmt, size_t a,
		     size_t b, double secs)
{
	char msg[128];

	if (!o->progress)
		return;
	snprintf(msg, sizeof(msg), fmt, a, b, secs);
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
		return run_path(d, d->K, j->all);
	rc = run_path(d, f, &p);
	if (rc)
		return rc;
	for (size_t ti = 0; ti < T; ti++) {
		size_t *F = cv->kept + (f * T + ti) * cv->tmax, t;
		rc = path_keep(d, f, &p, cv->targets[ti], F, &t);
		if (rc)
			break;
		cv->nkept[f * T + ti] = t;
		for (size_t q = 0; q < j->nfits; q++) {
			int fit = j->fits[q];
			double *c = cv->coef + ((f * NFITS + fit) * T + ti) * w;
			if (final_fit(d, f, F, t, fit, c))
				continue;
			for (size_t r = d->bstart[f]; r < d->bstart[f + 1]; r++)
				cv->pred[(fit * T + ti) * d->m + r] =
				    predict_row(d, r, F, t, c);
		}
	}
	path_free(&p);
	if (rc)
		return rc;
	pthread_mutex_lock(&j->lock);
	j->done++;
	if (now_s() - j->t0 > 1)
		progress(j->o,
			 "cross-validation: %zu of %zu folds done (%.1f s)",
			 j->done, d->K, now_s() - j->t0);
	pthread_mutex_unlock(&j->lock);
	return MPP_OK;
}

static int cross_validate(const struct data *d, const int *fits, size_t nfits,
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
	return parallel_for(K + 1, cv_fold, &job);
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
static void fold_mape(const struct data *d, const struct cv *cv, int fit,
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
static int prefer_ridge(const struct data *d, const struct cv *cv, size_t tn,
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
static double pooled_mape(const struct data *d, const struct cv *cv, int fit,
			  size_t ti)
{
	double e = 0;

	for (size_t r = 0; r < d->m; r++)
		e += rel_err(cv->pred[(fit * cv->nt + ti) * d->m + r], d->y[r]);
	return e / (double)d->m;
}

/* The one-standard-error rule: the smallest target whose error is within
 * one standard error of the best. */
static size_t one_se(const struct data *d, const struct cv *cv, int fit)
{
	size_t best = 0;
	double bm = INFINITY, bse = 0, m, se;

	for (size_t ti = 0; ti < cv->nt; ti++) {
		fold_mape(d, cv, fit, ti, &m, &se);
		if (m < bm) {
			bm = m;
			bse = se;
			best = ti;
		}
	}
	for (size_t ti = 0; ti < best; ti++) {
		fold_mape(d, cv, fit, ti, &m, &se);
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
static double conformal(const struct data *d, const double *pred,
			int skip_missing, double coverage, double *lo,
			double *hi, double *inside, size_t *nused)
{
	size_t n = 0, in = 0;
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
		/* A prediction below a tenth of the shortest run (or none)
		 * counts as that: it bounds the ratios. */
		double p = isfinite(pred[r]) && pred[r] > ymin / 10 ? pred[r]
								    : ymin / 10;
		ratio[n++] = d->y[r] / p;
		mape += rel_err(pred[r], d->y[r]);
	}
	*nused = n;
	if (n == 0) {
		free(ratio);
		return NAN;
	}
	mape /= (double)n;
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

/* Column j's power law on the runs outside fold f, if it predicts well
 * enough (nested cross-validation inside those runs); coef as power_fit. */
static int predictable(const struct data *d, size_t f, size_t j, double *coef)
{
	double e = power_cv(d, f, j);

	return isfinite(e) && e <= PM_MAX_MAPE &&
	       power_fit(d, f, d->K, j, coef) == MPP_OK;
}

/*
 * Held-out predictions from job parameters, as the model makes them: in
 * each fold, the kept columns whose power laws (fitted on the fold's
 * training runs) predict well; when some do not, the final fit is redone
 * on the others. A fold where none do gives no prediction (NAN).
 */
static int params_path(const struct data *d, const struct cv *cv, int fit,
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
			if (predictable(d, f, F[i], pc + i * np)) {
				P[np_ok] = F[i];
				Pi[np_ok++] = i;
			}
		if (np_ok < t) {
			if (np_ok == 0 || final_fit(d, f, P, np_ok, fit, c2))
				continue;
			c = c2;
		}
		for (size_t r = d->bstart[f]; r < d->bstart[f + 1]; r++) {
			pred[r] = c[0];
			for (size_t i = 0; i < np_ok; i++)
				pred[r] += c[1 + i] *
					   power_eval(d, r, pc + Pi[i] * np);
		}
	}
out:
	free(pc);
	free(c2);
	free(P);
	free(Pi);
	return rc;
}

static char *dupstr(const char *s)
{
	return strdup(s ? s : "");
}

/* The build the rows come from, or, when they mix builds (the caller
 * allowed it), every build id, sorted and joined by '+'. */
static char *build_ids(const mpp_runs *rs, const size_t *rows, size_t nrows)
{
	const char **ids = malloc(nrows * sizeof(*ids));
	size_t n = 0, len = 1;
	char *out = NULL;

	if (!ids)
		return NULL;
	for (size_t i = 0; i < nrows; i++)
		ids[i] = rs->runs[rows[i]].build_id;
	qsort(ids, nrows, sizeof(*ids), cmp_str);
	for (size_t i = 0; i < nrows; i++)
		if (i == 0 || strcmp(ids[i], ids[n - 1])) {
			ids[n++] = ids[i];
			len += strlen(ids[i]) + 1;
		}
	out = malloc(len);
	if (out) {
		out[0] = '\0';
		for (size_t i = 0; i < n; i++) {
			if (i)
				strcat(out, "+");
			strcat(out, ids[i]);
		}
	}
	free(ids);
	return out;
}

/* Fill the model's terms from the kept columns F and coefficients c;
 * tcol[i] gets the column of term i. */
static int build_terms(const struct data *d, const mpp_runs *rs,
		       const struct path *p, const size_t *F, size_t t,
		       const double *c, mpp_model *m, double *share,
		       size_t *tcol)
{
	double total = 0;

	m->terms = calloc(t ? t : 1, sizeof(*m->terms));
	if (!m->terms)
		return MPP_ENOMEM;
	for (size_t r = 0; r < d->m; r++)
		total += predict_row(d, r, F, t, c);
	m->intercept = c[0];
	for (size_t i = 0; i < t; i++) {
		/* A term the final fit zeroed (NNLS) is not worth asking for.
		 */
		if (c[1 + i] == 0)
			continue;
		mpp_term *term = &m->terms[m->nterms++];
		size_t j = F[i];
		tcol[m->nterms - 1] = j;
		double mean = 0, ss = 0, contrib = 0;
		term->feature = dupstr(rs->features[d->col[j]]);
		term->coef = c[1 + i];
		for (size_t r = 0; r < d->m; r++)
			mean += xval(d, r, j) / (double)d->m;
		for (size_t r = 0; r < d->m; r++) {
			ss += (xval(d, r, j) - mean) * (xval(d, r, j) - mean);
			contrib += c[1 + i] * xval(d, r, j);
		}
		term->center = mean;
		term->scale = sqrt(ss / (double)d->m);
		share[m->nterms - 1] = total > 0 ? 100 * contrib / total : NAN;
		for (size_t l = 0; l < d->k; l++)
			if (l != j && p->rep[l] == j)
				term->naliases++;
		term->aliases = calloc(term->naliases + 1, sizeof(char *));
		if (!term->feature || !term->aliases)
			return MPP_ENOMEM;
		for (size_t l = 0, a = 0; l < d->k; l++)
			if (l != j && p->rep[l] == j &&
			    !(term->aliases[a++] =
				  dupstr(rs->features[d->col[l]])))
				return MPP_ENOMEM;
		/* Its power law on every run, and how well that predicts. */
		mpp_param_model *pm = &term->pm;
		double *pc = malloc((d->nvars + 2) * sizeof(*pc));
		if (!pc)
			return MPP_ENOMEM;
		pm->cv_mape = power_cv(d, d->K, j);
		pm->predictable = predictable(d, d->K, j, pc);
		pm->log_c = pm->predictable ? pc[0] : 0;
		pm->zero_serial = pm->predictable && pc[d->nvars + 1] != 0;
		if (pm->predictable) {
			pm->nvars = d->nvars;
			pm->vars = calloc(d->nvars + 1, sizeof(char *));
			pm->expo = calloc(d->nvars + 1, sizeof(double));
			if (!pm->vars || !pm->expo) {
				free(pc);
				return MPP_ENOMEM;
			}
			for (size_t v = 0; v < d->nvars; v++) {
				pm->expo[v] = pc[1 + v];
				if (!(pm->vars[v] = dupstr(d->vars[v]))) {
					free(pc);
					return MPP_ENOMEM;
				}
			}
		}
		free(pc);
	}
	return MPP_OK;
}

/*
 * The parameters path: when some kept terms are not predictable from the
 * job parameters, the final fit is redone on the others (the same fit, on
 * every run), so that the others take up what they can of the left-out
 * terms' share; those get pcoef 0. With no predictable term left there is
 * no parameters path (pcoef stays NULL and predictions from parameters
 * refuse, naming an unpredictable term).
 */
static int params_fit(const struct data *d, int fit, const size_t *tcol,
		      mpp_model *m, mpp_train_report *rep)
{
	size_t n = 0, *P;
	double *c;
	int rc = MPP_OK;

	for (size_t i = 0; i < m->nterms; i++)
		rep->nparams_left_out += !m->terms[i].pm.predictable;
	if (rep->nparams_left_out == 0 || rep->nparams_left_out == m->nterms)
		return MPP_OK;
	P = malloc(m->nterms * sizeof(*P));
	c = calloc(m->nterms + 1, sizeof(*c));
	m->pcoef = calloc(m->nterms, sizeof(*m->pcoef));
	if (!P || !c || !m->pcoef) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < m->nterms; i++)
		if (m->terms[i].pm.predictable)
			P[n++] = tcol[i];
	if (final_fit(d, d->K, P, n, fit, c)) {
		/* Too few runs for the refit: no parameters path. */
		free(m->pcoef);
		m->pcoef = NULL;
		goto out;
	}
	m->pintercept = c[0];
	for (size_t i = 0, k = 0; i < m->nterms; i++)
		if (m->terms[i].pm.predictable)
			m->pcoef[i] = c[1 + k++];
out:
	free(P);
	free(c);
	return rc;
}

void mpp_train_opts_init(mpp_train_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->top_p = 0.5;
	o->folds = 5;
	o->coverage = 0.95;
	o->seed = 1;
}

void mpp_train_report_free(mpp_train_report *r)
{
	if (!r)
		return;
	free(r->share);
	r->share = NULL;
}

static int train(struct data *d, const mpp_runs *rs, const size_t *rows,
		 size_t nrows, const mpp_train_opts *o, mpp_model **out,
		 mpp_train_report *rep, char *err, size_t errlen)
{
	struct cv cv = {0};
	struct path p = {0};
	mpp_model *m = NULL;
	double t0 = now_s();
	size_t nt_min, tmax;
	int fits[2], nfits, rc;

	rc = load(d, rs, rows, nrows, o, &rep->nabsent, err, errlen);
	if (rc == MPP_OK)
		rc = block_grams(d);
	if (rc)
		goto out;
	nt_min = d->m - (d->m + d->K - 1) / d->K;
	tmax = nt_min > 4 ? (nt_min - 2) / 2 : 1;
	if (tmax > d->k)
		tmax = d->k;
	if (o->target > tmax && !(d->seed_method && o->target <= d->k)) {
		snprintf(err, errlen,
			 "--target %zu: %zu runs allow at most %zu features",
			 o->target, d->m, tmax);
		rc = MPP_EINVAL;
		goto out;
	}
	/* Without --target, cross-validation tries up to MAX_TARGET. */
	if (o->target)
		tmax = o->target;
	else if (tmax > MAX_TARGET)
		tmax = MAX_TARGET;
	cv.tmax = tmax;
	cv.targets = pick_targets(o->target, tmax, &cv.nt);
	if (!cv.targets) {
		rc = MPP_ENOMEM;
		goto out;
	}
	if (d->seed_method) {
		fits[0] = FIT_OLS;
		nfits = 1;
	} else {
		fits[0] = FIT_NNLS;
		fits[1] = FIT_RIDGE;
		nfits = 2;
	}
	rc = cross_validate(d, fits, (size_t)nfits, &cv, o, t0, &p);
	if (rc)
		goto out;

	/* Target per fit by the 1-SE rule, then the final fit. */
	int fit = fits[0];
	size_t ti = one_se(d, &cv, fit);
	rep->cv_mape_nnls = rep->cv_mape_ridge = NAN;
	if (!d->seed_method) {
		size_t tr = one_se(d, &cv, FIT_RIDGE);
		rep->cv_mape_nnls = pooled_mape(d, &cv, FIT_NNLS, ti);
		rep->cv_mape_ridge = pooled_mape(d, &cv, FIT_RIDGE, tr);
		if (prefer_ridge(d, &cv, ti, tr)) {
			fit = FIT_RIDGE;
			ti = tr;
		}
	}

	m = mpp_model_new();
	if (!m) {
		rc = MPP_ENOMEM;
		goto out;
	}
	m->method = dupstr(d->seed_method ? "seed" : "default");
	m->fit = dupstr(fit_names[fit]);
	m->app = dupstr(rs->runs[rows[0]].app);
	m->build_id = build_ids(rs, rows, nrows);
	m->created_at = (double)time(NULL);
	m->ntrain = d->m;
	m->nfeatures_in = rs->nfeatures;
	m->coverage = o->coverage;
	if (!m->method || !m->fit || !m->app || !m->build_id) {
		rc = MPP_ENOMEM;
		goto out;
	}
	size_t nused;
	m->cv_mape =
	    conformal(d, cv.pred + (fit * cv.nt + ti) * d->m, 0, o->coverage,
		      &m->rel_lo, &m->rel_hi, &rep->cv_coverage, &nused);
	/* The model: the same steps on every run (the path ran with the
	 * folds). */
	size_t t, *F = malloc(cv.targets[ti] * sizeof(*F));
	double *c = NULL;
	rc = F ? path_keep(d, d->K, &p, cv.targets[ti], F, &t) : MPP_ENOMEM;
	if (rc == MPP_OK) {
		c = calloc(t + 1, sizeof(*c));
		rep->share = calloc(t + 1, sizeof(double));
		rc = c && rep->share ? MPP_OK : MPP_ENOMEM;
	}
	if (rc) {
		free(F);
		free(c);
		goto out;
	}
	rc = final_fit(d, d->K, F, t, fit, c);
	if (rc) {
		snprintf(err, errlen, "app %s: the final %s fit failed", m->app,
			 fit_names[fit]);
		free(F);
		free(c);
		goto out;
	}
	size_t *tcol = malloc((t ? t : 1) * sizeof(*tcol));
	rc = tcol ? build_terms(d, rs, &p, F, t, c, m, rep->share, tcol)
		  : MPP_ENOMEM;
	if (rc == MPP_OK)
		rc = params_fit(d, fit, tcol, m, rep);
	free(tcol);
	free(F);
	free(c);
	if (rc)
		goto out;
	/* Predictions from parameters, cross-validated the same way. Folds
	 * whose kept terms cannot be predicted from parameters give no
	 * prediction; the error is over the rest, if that is at least half
	 * the runs. */
	if (m->pcoef || rep->nparams_left_out == 0) {
		double *pp = malloc(d->m * sizeof(*pp)), inside;
		if (!pp) {
			rc = MPP_ENOMEM;
			goto out;
		}
		rc = params_path(d, &cv, fit, ti, pp);
		if (rc == MPP_OK) {
			double e =
			    conformal(d, pp, 1, o->coverage, &m->prel_lo,
				      &m->prel_hi, &inside, &rep->nparams_cv);
			if (2 * rep->nparams_cv >= d->m)
				m->cv_mape_params = e;
		}
		free(pp);
		if (rc)
			goto out;
	}
	/* Without a cross-validated interval from parameters, the one from
	 * features is the narrowest honest one. */
	if (!isfinite(m->cv_mape_params)) {
		m->prel_lo = m->rel_lo;
		m->prel_hi = m->rel_hi;
	}
	rep->nruns = d->m;
	rep->nfeatures_in = rs->nfeatures;
	rep->target = m->nterms;
	rep->target_by_cv = o->target == 0;
	for (size_t j = 0; !d->seed_method && j < d->k; j++) {
		rep->nconstant += p.rep[j] == (size_t)-1;
		rep->nduplicate += p.rep[j] != (size_t)-1 && p.rep[j] != j;
	}
	*out = m;
	m = NULL;
out:
	if (rc == MPP_ENOMEM)
		snprintf(err, errlen, "out of memory");
	path_free(&p);
	free(cv.targets);
	free(cv.pred);
	free(cv.kept);
	free(cv.nkept);
	free(cv.coef);
	mpp_model_free(m);
	return rc;
}

int mpp_train(const mpp_runs *rs, const size_t *rows, size_t nrows,
	      const mpp_train_opts *o, mpp_model **out, mpp_train_report *rep,
	      char *err, size_t errlen)
{
	struct data d = {0};
	gsl_error_handler_t *old;
	int rc;

	memset(rep, 0, sizeof(*rep));
	*out = NULL;
	if (nrows < 5) {
		snprintf(err, errlen, "app %s: %zu runs, at least 5 needed",
			 nrows ? rs->runs[rows[0]].app : "?", nrows);
		return MPP_EINVAL;
	}
	d.seed_method = o->method && strcmp(o->method, "seed") == 0;
	d.top_p = o->top_p > 0 && o->top_p < 1 ? o->top_p : 0.5;
	old = gsl_set_error_handler_off();
	rc = train(&d, rs, rows, nrows, o, out, rep, err, errlen);
	gsl_set_error_handler(old);
	data_free(&d);
	if (rc)
		mpp_train_report_free(rep);
	return rc;
}
