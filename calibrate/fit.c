/*
 * fit.c: least squares for the LogGPS parameters (fit.h), with GSL's
 * gsl_multifit_linear; a parameter's residual is the square root of its
 * diagonal entry in the fit's covariance (the standard error).
 *
 * Not for: deciding which experiments to run.
 */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "calibrate/fit.h"

/* The sizes of the experiments (experiments.h), here with the fit that
 * depends on them. Overheads use sizes below every eager limit seen here
 * (OpenMPI vader 4 KiB with its header), so MPI_Send returns after a copy. */
const double cal_over_sizes[CAL_NOVER] = {8, 256, 512, 1024, 2048};
const double cal_rt_sizes[CAL_NRT] = {8, 1024, 8192, 65536, 262144, 1048576};
const double cal_cont_sizes[CAL_NCONT] = {8, 4096, 65536, 524288};

/* y = X c weighted by 1 / t^2 (t: the timing behind each row, so that
 * relative errors count alike and the 1 MiB round trip does not drown the
 * 8-byte one); c and its standard errors se (p entries). */
static int lsq(gsl_matrix *X, gsl_vector *y, const double *t, double *c,
	       double *se, char *err, size_t errlen)
{
	size_t n = X->size1, p = X->size2, i;
	gsl_vector *cv = gsl_vector_alloc(p);
	gsl_matrix *cov = gsl_matrix_alloc(p, p);
	gsl_vector *wt = gsl_vector_alloc(n);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, p);
	double chisq;
	int rc = -1;

	for (i = 0; wt && i < n; i++)
		gsl_vector_set(wt, i, 1 / (t[i] > 1e-9 ? t[i] * t[i] : 1e-18));
	if (!cv || !cov || !w || !wt)
		snprintf(err, errlen, "out of memory");
	else if (gsl_multifit_wlinear(X, wt, y, cv, cov, &chisq, w) !=
		 GSL_SUCCESS)
		snprintf(err, errlen, "least squares failed");
	else {
		/* GSL's cov is (X'WX)^-1 with the weights taken as exact;
		 * scale it by the weighted residual variance. */
		double s2 = n > p ? chisq / (double)(n - p) : NAN;

		for (i = 0; i < p; i++) {
			c[i] = gsl_vector_get(cv, i);
			se[i] = sqrt(s2 * gsl_matrix_get(cov, i, i));
		}
		rc = 0;
	}
	gsl_vector_free(cv);
	gsl_vector_free(wt);
	gsl_matrix_free(cov);
	if (w)
		gsl_multifit_linear_free(w);
	return rc;
}

int cal_fit_level(const struct cal_timings *t, int m, mpp_loggps_level *l,
		  char *err, size_t errlen)
{
	gsl_matrix *X3 = gsl_matrix_calloc(2 * CAL_NOVER, 3);
	gsl_matrix *X2 = gsl_matrix_alloc(CAL_NRT, 2);
	gsl_matrix *Xc = gsl_matrix_alloc(CAL_NCONT, 2);
	gsl_vector *y3 = gsl_vector_alloc(2 * CAL_NOVER);
	gsl_vector *y2 = gsl_vector_alloc(CAL_NRT);
	gsl_vector *yc = gsl_vector_alloc(CAL_NCONT);
	double c[3], se[3], sum = 0, ss = 0, t3[2 * CAL_NOVER], tc[CAL_NCONT];
	int i, s, rc = -1;

	gsl_set_error_handler_off();
	*l = (mpp_loggps_level){0};
	l->nh = m > 0 ? m : 1;
	l->h = malloc((size_t)l->nh * sizeof *l->h);
	l->C = malloc((size_t)l->nh * sizeof *l->C);
	if (!X3 || !X2 || !Xc || !y3 || !y2 || !yc || !l->h || !l->C) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (i = 0; i < l->nh; i++)
		l->h[i] = l->C[i] = NAN;
	/* o, Os, Or: sends [1 k 0], receives [1 0 k]. */
	for (s = 0; s < CAL_NOVER; s++) {
		gsl_matrix_set(X3, 2 * s, 0, 1);
		gsl_matrix_set(X3, 2 * s, 1, cal_over_sizes[s]);
		gsl_vector_set(y3, 2 * s, t->send[s]);
		t3[2 * s] = t->send[s];
		t3[2 * s + 1] = t->recv[s];
		gsl_matrix_set(X3, 2 * s + 1, 0, 1);
		gsl_matrix_set(X3, 2 * s + 1, 2, cal_over_sizes[s]);
		gsl_vector_set(y3, 2 * s + 1, t->recv[s]);
	}
	if (lsq(X3, y3, t3, c, se, err, errlen) < 0)
		goto out;
	l->o = c[0], l->Os = c[1], l->Or = c[2];
	l->residual.o = se[0], l->residual.Os = se[1], l->residual.Or = se[2];
	/* L, G from the uncontended one-way times. */
	for (s = 0; s < CAL_NRT; s++) {
		double k = cal_rt_sizes[s];

		gsl_matrix_set(X2, s, 0, 1);
		gsl_matrix_set(X2, s, 1, k);
		gsl_vector_set(y2, s,
			       t->rt[s] - 2 * l->o - k * (l->Os + l->Or));
	}
	if (lsq(X2, y2, t->rt, c, se, err, errlen) < 0)
		goto out;
	l->L = c[0], l->G = c[1];
	l->residual.L = sqrt(se[0] * se[0] + 4 * l->residual.o * l->residual.o);
	l->residual.G = se[1];
	/* g: mean and standard error of the gap samples. */
	for (i = 0; i < t->ngap; i++)
		sum += t->gap[i];
	l->g = t->ngap ? sum / t->ngap : NAN;
	for (i = 0; i < t->ngap; i++)
		ss += (t->gap[i] - l->g) * (t->gap[i] - l->g);
	l->residual.g = t->ngap > 1 ? sqrt(ss / (t->ngap - 1) / t->ngap) : NAN;
	/* h(j), C(j): contended minus uncontended, = 2 h + k C. */
	l->residual.h = l->residual.C = NAN;
	for (i = 0; i < t->ncont; i++) {
		int j = t->cont_j[i];

		for (s = 0; s < CAL_NCONT; s++) {
			double k = cal_cont_sizes[s];

			gsl_matrix_set(Xc, s, 0, 2);
			gsl_matrix_set(Xc, s, 1, k);
			gsl_vector_set(
			    yc, s, t->cont[i][s] - mpp_loggps_msg_s(l, k, 0));
			tc[s] = t->cont[i][s];
		}
		if (lsq(Xc, yc, tc, c, se, err, errlen) < 0)
			goto out;
		if (j >= 1 && j <= l->nh) {
			l->h[j - 1] = c[0];
			l->C[j - 1] = c[1];
			if (isnan(l->residual.h) || se[0] > l->residual.h)
				l->residual.h = se[0];
			if (isnan(l->residual.C) || se[1] > l->residual.C)
				l->residual.C = se[1];
		}
	}
	l->samples = t->samples;
	rc = 0;
out:
	gsl_matrix_free(X3);
	gsl_matrix_free(X2);
	gsl_matrix_free(Xc);
	gsl_vector_free(y3);
	gsl_vector_free(y2);
	gsl_vector_free(yc);
	if (rc < 0) {
		free(l->h);
		free(l->C);
		l->h = l->C = NULL;
	}
	return rc;
}
