/*
 * train_load.c: the run rows of one app as the trainer's dense matrix
 * (train_data.h): usable columns, shuffled fold order, standardised values, job
 * parameters, and the per-fold Gram blocks. Not for fitting.
 */
#include "regress/train_data.h"

#include <gsl/gsl_blas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regress/memory.h"
#include "regress/pool.h"

/* Gram matrices per fold are kept when features are at most this many. */
#define GRAM_MAX 2500

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

void mpp_tr_data_free(struct data *d)
{
	free(d->col);
	free(d->rv);
	free(d->y);
	free(d->ymem);
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
		 * run's outcome, not its work, and mem:* (peak resident
		 * memory) what the system gave the run, MPI library included:
		 * never a predictor. */
		use[f] = (char)(memchr(has, 0, nb) == NULL &&
				strncmp(rs->features[f], "time:", 5) != 0 &&
				strncmp(rs->features[f], "mem:", 4) != 0);
		*nusable += use[f] ? 1 : 0;
	}
	free(build);
	free(names);
	if (!has)
		return MPP_ENOMEM;
	free(has);
	return MPP_OK;
}

int mpp_tr_load(struct data *d, const mpp_runs *rs, const size_t *rows,
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
	long mfi = o->mem && o->mem_beta > 0 ? mpp_tr_mem_column(rs) : -1;
	if (mfi >= 0)
		d->ymem = malloc(nrows * sizeof(*d->ymem));
	if (!d->col || !d->rv || !d->y || !d->row || !d->params || !d->Zt ||
	    (mfi >= 0 && !d->ymem)) {
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
		/* The memory regime: the time the fit sees is the run's
		 * time over its factor (memory.h). */
		if (d->ymem) {
			d->ymem[r] = mpp_tr_mem_run_factor(rs, d->row[r], mfi,
							   o->mem, o->mem_beta);
			if (!(d->ymem[r] > 0)) {
				snprintf(err, errlen,
					 "run %s: no %s for the memory regime",
					 run->run_id ? run->run_id : "?",
					 MPP_MEM_FEATURE);
				return MPP_EINVAL;
			}
			d->y[r] /= d->ymem[r];
		}
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

int mpp_tr_block_grams(struct data *d)
{
	if (d->k > d->m || d->k > GRAM_MAX)
		return MPP_OK;
	d->G = calloc(d->K, sizeof(*d->G));
	d->bs = calloc(d->K, sizeof(*d->bs));
	d->bzy = calloc(d->K, sizeof(*d->bzy));
	if (!d->G || !d->bs || !d->bzy)
		return MPP_ENOMEM;
	return mpp_parallel_for(d->K, block_gram, d);
}

size_t mpp_tr_run_kv(const mpp_runs *rs, size_t row, mpp_kv *kv)
{
	const mpp_run *run = &rs->runs[row];
	size_t n = 0;

	for (size_t f = 0; f < rs->nfeatures; f++)
		if (!isnan(run->values[f])) {
			kv[n].name = rs->features[f];
			kv[n++].value = run->values[f];
		}
	return n;
}
