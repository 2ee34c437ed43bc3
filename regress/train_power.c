/*
 * train_power.c: power laws of one column in the job parameters (the
 * parameter models of model.h), fitted and cross-validated on fold subsets.
 */
#include "regress/train_data.h"

#include <gsl/gsl_fit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

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

int mpp_tr_keep_predictable(struct data *d, size_t *n)
{
	double *coef = malloc((d->nvars + 2) * sizeof(*coef));

	if (!coef)
		return MPP_ENOMEM;
	*n = 0;
	for (size_t j = 0; j < d->k; j++)
		if (!mpp_tr_predictable(d, d->K, j, coef)) {
			gsl_vector_view z = gsl_matrix_row(d->Zt, j);
			gsl_vector_set_zero(&z.vector);
			(*n)++;
		}
	free(coef);
	return MPP_OK;
}

/*
 * Edge laws. A counter's power law is fitted over the whole training
 * range; past the range what counts is its slope at the top. A conjugate
 * gradient solver's iterations rise with the mesh until they reach the
 * iteration cap, then stay: its inner loop's count grows as nz^1.8 over a
 * range that crosses the cap and as nz^1 beyond (miniFE, measured rows in
 * tests/regress/data/minife-cap-*.csv: 63 and 107 % over one and two
 * sizes past the range, from a law whose in-range error was 11.6 %).
 *
 * Per group of ranges (equal or collinear parameters, model range_group)
 * whose part z of log(x) varies over six values or more: the runs at the
 * largest z are held out, and two lines in z fitted on the rest predict
 * them, one through all the rest (the law's own shape) and one through
 * the upper half of its values. When the upper line errs less than half
 * as much, the group gets an edge law: the upper half's line over all the
 * runs. Counters are exact counts, so the held-out error is the law's
 * shape, not noise. Each line goes through three values or more (two fit
 * any jitter: CoMD's pair-loop counter, a sawtooth in the box size, got a
 * slope of 3.6 from two sizes and answered 29 % over one size past them):
 * six values, the check's upper half three of the five below the largest.
 */
#define EDGE_MIN_VALUES 6

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Line res = a + b z through the runs with lo <= z < hi (GSL); its mean
 * relative error on x at the runs with z >= hi into *err when err. */
static int edge_line(const double *z, const double *res, size_t n, double lo,
		     double hi, double *a, double *b, double *err)
{
	double *zs = malloc(n * sizeof(*zs)), *rs = malloc(n * sizeof(*rs));
	double c00, c01, c11, ss, sum = 0;
	size_t k = 0, h = 0;
	int rc = MPP_EINVAL;

	if (!zs || !rs) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < n; r++)
		if (z[r] >= lo && z[r] < hi) {
			zs[k] = z[r];
			rs[k++] = res[r];
		}
	if (k < 2 ||
	    gsl_fit_linear(zs, 1, rs, 1, k, a, b, &c00, &c01, &c11, &ss))
		goto out;
	for (size_t r = 0; err && r < n; r++)
		if (z[r] >= hi) {
			sum += fabs(expm1(*a + *b * z[r] - res[r]));
			h++;
		}
	if (err)
		*err = h ? sum / (double)h : NAN;
	rc = MPP_OK;
out:
	free(zs);
	free(rs);
	return rc;
}

int mpp_tr_edge_laws(const struct data *d, const mpp_model *m, size_t j,
		     mpp_param_model *pm)
{
	double *z = malloc(d->m * sizeof(*z)),
	       *res = malloc(d->m * sizeof(*res));
	double *v = malloc(d->m * sizeof(*v));
	int rc = z && res && v ? MPP_OK : MPP_ENOMEM;

	pm->nedges = 0;
	if (rc == MPP_OK && m->nranges &&
	    !(pm->edges = calloc(m->nranges, sizeof(*pm->edges))))
		rc = MPP_ENOMEM;
	for (size_t g = 0; rc == MPP_OK && g < m->nranges; g++) {
		size_t n = 0, nv = 0, ingroup = 0;
		if (m->range_group && m->range_group[g] != g)
			continue;
		for (size_t r = 0; r < d->m; r++) {
			double x = xval(d, r, j), zr = 0,
			       l = log(x) - pm->log_c;
			/* Zero: a communication counter on one rank. */
			if (!(x > 0))
				continue;
			for (size_t k = 0; k < pm->nvars; k++) {
				double lv = log(*mpp_params_get(&d->params[r],
								pm->vars[k]));
				if (mpp_model_range_group(m, pm->vars[k]) ==
				    g) {
					zr += pm->expo[k] * lv;
					ingroup += pm->expo[k] != 0;
				} else
					l -= pm->expo[k] * lv;
			}
			z[n] = zr;
			res[n++] = l;
		}
		if (!ingroup)
			continue;
		/* The distinct values of z, ascending. */
		memcpy(v, z, n * sizeof(*v));
		qsort(v, n, sizeof(*v), cmp_dbl);
		for (size_t r = 0; r < n; r++)
			if (nv == 0 || v[r] != v[nv - 1])
				v[nv++] = v[r];
		if (nv < EDGE_MIN_VALUES)
			continue;
		/* The check: the rest's values 0..nv-2, its upper half from
		 * (nv - 1) / 2; then the edge law on all values' upper half. */
		double a, b, ea = NAN, eu = NAN;
		rc = edge_line(z, res, n, -INFINITY, v[nv - 1], &a, &b, &ea);
		if (rc == MPP_OK)
			rc = edge_line(z, res, n, v[(nv - 1) / 2], v[nv - 1],
				       &a, &b, &eu);
		if (rc == MPP_OK && eu < ea / 2)
			rc = edge_line(z, res, n, v[nv / 2], INFINITY, &a, &b,
				       NULL);
		if (rc == MPP_OK && eu < ea / 2)
			pm->edges[pm->nedges++] =
			    (struct mpp_edge_law){g, a, b};
		if (rc == MPP_EINVAL)
			rc = MPP_OK; /* too few runs for a line: no edge law */
	}
	free(z);
	free(res);
	free(v);
	return rc;
}
