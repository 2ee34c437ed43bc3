/*
 * placement_fit.c: the training side of placement.h: the machine profile
 * kept in the model and the power laws of a rank's traffic totals in the
 * job's parameters. Not for: evaluating them (placement.c).
 */
#include "regress/placement.h"

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regress/comm_feature.h"
#include "regress/fit.h"
#include "regress/profile_json.h"

/* The training runs: parameters and traffic totals of each. */
struct set {
	size_t n;
	mpp_params *params;
	double *x[MPP_NCOMM_LAWS]; /* n each */
	double *nprocs, *rpn;
	size_t nvars;
	const char **vars; /* names in params[0], usable in every run */
};

static void set_free(struct set *s)
{
	for (size_t r = 0; r < s->n; r++)
		mpp_params_free(&s->params[r]);
	free(s->params);
	for (int k = 0; k < MPP_NCOMM_LAWS; k++)
		free(s->x[k]);
	free(s->nprocs);
	free(s->rpn);
	free(s->vars);
}

static int load(const mpp_runs *rs, const size_t *rows, size_t nrows,
		struct set *s)
{
	long c = -1;

	for (size_t f = 0; f < rs->nfeatures; f++)
		if (!strcmp(rs->features[f], MPP_COMM_FEATURE))
			c = (long)f;
	s->params = calloc(nrows + 1, sizeof(*s->params));
	s->nprocs = malloc((nrows + 1) * sizeof(double));
	s->rpn = malloc((nrows + 1) * sizeof(double));
	for (int k = 0; k < MPP_NCOMM_LAWS; k++)
		s->x[k] = malloc((nrows + 1) * sizeof(double));
	if (!s->params || !s->nprocs || !s->rpn || !s->x[0] || !s->x[1] ||
	    !s->x[2] || !s->x[3])
		return MPP_ENOMEM;
	for (size_t i = 0; c >= 0 && i < nrows; i++) {
		size_t r = rows[i];
		const mpp_run *run = &rs->runs[r];
		mpp_loggps_traffic t;
		double tot[MPP_NCOMM_LAWS] = {0, 0, 0, 0};

		if (isnan(run->values[c]) || !(run->nprocs >= 1) ||
		    mpp_comm_traffic(rs, r, &t))
			continue;
		for (int l = 0; l < MPP_NLV; l++) {
			tot[MPP_COMM_LAW_P2P_MSGS] += t.p2p_msgs[l];
			tot[MPP_COMM_LAW_P2P_BYTES] += t.p2p_bytes[l];
			tot[MPP_COMM_LAW_COLL_MSGS] += t.coll_msgs[l];
			tot[MPP_COMM_LAW_COLL_BYTES] += t.coll_bytes[l];
		}
		if (mpp_params_from_string(run->args, run->nprocs, run->nnodes,
					   &s->params[s->n]))
			return MPP_ENOMEM;
		for (int k = 0; k < MPP_NCOMM_LAWS; k++)
			s->x[k][s->n] = tot[k];
		s->nprocs[s->n] = run->nprocs;
		s->rpn[s->n] = run->nnodes >= 1
				   ? ceil(run->nprocs / run->nnodes)
				   : run->nprocs;
		s->n++;
	}
	if (!s->n)
		return MPP_OK;
	/* Parameters every run shows as a positive number, and that vary. */
	s->vars = malloc((s->params[0].n + 1) * sizeof(*s->vars));
	if (!s->vars)
		return MPP_ENOMEM;
	for (size_t i = 0; i < s->params[0].n; i++) {
		const char *name = s->params[0].names[i];
		double lo = INFINITY, hi = -INFINITY;
		size_t r;

		for (r = 0; r < s->n; r++) {
			const double *v = mpp_params_get(&s->params[r], name);
			if (!v || !(*v > 0) || !isfinite(*v))
				break;
			lo = fmin(lo, *v);
			hi = fmax(hi, *v);
		}
		if (r == s->n && hi > lo)
			s->vars[s->nvars++] = name;
	}
	return MPP_OK;
}

/* log x = c0 + sum e_v log(var v) on the runs r with use[r] and x[r] > 0,
 * leaving out run `skip` (s->n: none); coef gets c0 and the exponents.
 * With fewer runs than coefficients the law is a constant. */
static int fit_law(const struct set *s, const double *x, const int *use,
		   size_t skip, double *coef)
{
	size_t nt = 0, p = s->nvars + 1;
	double sum = 0;
	gsl_matrix *A;
	gsl_vector *b, *c;
	int rc;

	for (size_t r = 0; r < s->n; r++)
		if (use[r] && r != skip && x[r] > 0) {
			nt++;
			sum += log(x[r]);
		}
	memset(coef, 0, p * sizeof(*coef));
	if (!nt)
		return MPP_EINVAL;
	if (nt < p + 1) {
		coef[0] = sum / (double)nt;
		return MPP_OK;
	}
	A = gsl_matrix_alloc(nt, p);
	b = gsl_vector_alloc(nt);
	c = gsl_vector_alloc(p);
	if (!A || !b || !c) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t r = 0, row = 0; r < s->n; r++) {
		if (!use[r] || r == skip || !(x[r] > 0))
			continue;
		gsl_matrix_set(A, row, 0, 1);
		for (size_t v = 0; v < s->nvars; v++)
			gsl_matrix_set(
			    A, row, 1 + v,
			    log(*mpp_params_get(&s->params[r], s->vars[v])));
		gsl_vector_set(b, row++, log(x[r]));
	}
	rc = mpp_fit_tsvd(A, b, c);
	for (size_t v = 0; rc == MPP_OK && v < p; v++)
		coef[v] = gsl_vector_get(c, v);
out:
	gsl_matrix_free(A);
	gsl_vector_free(b);
	gsl_vector_free(c);
	return rc;
}

static double eval_law(const struct set *s, size_t r, const double *coef)
{
	double l = coef[0];

	for (size_t v = 0; v < s->nvars; v++)
		l += coef[1 + v] *
		     log(*mpp_params_get(&s->params[r], s->vars[v]));
	return exp(l);
}

/* The law of total k into pm: zero_serial when the total is 0 exactly on
 * the one-rank runs; predictable 0 when it is 0 on every run; cv_mape by
 * leave-one-out over the runs it is fitted on. */
static int fit_total(const struct set *s, const double *x, mpp_param_model *pm)
{
	size_t npos = 0, nserial0 = 0, nserial = 0, n = 0;
	double *coef = malloc((s->nvars + 1) * sizeof(*coef)), sum = 0;
	int *use = malloc(s->n * sizeof(*use)), rc = MPP_OK;

	if (!coef || !use) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < s->n; r++) {
		npos += x[r] > 0;
		nserial += s->nprocs[r] == 1;
		nserial0 += s->nprocs[r] == 1 && x[r] == 0;
		use[r] = 1;
	}
	if (!npos) {
		pm->predictable = 0;
		pm->log_c = 0;
		pm->cv_mape = 0;
		goto out;
	}
	pm->zero_serial = nserial && nserial0 == nserial;
	for (size_t r = 0; r < s->n; r++)
		use[r] = !(pm->zero_serial && s->nprocs[r] == 1);
	for (size_t r = 0; r < s->n && s->n <= 1000; r++) {
		if (!use[r] || !(x[r] > 0) || fit_law(s, x, use, r, coef))
			continue;
		sum += fabs(eval_law(s, r, coef) - x[r]) / x[r];
		n++;
	}
	pm->cv_mape = n ? 100 * sum / (double)n : NAN;
	rc = fit_law(s, x, use, s->n, coef);
	if (rc)
		goto out;
	pm->predictable = 1;
	pm->log_c = coef[0];
	pm->vars = calloc(s->nvars + 1, sizeof(*pm->vars));
	pm->expo = calloc(s->nvars + 1, sizeof(*pm->expo));
	if (!pm->vars || !pm->expo) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t v = 0; v < s->nvars; v++) {
		if (!(pm->vars[v] = strdup(s->vars[v]))) {
			rc = MPP_ENOMEM;
			goto out;
		}
		pm->expo[v] = coef[1 + v];
		pm->nvars = v + 1;
	}
out:
	free(coef);
	free(use);
	return rc;
}

/* Append the range of ranks per node to m's ranges. */
static int add_range(mpp_model *m, const struct set *s)
{
	double lo = INFINITY, hi = -INFINITY;
	size_t n = m->nranges + 1;
	char **nm;
	double *l, *h;

	for (size_t r = 0; r < s->n; r++) {
		lo = fmin(lo, s->rpn[r]);
		hi = fmax(hi, s->rpn[r]);
	}
	if (!(nm = realloc(m->range_names, n * sizeof(*nm))))
		return MPP_ENOMEM;
	m->range_names = nm;
	if (!(l = realloc(m->range_lo, n * sizeof(*l))))
		return MPP_ENOMEM;
	m->range_lo = l;
	if (!(h = realloc(m->range_hi, n * sizeof(*h))))
		return MPP_ENOMEM;
	m->range_hi = h;
	if (m->range_group) { /* a group of its own */
		size_t *g = realloc(m->range_group, n * sizeof(*g));
		if (!g)
			return MPP_ENOMEM;
		m->range_group = g;
		g[m->nranges] = m->nranges;
	}
	if (!(nm[m->nranges] = strdup(MPP_RANKS_PER_NODE)))
		return MPP_ENOMEM;
	l[m->nranges] = lo;
	h[m->nranges++] = hi;
	return MPP_OK;
}

int mpp_placement_fit(mpp_model *m, const mpp_runs *rs, const size_t *rows,
		      size_t nrows, const char *name, const char *profile_json,
		      char *err, size_t errlen)
{
	struct set s = {0};
	mpp_loggps_profile *p;
	int rc;

	long i = mpp_model_find_term(m, MPP_COMM_FEATURE);

	/* Only a term that is model:comm_s itself (an alias of a raw column
	 * has that column's unit). */
	if (!profile_json || i < 0 ||
	    strcmp(m->terms[i].feature, MPP_COMM_FEATURE))
		return MPP_OK;
	rc = load(rs, rows, nrows, &s);
	if (rc || !s.n)
		goto out;
	if (!(p = calloc(1, sizeof(*p)))) {
		rc = MPP_ENOMEM;
		goto out;
	}
	if (mpp_profile_from_json(name, profile_json, p, err, errlen) < 0) {
		free(p);
		rc = MPP_EINVAL;
		goto out;
	}
	for (int k = 0; rc == MPP_OK && k < MPP_NCOMM_LAWS; k++)
		rc = fit_total(&s, s.x[k], &m->comm_laws[k]);
	if (rc == MPP_OK)
		rc = add_range(m, &s);
	if (rc == MPP_OK && !(m->comm_profile_json = strdup(profile_json)))
		rc = MPP_ENOMEM;
	if (rc == MPP_OK)
		m->comm_profile = p;
	else {
		mpp_loggps_profile_clear(p);
		free(p);
	}
out:
	if (rc == MPP_ENOMEM && err)
		snprintf(err, errlen, "out of memory");
	set_free(&s);
	return rc;
}
