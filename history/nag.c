/*
 * nag.c: the normalised adaptive gradient on a composite loss (nag.h).
 * The dot products are GSL's BLAS; the rest is the per-coefficient update
 * rule of Ross, Mineiro and Langford (UAI 2013, algorithm NAG):
 *   s_i = max |x_i| seen; b_i is scaled by s_old / s_new when s_i grows;
 *   N += sum (x_i / s_i)^2; G_i += g_i^2;
 *   b_i -= eta g_i / (s_i sqrt(G_i N / n)), n the observations so far.
 */
#include "history/nag.h"

#include <gsl/gsl_blas.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

struct mpp_nag {
	size_t p, nobs;
	mpp_nag_loss loss;
	double N; /* sum over observations of |x / s|^2 */
	/* The state, 3p doubles: the coefficients b, the scales s, the sums
	 * of squared gradients G. A step is computed in `next` and copied
	 * over the state only when all of it is finite. */
	double *state, *next;
};

/* s and G within a state of 3p doubles (b is its start). */
#define SCALES(v, m) ((v) + (m)->p)
#define GRADS(v, m)  ((v) + 2 * (m)->p)

const mpp_nag_loss mpp_nag_study = {.over = MPP_NAG_SQUARE,
				    .over_g = 100,
				    .under = MPP_NAG_ABS,
				    .under_g = 1,
				    .thr = 60,
				    .eta = 5000,
				    .lambda = 4e9};

static int loss_ok(const mpp_nag_loss *l)
{
	return l && l->over >= MPP_NAG_ABS && l->over <= MPP_NAG_EXP &&
	       l->under >= MPP_NAG_ABS && l->under <= MPP_NAG_EXP &&
	       l->over_g > 0 && isfinite(l->over_g) && l->under_g > 0 &&
	       isfinite(l->under_g) && l->thr >= 0 && isfinite(l->thr) &&
	       l->eta > 0 && isfinite(l->eta) && l->lambda >= 0 &&
	       isfinite(l->lambda) && l->weight >= MPP_NAG_W1 &&
	       l->weight <= MPP_NAG_W1LOGMR;
}

static const char *weight_names[] = {"1", "5logrm", "5logmr", "11log1rm",
				     "1logmr"};

double mpp_nag_weight_of(int weight, double r, double m)
{
	double w;

	r = r > 1 ? r : 1;
	m = m > 1 ? m : 1;
	switch (weight) {
	case MPP_NAG_W5LOGRM:
		w = 5 + log(r / m);
		break;
	case MPP_NAG_W5LOGMR:
		w = 5 + log(m / r);
		break;
	case MPP_NAG_W11LOG1RM:
		w = 11 - log(r * m);
		break;
	case MPP_NAG_W1LOGMR:
		w = 1 + log(m * r);
		break;
	default:
		w = 1;
	}
	return w > 1e-3 ? w : 1e-3;
}

static int curve_parse(const char *s, size_t len, int *curve, double *g)
{
	static const char *names[] = {"abs", "square", "exp"};
	char buf[64], *colon, *end;

	if (len == 0 || len >= sizeof(buf))
		return -1;
	memcpy(buf, s, len);
	buf[len] = 0;
	colon = strchr(buf, ':');
	if (!colon)
		return -1;
	*colon = 0;
	*curve = -1;
	for (int i = 0; i < 3; i++)
		if (strcmp(buf, names[i]) == 0)
			*curve = i;
	*g = strtod(colon + 1, &end);
	return *curve < 0 || end == colon + 1 || *end || !(*g > 0) ||
		       !isfinite(*g)
		   ? -1
		   : 0;
}

int mpp_nag_loss_parse(const char *s, mpp_nag_loss *l, char *err, size_t errlen)
{
	const char *a = s ? strchr(s, '/') : NULL,
		   *b = a ? strchr(a + 1, '/') : NULL;
	const char *c = b ? strchr(b + 1, '/') : NULL;
	char *end;
	mpp_nag_loss v = mpp_nag_study;

	if (!a || !b) {
		snprintf(err, errlen, "'%s' is not OVER/UNDER/THRESHOLD",
			 s ? s : "");
		return -1;
	}
	if (curve_parse(s, (size_t)(a - s), &v.over, &v.over_g) ||
	    curve_parse(a + 1, (size_t)(b - a - 1), &v.under, &v.under_g)) {
		snprintf(err, errlen,
			 "'%s': a side is not abs|square|exp:G with G > 0", s);
		return -1;
	}
	v.thr = strtod(b + 1, &end);
	if (end == b + 1 || (c ? end != c : *end != 0) || !(v.thr >= 0) ||
	    !isfinite(v.thr)) {
		snprintf(err, errlen, "'%s': the threshold is not seconds >= 0",
			 s);
		return -1;
	}
	if (c) {
		v.weight = -1;
		for (int i = 0; i <= MPP_NAG_W1LOGMR; i++)
			if (strcmp(c + 1, weight_names[i]) == 0)
				v.weight = i;
		if (v.weight < 0) {
			snprintf(err, errlen,
				 "'%s': the weight is not 1, 5logrm, 5logmr, "
				 "11log1rm or 1logmr",
				 s);
			return -1;
		}
	}
	*l = v;
	return 0;
}

mpp_nag *mpp_nag_new(size_t p, const mpp_nag_loss *loss)
{
	mpp_nag *m;

	if (!p || !loss_ok(loss))
		return NULL;
	m = calloc(1, sizeof(*m));
	if (!m)
		return NULL;
	m->p = p;
	m->loss = *loss;
	m->state = calloc(3 * p, sizeof(*m->state));
	m->next = calloc(3 * p, sizeof(*m->next));
	if (!m->state || !m->next) {
		mpp_nag_free(m);
		return NULL;
	}
	return m;
}

void mpp_nag_free(mpp_nag *m)
{
	if (!m)
		return;
	free(m->state);
	free(m->next);
	free(m);
}

size_t mpp_nag_nobs(const mpp_nag *m)
{
	return m->nobs;
}

const mpp_nag_loss *mpp_nag_loss_of(const mpp_nag *m)
{
	return &m->loss;
}

static double dot(const double *a, const double *b, size_t p)
{
	gsl_vector_const_view va = gsl_vector_const_view_array(a, p);
	gsl_vector_const_view vb = gsl_vector_const_view_array(b, p);
	double r = 0;

	gsl_blas_ddot(&va.vector, &vb.vector, &r);
	return r;
}

double mpp_nag_predict(const mpp_nag *m, const double *x)
{
	return dot(m->state, x, m->p);
}

/* The derivative of a curve at e >= 0. exp's argument is bounded so that
 * one huge error cannot make every later step infinite. */
static double curve_d(int curve, double g, double e)
{
	switch (curve) {
	case MPP_NAG_ABS:
		return g;
	case MPP_NAG_SQUARE:
		return 2 * g * e;
	default:
		return g * exp(fmin(g * e, 700));
	}
}

int mpp_nag_fit(mpp_nag *m, const double *x, double y, double w)
{
	const mpp_nag_loss *l = &m->loss;
	double N = m->N, d, dl;
	double *b = m->next, *sc = SCALES(m->next, m), *G = GRADS(m->next, m);
	size_t p = m->p;

	if (!isfinite(y) || !(w > 0) || !isfinite(w))
		return MPP_EINVAL;
	for (size_t i = 0; i < p; i++)
		if (!isfinite(x[i]))
			return MPP_EINVAL;
	memcpy(m->next, m->state, 3 * p * sizeof(*m->next));
	/* The scales first: a feature larger than any before shrinks its
	 * coefficient by the same factor, so b_i x_i keeps its size. */
	for (size_t i = 0; i < p; i++) {
		double a = fabs(x[i]);
		if (a > sc[i]) {
			b[i] *= sc[i] / a;
			sc[i] = a;
		}
		if (sc[i] > 0)
			N += (x[i] / sc[i]) * (x[i] / sc[i]);
	}
	d = dot(b, x, p) - y;
	dl = d > l->thr    ? w * curve_d(l->over, l->over_g, d - l->thr)
	     : d == l->thr ? 0
			   : -w * curve_d(l->under, l->under_g, l->thr - d);
	for (size_t i = 0; i < p; i++) {
		double g = dl * x[i] + l->lambda * b[i];
		if (g == 0 || sc[i] == 0)
			continue;
		G[i] += g * g;
		b[i] -= l->eta * g /
			(sc[i] * sqrt(G[i] * N / (double)(m->nobs + 1)));
	}
	for (size_t i = 0; i < 3 * p; i++)
		if (!isfinite(m->next[i]))
			return MPP_EINVAL; /* the state is as before */
	memcpy(m->state, m->next, 3 * p * sizeof(*m->state));
	m->N = N;
	m->nobs++;
	return MPP_OK;
}
