/*
 * train_final.c: the final fit of the kept columns (NNLS or ridge on
 * relative error, or the seed's plain least squares) and its prediction.
 */
#include "regress/train_data.h"

#include <math.h>
#include <stdlib.h>

#include "regress/fit.h"

/*
 * Fit runtime = c[0] + sum c[1+i] x[F[i]] on the training runs of fold f.
 * nnls and ridge minimise relative error (rows weighted by 1/y), nnls with
 * every c >= 0; ols is the seed's plain least squares.
 */
int mpp_tr_final_fit(const struct data *d, size_t f, const size_t *F, size_t t,
		     int fit, double *c)
{
	size_t nt = ntrain(d, f);
	int rc;

	if (t == 0) {
		/* No column left (all constant): the intercept alone, the
		 * (weighted) mean run time. */
		double W, yy;
		mpp_tr_wstats(d, f, &W, &c[0], &yy);
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
		rc = mpp_tr_ols_raw(d, f, F, t, a, &c[0]);
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
		/* The intercept too is >= 0: a run's fixed cost is not
		 * negative, and a negative one cancels part of the terms
		 * (miniAMR's in-range error on the development set: 4
		 * figures lower, none higher; docs/benchmarks.md). */
		rc = mpp_fit_nnls(A, b, 0, x);
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

double mpp_tr_predict_row(const struct data *d, size_t r, const size_t *F,
			  size_t t, const double *c)
{
	double y = c[0];

	for (size_t i = 0; i < t; i++)
		y += c[1 + i] * xval(d, r, F[i]);
	return y;
}
