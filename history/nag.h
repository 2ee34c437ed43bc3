/*
 * nag.h: an online linear model trained one observation at a time by the
 * normalised adaptive gradient (NAG: Ross, Mineiro, Langford, "Normalized
 * Online Learning", UAI 2013) on a composite, asymmetric loss. This is
 * the learner of the SC'15 study's predictor (Gaussier, Glesser, Reis,
 * Trystram, "Improving backfilling by using machine learning to predict
 * running times"), method "online" of history.h.
 *
 * The loss of a prediction p for an actual y, with d = p - y:
 *   d > thr  (over-predicted by more than thr):  w * over(d - thr)
 *   d <= thr (otherwise):                       w * under(thr - d)
 * where over and under are each one of abs (g|e|), square (g e^2) or exp
 * (exp(g e)) with their own g, and w is the observation's weight; plus an
 * L2 penalty lambda/2 |b|^2. thr > 0 puts the loss's minimum at thr
 * seconds of over-prediction.
 *
 * NAG keeps, per coefficient, the largest |x_i| seen (it rescales the
 * coefficient when that grows, so features of very different scales
 * need no normalising) and the sum of its squared gradients (AdaGrad's
 * step size). Each observation costs O(p); nothing is kept per
 * observation: memory is 6p doubles (the state and a step's copy).
 *
 * Not thread-safe: one thread at a time per mpp_nag.
 */
#ifndef MPP_HISTORY_NAG_H
#define MPP_HISTORY_NAG_H

#include <stddef.h>

typedef struct mpp_nag mpp_nag;

enum mpp_nag_curve { MPP_NAG_ABS, MPP_NAG_SQUARE, MPP_NAG_EXP };

/* A finished job's weight in the fit, from its run time r (s) and size m
 * (processors), the study's five: 1, 5 + ln(r/m), 5 + ln(m/r),
 * 11 + ln(1/(r m)), 1 + ln(m r); at least 1e-3 (a weight must be > 0). */
enum mpp_nag_weight {
	MPP_NAG_W1,
	MPP_NAG_W5LOGRM,
	MPP_NAG_W5LOGMR,
	MPP_NAG_W11LOG1RM,
	MPP_NAG_W1LOGMR
};
double mpp_nag_weight_of(int weight, double r, double m);

typedef struct mpp_nag_loss {
	int over, under;        /* enum mpp_nag_curve */
	double over_g, under_g; /* each curve's g > 0 */
	double thr;             /* seconds of over-prediction, >= 0 */
	double eta;             /* learning rate > 0 */
	double lambda;          /* L2 penalty >= 0 */
	int weight;             /* enum mpp_nag_weight: each job's w */
} mpp_nag_loss;

/* The SC'15 study's best setting on KTH-SP2 (its 45.80): over square 100,
 * under abs 1, thr 60, eta 5000, lambda 4e9. */
extern const mpp_nag_loss mpp_nag_study;

/* Parses "CURVE:G/CURVE:G/THR[/WEIGHT]", e.g. "square:100/abs:1/60"
 * (over, under, threshold; WEIGHT one of 1, 5logrm, 5logmr, 11log1rm,
 * 1logmr, default 1) into *l (eta and lambda as in mpp_nag_study). 0,
 * else -1 with a reason in err. */
int mpp_nag_loss_parse(const char *s, mpp_nag_loss *l, char *err,
		       size_t errlen);

/* p coefficients, all 0 at first. NULL when out of memory, p == 0 or the
 * loss is invalid. */
mpp_nag *mpp_nag_new(size_t p, const mpp_nag_loss *loss);
void mpp_nag_free(mpp_nag *m);

/* One gradient step on observation (x, y) with weight w > 0. MPP_EINVAL
 * when a value is not finite or w <= 0 (nothing changes), else 0. */
int mpp_nag_fit(mpp_nag *m, const double *x, double y, double w);

/* The model's value at x (0 before any fit). */
double mpp_nag_predict(const mpp_nag *m, const double *x);

size_t mpp_nag_nobs(const mpp_nag *m);
const mpp_nag_loss *mpp_nag_loss_of(const mpp_nag *m);

#endif
