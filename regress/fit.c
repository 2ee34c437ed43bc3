/*
 * fit.c: least-squares solvers on GSL for the trainer (fit.h): the ranking
 * fits (least squares or GCV ridge, primal or dual), non-negative least
 * squares (Lawson-Hanson), ridge by GCV, minimum-norm and truncated-SVD
 * least squares. No data handling here; regress/train.c does that.
 */
#include "regress/fit.h"

#include <float.h>
#include <gsl/gsl_blas.h>
#include <gsl/gsl_eigen.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>

#include "regress/model.h"

/*
 * GCV over a grid of penalties, from the eigenvalues ev[i] (squared singular
 * values) of the scaled design and u[i], the squared projections of the
 * centred run times on the matching left singular vectors:
 *   RSS(l) = yy - sum u_i (ev_i^2 + 2 l ev_i) / (ev_i + l)^2
 *   dof(l) = sum ev_i / (ev_i + l),  GCV(l) = RSS / (nt - 1 - dof)^2.
 */
static double gcv_lambda(const double *ev, const double *u, size_t n, double yy,
			 size_t nt)
{
	double emax = 0, best = INFINITY, best_l = 1;

	for (size_t i = 0; i < n; i++)
		if (ev[i] > emax)
			emax = ev[i];
	if (!(emax > 0))
		return 1;
	for (int k = 0; k < 61; k++) {
		double l = emax * pow(10, -9 + 11.0 * k / 60), rss = yy,
		       dof = 0;
		for (size_t i = 0; i < n; i++) {
			double e = ev[i] > 0 ? ev[i] : 0;
			rss -= u[i] * (e * e + 2 * l * e) / ((e + l) * (e + l));
			dof += e / (e + l);
		}
		double den = (double)nt - 1 - dof;
		if (den <= 0.5)
			continue;
		if (rss < 0)
			rss = 0;
		double g = rss / (den * den);
		if (g < best) {
			best = g;
			best_l = l;
		}
	}
	return best_l;
}

int mpp_fit_unit_scale(gsl_matrix *C, gsl_vector *g)
{
	size_t s = C->size1;
	gsl_vector *d = gsl_vector_alloc(s);

	if (!d)
		return MPP_ENOMEM;
	for (size_t j = 0; j < s; j++) {
		double c = gsl_matrix_get(C, j, j);
		gsl_vector_set(d, j, c > 0 ? 1 / sqrt(c) : 0);
	}
	for (size_t i = 0; i < s; i++) {
		double di = gsl_vector_get(d, i);
		for (size_t j = 0; j < s; j++)
			gsl_matrix_set(C, i, j,
				       gsl_matrix_get(C, i, j) * di *
					   gsl_vector_get(d, j));
		gsl_vector_set(g, i, gsl_vector_get(g, i) * di);
	}
	gsl_vector_free(d);
	return MPP_OK;
}

/* Solve (L + 1e-8 I) x = g by Cholesky, L overwritten: least squares on
 * unit-norm columns, the tiny ridge keeping near-collinear columns
 * solvable. 0 when L is not positive definite. */
static int solve_ridged(gsl_matrix *L, const gsl_vector *g, gsl_vector *x)
{
	for (size_t j = 0; j < L->size1; j++)
		gsl_matrix_set(L, j, j, gsl_matrix_get(L, j, j) + 1e-8);
	return gsl_linalg_cholesky_decomp1(L) == GSL_SUCCESS &&
	       gsl_linalg_cholesky_solve(L, g, x) == GSL_SUCCESS;
}

int mpp_fit_rank_primal(gsl_matrix *C, gsl_vector *g, double yy, size_t nt,
			gsl_vector *beta)
{
	size_t s = C->size1;
	int rc = mpp_fit_unit_scale(C, g);

	if (rc)
		return rc;
	if (nt >= 2 * s) {
		/* Enough runs: least squares. */
		gsl_matrix *L = gsl_matrix_alloc(s, s);
		if (!L)
			return MPP_ENOMEM;
		gsl_matrix_memcpy(L, C);
		int ok = solve_ridged(L, g, beta);
		gsl_matrix_free(L);
		if (ok)
			return MPP_OK;
	}
	gsl_vector *ev = gsl_vector_alloc(s), *c = gsl_vector_alloc(s),
		   *u = gsl_vector_alloc(s);
	gsl_matrix *V = gsl_matrix_alloc(s, s);
	gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(s);
	if (!ev || !c || !u || !V || !w) {
		rc = MPP_ENOMEM;
		goto out;
	}
	if (gsl_eigen_symmv(C, ev, V, w) != GSL_SUCCESS) {
		rc = MPP_EINVAL;
		goto out;
	}
	gsl_blas_dgemv(CblasTrans, 1, V, g, 0, c);
	for (size_t i = 0; i < s; i++) {
		double e = gsl_vector_get(ev, i), ci = gsl_vector_get(c, i);
		gsl_vector_set(u, i, e > 1e-300 ? ci * ci / e : 0);
	}
	double l = gcv_lambda(ev->data, u->data, s, yy, nt);
	for (size_t i = 0; i < s; i++) {
		double e = gsl_vector_get(ev, i);
		gsl_vector_set(c, i,
			       gsl_vector_get(c, i) / ((e > 0 ? e : 0) + l));
	}
	gsl_blas_dgemv(CblasNoTrans, 1, V, c, 0, beta);
out:
	gsl_vector_free(ev);
	gsl_vector_free(c);
	gsl_vector_free(u);
	gsl_matrix_free(V);
	if (w)
		gsl_eigen_symmv_free(w);
	return rc;
}

double mpp_fit_explained(const gsl_matrix *C, const gsl_vector *g,
			 const size_t *T, gsl_matrix *L, gsl_vector *gt,
			 gsl_vector *x)
{
	size_t t = L->size1;
	double e;

	for (size_t i = 0; i < t; i++) {
		for (size_t j = 0; j < t; j++)
			gsl_matrix_set(L, i, j, gsl_matrix_get(C, T[i], T[j]));
		gsl_vector_set(gt, i, gsl_vector_get(g, T[i]));
	}
	if (!solve_ridged(L, gt, x))
		return -INFINITY;
	gsl_blas_ddot(gt, x, &e);
	return e;
}

int mpp_fit_rank_dual(const gsl_matrix *Zc, const gsl_vector *yc,
		      gsl_vector *beta)
{
	size_t nt = Zc->size2;
	gsl_matrix *K = gsl_matrix_calloc(nt, nt),
		   *U = gsl_matrix_alloc(nt, nt);
	gsl_vector *ev = gsl_vector_alloc(nt), *c = gsl_vector_alloc(nt),
		   *u = gsl_vector_alloc(nt), *a = gsl_vector_alloc(nt);
	gsl_eigen_symmv_workspace *w = gsl_eigen_symmv_alloc(nt);
	double yy;
	int rc = MPP_OK;

	if (!K || !U || !ev || !c || !u || !a || !w) {
		rc = MPP_ENOMEM;
		goto out;
	}
	gsl_blas_dsyrk(CblasLower, CblasTrans, 1, Zc, 0, K);
	for (size_t i = 0; i < nt; i++)
		for (size_t j = i + 1; j < nt; j++)
			gsl_matrix_set(K, i, j, gsl_matrix_get(K, j, i));
	if (gsl_eigen_symmv(K, ev, U, w) != GSL_SUCCESS) {
		rc = MPP_EINVAL;
		goto out;
	}
	gsl_blas_dgemv(CblasTrans, 1, U, yc, 0, c);
	gsl_blas_ddot(yc, yc, &yy);
	for (size_t i = 0; i < nt; i++)
		gsl_vector_set(u, i,
			       gsl_vector_get(c, i) * gsl_vector_get(c, i));
	double l = gcv_lambda(ev->data, u->data, nt, yy, nt);
	for (size_t i = 0; i < nt; i++) {
		double e = gsl_vector_get(ev, i);
		gsl_vector_set(c, i,
			       gsl_vector_get(c, i) / ((e > 0 ? e : 0) + l));
	}
	gsl_blas_dgemv(CblasNoTrans, 1, U, c, 0, a);
	gsl_blas_dgemv(CblasNoTrans, 1, Zc, a, 0, beta);
out:
	gsl_matrix_free(K);
	gsl_matrix_free(U);
	gsl_vector_free(ev);
	gsl_vector_free(c);
	gsl_vector_free(u);
	gsl_vector_free(a);
	if (w)
		gsl_eigen_symmv_free(w);
	return rc;
}

/*
 * Least squares on the columns in P (inP[j] != 0): z gets the solution,
 * zero outside P. Returns the first column of P (in order) whose
 * Householder pivot is negligible (P is rank deficient), or -1.
 */
static long ls_on_set(const gsl_matrix *A, const gsl_vector *b, const char *inP,
		      gsl_vector *z, gsl_matrix *AP, gsl_vector *tau,
		      gsl_vector *zP, gsl_vector *res)
{
	size_t n = A->size1, p = A->size2, k = 0;
	long idx[p];

	for (size_t j = 0; j < p; j++)
		if (inP[j])
			idx[k++] = (long)j;
	gsl_matrix_view a = gsl_matrix_submatrix(AP, 0, 0, n, k);
	gsl_vector_view t = gsl_vector_subvector(tau, 0, k);
	gsl_vector_view x = gsl_vector_subvector(zP, 0, k);
	for (size_t c = 0; c < k; c++) {
		gsl_vector_const_view col = gsl_matrix_const_column(A, idx[c]);
		gsl_matrix_set_col(&a.matrix, c, &col.vector);
	}
	gsl_linalg_QR_decomp(&a.matrix, &t.vector);
	double rmax = 0;
	for (size_t c = 0; c < k; c++)
		rmax = fmax(rmax, fabs(gsl_matrix_get(&a.matrix, c, c)));
	for (size_t c = 0; c < k; c++)
		if (!(fabs(gsl_matrix_get(&a.matrix, c, c)) > 1e-11 * rmax))
			return idx[c];
	gsl_linalg_QR_lssolve(&a.matrix, &t.vector, b, &x.vector, res);
	gsl_vector_set_zero(z);
	for (size_t c = 0; c < k; c++)
		gsl_vector_set(z, idx[c], gsl_vector_get(&x.vector, c));
	return -1;
}

int mpp_fit_nnls(const gsl_matrix *A, const gsl_vector *b, size_t nfree,
		 gsl_vector *x)
{
	size_t n = A->size1, p = A->size2;
	gsl_matrix *AP = gsl_matrix_alloc(n, p);
	gsl_vector *tau = gsl_vector_alloc(p), *zP = gsl_vector_alloc(p),
		   *res = gsl_vector_alloc(n), *z = gsl_vector_alloc(p),
		   *r = gsl_vector_alloc(n), *w = gsl_vector_alloc(p);
	char *inP = calloc(p, 1), *banned = calloc(p, 1);
	int rc = MPP_OK;

	if (!AP || !tau || !zP || !res || !z || !r || !w || !inP || !banned) {
		rc = MPP_ENOMEM;
		goto out;
	}
	gsl_vector_set_zero(x);
	for (size_t j = 0; j < nfree; j++)
		inP[j] = 1;
	if (nfree && ls_on_set(A, b, inP, x, AP, tau, zP, res) >= 0) {
		rc = MPP_EINVAL;
		goto out;
	}
	double wtol = 0;
	gsl_blas_dgemv(CblasTrans, 1, A, b, 0, w);
	for (size_t j = 0; j < p; j++)
		wtol = fmax(wtol, fabs(gsl_vector_get(w, j)));
	wtol *= 1e-12;
	for (size_t iter = 0; iter < 3 * p + 10; iter++) {
		/* The most promising constrained column not yet used. */
		gsl_vector_memcpy(r, b);
		gsl_blas_dgemv(CblasNoTrans, -1, A, x, 1, r);
		gsl_blas_dgemv(CblasTrans, 1, A, r, 0, w);
		long jmax = -1;
		for (size_t j = nfree; j < p; j++)
			if (!inP[j] && !banned[j] &&
			    gsl_vector_get(w, j) > wtol &&
			    (jmax < 0 ||
			     gsl_vector_get(w, j) > gsl_vector_get(w, jmax)))
				jmax = (long)j;
		if (jmax < 0)
			break;
		inP[jmax] = 1;
		for (;;) {
			long dep = ls_on_set(A, b, inP, z, AP, tau, zP, res);
			if (dep >= 0) {
				/* Dependent on the columns already in P:
				 * it cannot lower the residual. */
				inP[dep] = 0;
				banned[dep] = 1;
				if (dep < (long)nfree) {
					rc = MPP_EINVAL;
					goto out;
				}
				continue;
			}
			double alpha = 2;
			long jalpha = -1;
			for (size_t j = nfree; j < p; j++) {
				double zj = gsl_vector_get(z, j),
				       xj = gsl_vector_get(x, j);
				if (inP[j] && zj <= 0 && xj - zj > 0 &&
				    xj / (xj - zj) < alpha) {
					alpha = xj / (xj - zj);
					jalpha = (long)j;
				}
			}
			if (alpha > 1) {
				gsl_vector_memcpy(x, z);
				break;
			}
			for (size_t j = 0; j < p; j++) {
				double xj = gsl_vector_get(x, j);
				gsl_vector_set(
				    x, j,
				    xj + alpha * (gsl_vector_get(z, j) - xj));
			}
			/* The column that hit zero leaves P, whatever the
			 * rounding left in it. */
			gsl_vector_set(x, jalpha, 0);
			for (size_t j = nfree; j < p; j++) {
				if (inP[j] && gsl_vector_get(x, j) <= 1e-15) {
					inP[j] = 0;
					gsl_vector_set(x, j, 0);
				}
			}
		}
	}
out:
	gsl_matrix_free(AP);
	gsl_vector_free(tau);
	gsl_vector_free(zP);
	gsl_vector_free(res);
	gsl_vector_free(z);
	gsl_vector_free(r);
	gsl_vector_free(w);
	free(inP);
	free(banned);
	return rc;
}

int mpp_fit_ridge_gcv(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x,
		      double *lambda)
{
	size_t n = A->size1, p = A->size2;
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, p);
	gsl_vector *reg = gsl_vector_alloc(60), *UTy = gsl_vector_alloc(p);
	double delta0, rnorm, snorm, best = INFINITY;
	int rc = MPP_OK;

	if (!w || !reg || !UTy) {
		rc = MPP_ENOMEM;
		goto out;
	}
	if (gsl_multifit_linear_svd(A, w) != GSL_SUCCESS ||
	    gsl_multifit_linear_gcv_init(b, reg, UTy, &delta0, w) !=
		GSL_SUCCESS) {
		rc = MPP_EINVAL;
		goto out;
	}
	/* GSL's own grid stops at the smallest singular value, which
	 * shrinks a well-posed fit for nothing; search from the largest down
	 * to 1e-9 of it, and zero (least squares). */
	double smax = gsl_vector_get(w->S, 0);
	*lambda = 0;
	for (int k = 0; k <= 60; k++) {
		double l = k == 60 ? 0 : smax * pow(10, -9.0 * k / 59);
		double g = gsl_multifit_linear_gcv_calc(l, UTy, delta0, w);
		if (g < best) {
			best = g;
			*lambda = l;
		}
	}
	if (gsl_multifit_linear_solve(*lambda, A, b, x, &rnorm, &snorm, w) !=
	    GSL_SUCCESS)
		rc = MPP_EINVAL;
out:
	if (w)
		gsl_multifit_linear_free(w);
	gsl_vector_free(reg);
	gsl_vector_free(UTy);
	return rc;
}

int mpp_fit_minnorm(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x)
{
	size_t n = A->size1, p = A->size2;
	int tall = n >= p;
	size_t big = tall ? n : p, small = tall ? p : n;
	gsl_matrix *U = gsl_matrix_alloc(big, small),
		   *V = gsl_matrix_alloc(small, small);
	gsl_vector *S = gsl_vector_alloc(small),
		   *work = gsl_vector_alloc(small),
		   *t = gsl_vector_alloc(small);
	int rc = MPP_OK;

	if (!U || !V || !S || !work || !t) {
		rc = MPP_ENOMEM;
		goto out;
	}
	if (tall)
		gsl_matrix_memcpy(U, A);
	else
		gsl_matrix_transpose_memcpy(U, A);
	if (gsl_linalg_SV_decomp(U, V, S, work) != GSL_SUCCESS) {
		rc = MPP_EINVAL;
		goto out;
	}
	/* tall: A = U S V^T, x = V S+ U^T b; wide: A = V S U^T,
	 * x = U S+ V^T b. */
	if (tall)
		gsl_blas_dgemv(CblasTrans, 1, U, b, 0, t);
	else
		gsl_blas_dgemv(CblasTrans, 1, V, b, 0, t);
	double cut = gsl_vector_get(S, 0) * (double)big * DBL_EPSILON;
	for (size_t i = 0; i < small; i++) {
		double s = gsl_vector_get(S, i);
		gsl_vector_set(t, i, s > cut ? gsl_vector_get(t, i) / s : 0);
	}
	if (tall)
		gsl_blas_dgemv(CblasNoTrans, 1, V, t, 0, x);
	else
		gsl_blas_dgemv(CblasNoTrans, 1, U, t, 0, x);
out:
	gsl_matrix_free(U);
	gsl_matrix_free(V);
	gsl_vector_free(S);
	gsl_vector_free(work);
	gsl_vector_free(t);
	return rc;
}

int mpp_fit_tsvd(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x)
{
	size_t n = A->size1, p = A->size2, rank;
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, p);
	gsl_matrix *cov = gsl_matrix_alloc(p, p);
	double chisq;
	int rc = MPP_OK;

	if (!w || !cov)
		rc = MPP_ENOMEM;
	else if (gsl_multifit_linear_tsvd(A, b, 1e-10, x, cov, &chisq, &rank,
					  w) != GSL_SUCCESS)
		rc = MPP_EINVAL;
	if (w)
		gsl_multifit_linear_free(w);
	gsl_matrix_free(cov);
	return rc;
}
