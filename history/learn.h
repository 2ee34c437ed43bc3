/*
 * learn.h: an online linear regression with an asymmetric, weighted
 * squared loss, for the learned history predictor (history.c, method
 * "learned"). It keeps the last `window` observations (feature vector,
 * target, weight) and refits every `every` new ones by iteratively
 * reweighted least squares (GSL's gsl_multifit_wlinear_tsvd): a residual
 * above the fit (the job ran longer than predicted: under-prediction)
 * weighs `under` times its base weight, one below it weighs 1 times. That
 * minimises sum w_i a_i (y_i - x_i.b)^2 with a_i = under when the fit
 * under-predicts: an expectile regression, the study's idea of a loss that
 * penalises under-predictions more (Gaussier, Glesser, Reis, Trystram,
 * SC'15), solved in batch on a sliding window instead of by their
 * stochastic gradient.
 *
 * Not a general regression library (regress/ fits the models of
 * instrumented apps); memory is fixed at creation (window x p doubles).
 * Not thread-safe: one thread at a time per mpp_learn.
 */
#ifndef MPP_HISTORY_LEARN_H
#define MPP_HISTORY_LEARN_H

#include <stddef.h>

typedef struct mpp_learn mpp_learn;

/* p features (the caller puts the constant 1 in x[0] if it wants an
 * intercept), the last `window` observations, a refit every `every` new
 * ones once at least `min_obs` are held, under > 0 (below 1: an
 * over-prediction weighs more than an under-prediction). NULL when out of
 * memory or the sizes are not positive. */
mpp_learn *mpp_learn_new(size_t p, size_t window, size_t every, size_t min_obs,
			 double under);
void mpp_learn_free(mpp_learn *l);

/* Adds one observation (x has p entries, w > 0, all finite) and refits
 * when due. Returns 0, MPP_EINVAL (a non-finite value or w <= 0: ignored),
 * MPP_ENOMEM. A failed fit keeps the previous coefficients. */
int mpp_learn_add(mpp_learn *l, const double *x, double y, double w);

/* x.b with the current coefficients into *y: 0, or -1 while nothing has
 * been fitted yet. */
int mpp_learn_predict(const mpp_learn *l, const double *x, double *y);

/* How many fits have been made; how many observations were added. */
size_t mpp_learn_nfits(const mpp_learn *l);
size_t mpp_learn_nobs(const mpp_learn *l);

#endif
