/*
 * learn.c: online asymmetric weighted least squares on a sliding window
 * (learn.h), with GSL. Not the features (history.c builds them) and not a
 * general regression (regress/).
 */
#include "history/learn.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

/* Reweighting rounds per fit: the signs of the residuals settle in a few
 * (the loss is convex; each round is one weighted least squares). */
enum { ROUNDS = 6 };

struct mpp_learn {
	size_t p, window, every, min_obs;
	double under;
	double *x, *y, *w; /* rings of window rows */
	size_t n, pos, since_fit, nfits, nobs;
	double *coef; /* p; valid when nfits > 0 */
	gsl_matrix *X, *cov;
	gsl_vector *Y, *W, *C;
	gsl_multifit_linear_workspace *ws;
	size_t ws_n; /* rows of X and ws */
};

mpp_learn *mpp_learn_new(size_t p, size_t window, size_t every, size_t min_obs,
			 double under)
{
	mpp_learn *l;

	if (!p || !window || !every || min_obs < p || !(under > 0) ||
	    !isfinite(under))
		return NULL;
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->p = p;
	l->window = window;
	l->every = every;
	l->min_obs = min_obs;
	l->under = under;
	l->x = malloc(window * p * sizeof(*l->x));
	l->y = malloc(window * sizeof(*l->y));
	l->w = malloc(window * sizeof(*l->w));
	l->coef = calloc(p, sizeof(*l->coef));
	if (!l->x || !l->y || !l->w || !l->coef) {
		mpp_learn_free(l);
		return NULL;
	}
	return l;
}

static void free_work(mpp_learn *l)
{
	gsl_matrix_free(l->X);
	gsl_matrix_free(l->cov);
	gsl_vector_free(l->Y);
	gsl_vector_free(l->W);
	gsl_vector_free(l->C);
	if (l->ws)
		gsl_multifit_linear_free(l->ws);
	l->X = l->cov = NULL;
	l->Y = l->W = l->C = NULL;
	l->ws = NULL;
	l->ws_n = 0;
}

void mpp_learn_free(mpp_learn *l)
{
	if (!l)
		return;
	free_work(l);
	free(l->x);
	free(l->y);
	free(l->w);
	free(l->coef);
	free(l);
}

size_t mpp_learn_nfits(const mpp_learn *l)
{
	return l->nfits;
}

size_t mpp_learn_nobs(const mpp_learn *l)
{
	return l->nobs;
}

/* GSL objects for n rows (n only grows until the window is full). */
static int work_for(mpp_learn *l, size_t n)
{
	if (l->ws_n == n)
		return MPP_OK;
	free_work(l);
	l->X = gsl_matrix_alloc(n, l->p);
	l->cov = gsl_matrix_alloc(l->p, l->p);
	l->Y = gsl_vector_alloc(n);
	l->W = gsl_vector_alloc(n);
	l->C = gsl_vector_alloc(l->p);
	l->ws = gsl_multifit_linear_alloc(n, l->p);
	if (!l->X || !l->cov || !l->Y || !l->W || !l->C || !l->ws) {
		free_work(l);
		return MPP_ENOMEM;
	}
	l->ws_n = n;
	return MPP_OK;
}

/* Iteratively reweighted least squares for the asymmetric loss. */
static int fit(mpp_learn *l)
{
	size_t n = l->n, p = l->p, rank;
	double chisq;
	int rc = work_for(l, n);

	if (rc)
		return rc;
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < p; k++)
			gsl_matrix_set(l->X, i, k, l->x[i * p + k]);
		gsl_vector_set(l->Y, i, l->y[i]);
		gsl_vector_set(l->W, i, l->w[i]);
	}
	for (int round = 0; round < ROUNDS; round++) {
		size_t flips = 0;
		/* Singular values below 1e-10 of the largest are dropped:
		 * features such as the mean of the last two runs are sums
		 * of others, and the window may hold one user only. */
		if (gsl_multifit_wlinear_tsvd(l->X, l->W, l->Y, 1e-10, l->C,
					      l->cov, &chisq, &rank, l->ws))
			return MPP_EINVAL;
		for (size_t i = 0; i < n; i++) {
			double f = 0, a;
			for (size_t k = 0; k < p; k++)
				f += l->x[i * p + k] * gsl_vector_get(l->C, k);
			a = l->y[i] > f ? l->under : 1;
			if (gsl_vector_get(l->W, i) != a * l->w[i]) {
				gsl_vector_set(l->W, i, a * l->w[i]);
				flips++;
			}
		}
		if (!flips || l->under == 1)
			break;
	}
	for (size_t k = 0; k < p; k++)
		l->coef[k] = gsl_vector_get(l->C, k);
	l->nfits++;
	return MPP_OK;
}

int mpp_learn_add(mpp_learn *l, const double *x, double y, double w)
{
	if (!isfinite(y) || !(w > 0) || !isfinite(w))
		return MPP_EINVAL;
	for (size_t k = 0; k < l->p; k++)
		if (!isfinite(x[k]))
			return MPP_EINVAL;
	memcpy(l->x + l->pos * l->p, x, l->p * sizeof(*x));
	l->y[l->pos] = y;
	l->w[l->pos] = w;
	l->pos = (l->pos + 1) % l->window;
	if (l->n < l->window)
		l->n++;
	l->since_fit++;
	l->nobs++;
	if (l->n < l->min_obs || (l->nfits && l->since_fit < l->every))
		return MPP_OK;
	l->since_fit = 0;
	gsl_error_handler_t *old = gsl_set_error_handler_off();
	int rc = fit(l);
	gsl_set_error_handler(old);
	return rc == MPP_ENOMEM ? rc : MPP_OK;
}

int mpp_learn_predict(const mpp_learn *l, const double *x, double *y)
{
	double f = 0;

	if (!l->nfits)
		return -1;
	for (size_t k = 0; k < l->p; k++)
		f += x[k] * l->coef[k];
	*y = f;
	return 0;
}
