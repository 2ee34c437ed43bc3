/*
 * train_law.c: the run-time law (model.h): a model of the run time on the
 * job parameters themselves, the parameters path's answer when the kept
 * counters cannot be predicted from parameters (or when it cross-validates
 * better than them), and the parameters' training ranges.
 *
 * The law is runtime = a + b * exp(c + sum e_v log param_v): the exponents
 * come from a log-log fit of the run time (truncated SVD, as the counters'
 * power laws), then a (start-up cost) and b by non-negative least squares
 * on relative error. With no varying parameter it is a constant. Not for
 * the counters' power laws (train_power.c).
 */
#include "regress/train_data.h"

#include <stdlib.h>
#include <string.h>

#include "regress/fit.h"

static double logp(const struct data *d, size_t r, size_t v)
{
	return log(*mpp_params_get(&d->params[r], d->vars[v]));
}

/* Exponents of a log-log fit of y - a on the runs outside fold f where it
 * is positive, into coef[2..]; then a, b >= 0 by NNLS on relative error,
 * into coef[0], coef[1]. */
static int law_step(const struct data *d, size_t f, double *coef)
{
	size_t nt = ntrain(d, f), p = d->nvars + 1, np = 0;
	double a = coef[0];

	for (size_t r = 0; r < d->m; r++)
		np += in_train(d, f, r) && d->y[r] - a > 0;
	if (np < p + 1)
		return MPP_EINVAL;
	gsl_matrix *A = gsl_matrix_alloc(np, p), *B = gsl_matrix_alloc(nt, 2);
	gsl_vector *b = gsl_vector_alloc(np), *x = gsl_vector_alloc(p),
		   *ab = gsl_vector_alloc(2), *one = gsl_vector_alloc(nt);
	double *z = malloc(nt * sizeof(*z)), zbar = 0;
	int rc = A && B && b && x && ab && one && z ? MPP_OK : MPP_ENOMEM;

	for (size_t r = 0, row = 0; rc == MPP_OK && r < d->m; r++) {
		if (!in_train(d, f, r) || !(d->y[r] - a > 0))
			continue;
		gsl_matrix_set(A, row, 0, 1);
		for (size_t v = 0; v < d->nvars; v++)
			gsl_matrix_set(A, row, 1 + v, logp(d, r, v));
		gsl_vector_set(b, row++, log(d->y[r] - a));
	}
	if (rc == MPP_OK)
		rc = mpp_fit_tsvd(A, b, x);
	for (size_t v = 0; rc == MPP_OK && v < p; v++)
		coef[2 + v] = gsl_vector_get(x, v);
	/* z = the power law's value, scaled to mean 1 for conditioning. */
	for (size_t r = 0, row = 0; rc == MPP_OK && r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		double l = coef[2];
		for (size_t v = 0; v < d->nvars; v++)
			l += coef[3 + v] * logp(d, r, v);
		z[row] = exp(l);
		zbar += z[row++] / (double)nt;
	}
	if (rc == MPP_OK && !(zbar > 0 && isfinite(zbar)))
		rc = MPP_EINVAL;
	for (size_t r = 0, row = 0; rc == MPP_OK && r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		gsl_matrix_set(B, row, 0, 1 / d->y[r]);
		gsl_matrix_set(B, row, 1, z[row] / zbar / d->y[r]);
		gsl_vector_set(one, row++, 1);
	}
	if (rc == MPP_OK)
		rc = mpp_fit_nnls(B, one, 0, ab);
	if (rc == MPP_OK) {
		coef[0] = gsl_vector_get(ab, 0);
		coef[1] = gsl_vector_get(ab, 1) / zbar;
		if (!(coef[0] + coef[1] > 0))
			rc = MPP_EINVAL;
	}
	gsl_matrix_free(A);
	gsl_matrix_free(B);
	gsl_vector_free(b);
	gsl_vector_free(x);
	gsl_vector_free(ab);
	gsl_vector_free(one);
	free(z);
	return rc;
}

/* The law's start-up cost a bends a log-log fit: the exponents are
 * refitted on y - a with the a found, up to LAW_STEPS times; the law
 * that errs least on the fitted runs is kept. */
#define LAW_STEPS 40

static double law_err(const struct data *d, size_t f, const double *coef)
{
	double e = 0;

	for (size_t r = 0; r < d->m; r++)
		if (in_train(d, f, r)) {
			double q = mpp_tr_law_eval(d, r, coef) / d->y[r] - 1;
			e += q * q;
		}
	return e;
}

/* The law's iteration from a first a = a0 (a's own fit starts at 0). */
int mpp_tr_law_fit_from(const struct data *d, size_t f, double a0, double *coef)
{
	size_t n = d->nvars + 3;
	double *next = malloc(n * sizeof(*next));
	int rc;

	if (!next)
		return MPP_ENOMEM;
	coef[0] = a0;
	rc = law_step(d, f, coef);
	double e = rc == MPP_OK ? law_err(d, f, coef) : INFINITY;
	memcpy(next, coef, n * sizeof(*next));
	for (int i = 1; rc == MPP_OK && i < LAW_STEPS; i++) {
		double a = next[0];
		if (law_step(d, f, next) != MPP_OK)
			break;
		double e2 = law_err(d, f, next);
		if (e2 < e) {
			e = e2;
			memcpy(coef, next, n * sizeof(*next));
		}
		if (fabs(next[0] - a) <= 1e-9 * (fabs(a) + 1e-12))
			break;
	}
	free(next);
	return rc;
}

int mpp_tr_law_fit(const struct data *d, size_t f, double *coef)
{
	return mpp_tr_law_fit_from(d, f, 0, coef);
}

int mpp_tr_law_fit_starts(const struct data *d, size_t f, int nstarts,
			  double *coef, double *a0)
{
	size_t n = d->nvars + 3;
	double ymin = INFINITY, best = INFINITY, *c = malloc(n * sizeof(*c));
	int rc = MPP_EINVAL;

	if (!c)
		return MPP_ENOMEM;
	for (size_t r = 0; r < d->m; r++)
		if (in_train(d, f, r))
			ymin = fmin(ymin, d->y[r]);
	for (int k = 0; k < nstarts && isfinite(ymin); k++) {
		int rk = mpp_tr_law_fit_from(d, f, ymin * k / nstarts, c);
		if (rk == MPP_ENOMEM) {
			rc = rk;
			break;
		}
		double e = rk == MPP_OK ? law_err(d, f, c) : INFINITY;
		if (e < best) {
			best = e;
			memcpy(coef, c, n * sizeof(*c));
			*a0 = ymin * k / nstarts;
			rc = MPP_OK;
		}
	}
	free(c);
	return rc;
}

double mpp_tr_law_eval(const struct data *d, size_t r, const double *coef)
{
	double l = coef[2];

	for (size_t v = 0; v < d->nvars; v++)
		l += coef[3 + v] * logp(d, r, v);
	return coef[0] + coef[1] * exp(l);
}

int mpp_tr_law_cv(const struct data *d, double *pred)
{
	double *coef = malloc((d->nvars + 3) * sizeof(*coef));

	if (!coef)
		return MPP_ENOMEM;
	for (size_t r = 0; r < d->m; r++)
		pred[r] = NAN;
	for (size_t f = 0; f < d->K; f++) {
		int rc = mpp_tr_law_fit(d, f, coef);
		if (rc == MPP_ENOMEM) {
			free(coef);
			return rc;
		}
		for (size_t r = d->bstart[f];
		     rc == MPP_OK && r < d->bstart[f + 1]; r++)
			pred[r] = mpp_tr_law_eval(d, r, coef);
	}
	free(coef);
	return MPP_OK;
}

int mpp_tr_law_to(const struct data *d, const double *coef, mpp_param_model *pm)
{
	pm->log_c = coef[2];
	pm->vars = calloc(d->nvars + 1, sizeof(char *));
	pm->expo = calloc(d->nvars + 1, sizeof(double));
	if (!pm->vars || !pm->expo)
		return MPP_ENOMEM;
	for (size_t v = 0; v < d->nvars; v++) {
		if (!(pm->vars[v] = strdup(d->vars[v])))
			return MPP_ENOMEM;
		pm->nvars++;
		pm->expo[v] = coef[3 + v];
	}
	pm->predictable = 1;
	return MPP_OK;
}

int mpp_tr_law_store(const struct data *d, const double *coef, mpp_model *m)
{
	m->law_a = coef[0];
	m->law_b = coef[1];
	m->has_law = 1;
	return mpp_tr_law_to(d, coef, &m->law);
}

int mpp_tr_ranges(const struct data *d, mpp_model *m)
{
	const mpp_params *p0 = &d->params[0];

	m->range_names = calloc(p0->n + 1, sizeof(char *));
	m->range_lo = calloc(p0->n + 1, sizeof(double));
	m->range_hi = calloc(p0->n + 1, sizeof(double));
	if (!m->range_names || !m->range_lo || !m->range_hi)
		return MPP_ENOMEM;
	for (size_t i = 0; i < p0->n; i++) {
		double lo = INFINITY, hi = -INFINITY;
		int all = 1;
		for (size_t r = 0; all && r < d->m; r++) {
			const double *v =
			    mpp_params_get(&d->params[r], p0->names[i]);
			if (!v || !isfinite(*v))
				all = 0;
			else {
				lo = fmin(lo, *v);
				hi = fmax(hi, *v);
			}
		}
		if (!all)
			continue;
		if (!(m->range_names[m->nranges] = strdup(p0->names[i])))
			return MPP_ENOMEM;
		m->range_lo[m->nranges] = lo;
		m->range_hi[m->nranges++] = hi;
	}
	return MPP_OK;
}
