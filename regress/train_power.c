/*
 * train_power.c: power laws of one column in the job parameters (the
 * parameter models of model.h), fitted and cross-validated on fold subsets.
 */
#include "regress/train_data.h"

#include <math.h>
#include <stdlib.h>

#include "regress/fit.h"

/* A parameter model with a larger CV error (percent) is not predictable. */
#define PM_MAX_MAPE 20.0

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
int mpp_tr_power_fit(const struct data *d, size_t f, size_t g, size_t j,
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

double mpp_tr_power_eval(const struct data *d, size_t r, const double *coef)
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
double mpp_tr_power_cv(const struct data *d, size_t f, size_t j)
{
	double *coef = malloc((d->nvars + 2) * sizeof(*coef)), sum = 0;
	size_t n = 0;

	if (!coef)
		return NAN;
	for (size_t g = 0; g < d->K; g++) {
		if (g == f)
			continue;
		if (mpp_tr_power_fit(d, f, g, j, coef)) {
			free(coef);
			return NAN;
		}
		for (size_t r = d->bstart[g]; r < d->bstart[g + 1]; r++) {
			double x = xval(d, r, j),
			       e = mpp_tr_power_eval(d, r, coef);
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

/* Column j's power law on the runs outside fold f, if it predicts well
 * enough (nested cross-validation inside those runs); coef as power_fit. */
int mpp_tr_predictable(const struct data *d, size_t f, size_t j, double *coef)
{
	double e = mpp_tr_power_cv(d, f, j);

	return isfinite(e) && e <= PM_MAX_MAPE &&
	       mpp_tr_power_fit(d, f, d->K, j, coef) == MPP_OK;
}
