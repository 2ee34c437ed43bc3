/*
 * fit.h: the least-squares solvers the trainer is built from, all on GSL
 * (internal to regress/; not installed).
 *
 * Each takes its inputs as GSL matrices and vectors that the caller owns and
 * fills the caller's output vector; inputs marked "overwritten" are used as
 * scratch. They return MPP_OK, MPP_ENOMEM, or MPP_EINVAL when the problem is
 * degenerate (e.g. a matrix that is not positive definite).
 */
#ifndef MPP_FIT_H
#define MPP_FIT_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

/*
 * Ranking fit from moments of nt runs: C (s x s, overwritten) is the
 * centred Gram matrix of the candidate columns, g their centred products
 * with the run times (overwritten), yy the centred sum of squares of the
 * run times. Fits on the columns scaled to unit norm: least squares (via
 * Cholesky) when nt >= 2 s, else ridge with the penalty minimising GCV
 * (eigen-decomposition). beta gets the coefficients of the unit-norm
 * columns, comparable in size across columns.
 */
int mpp_fit_rank_primal(gsl_matrix *C, gsl_vector *g, double yy, size_t nt,
			gsl_vector *beta);

/*
 * Scale the moments C (s x s) and g, in place, to the columns scaled to
 * unit norm: C_ij / sqrt(C_ii C_jj), g_i / sqrt(C_ii); a zero column stays
 * zero.
 */
int mpp_fit_unit_scale(gsl_matrix *C, gsl_vector *g);

/*
 * The part of the centred sum of squares that a least-squares fit on the
 * columns T[0..t) of unit-scaled moments (C, g; mpp_fit_unit_scale)
 * explains: g_T' C_TT^-1 g_T, with the tiny ridge of mpp_fit_rank_primal;
 * -INFINITY when C_TT is not positive definite. t is the size of the
 * caller's workspace: L (t x t), gt and x (t), all overwritten, so that a
 * search over many subsets allocates nothing.
 */
double mpp_fit_explained(const gsl_matrix *C, const gsl_vector *g,
			 const size_t *T, gsl_matrix *L, gsl_vector *gt,
			 gsl_vector *x);

/*
 * The same when columns outnumber runs: Zc (s x nt) holds each candidate
 * column centred and scaled to unit norm, yc the centred run times. Ridge in
 * its dual form (nt x nt kernel), penalty by GCV.
 */
int mpp_fit_rank_dual(const gsl_matrix *Zc, const gsl_vector *yc,
		      gsl_vector *beta);

/*
 * Non-negative least squares, Lawson-Hanson active set, each subproblem
 * solved with GSL's Householder QR: minimise |A x - b| with x[j] >= 0 for
 * j >= nfree (the first nfree columns, e.g. an intercept, are free).
 */
int mpp_fit_nnls(const gsl_matrix *A, const gsl_vector *b, size_t nfree,
		 gsl_vector *x);

/* Ridge regression of b on A (rows >= columns), the penalty chosen by GCV
 * (gsl_multifit_linear_gcv_calc over a grid down to least squares);
 * *lambda gets the penalty. */
int mpp_fit_ridge_gcv(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x,
		      double *lambda);

/* Minimum-norm least squares by SVD, singular values below
 * max(rows, cols) * DBL_EPSILON * the largest treated as zero (what
 * numpy.linalg.lstsq does), for any shape of A. */
int mpp_fit_minnorm(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x);

/* Least squares for a small well-posed problem (rows >= columns), truncated
 * SVD for rank deficiency (gsl_multifit_linear_tsvd). */
int mpp_fit_tsvd(const gsl_matrix *A, const gsl_vector *b, gsl_vector *x);

#endif
