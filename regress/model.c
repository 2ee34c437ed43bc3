/*
 * model.c: the model type's life cycle and its two predict() paths
 * (model.h). Fitting is in regress/train.c, storing in schema/store.c.
 */
#include "regress/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regress/comm_feature.h"
#include "regress/loggps.h"
#include "regress/memory.h"
#include "regress/placement.h"

mpp_model *mpp_model_new(void)
{
	mpp_model *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->cv_mape = NAN;
	m->cv_mape_params = NAN;
	m->rel_lo = m->rel_hi = 1;
	m->prel_lo = m->prel_hi = 1;
	m->xlo = m->xhi = 1;
	m->x_mape = NAN;
	m->law.cv_mape = NAN;
	return m;
}

static void param_model_free(mpp_param_model *pm)
{
	for (size_t j = 0; j < pm->nvars; j++)
		free(pm->vars[j]);
	free(pm->vars);
	free(pm->expo);
	free(pm->edges);
}

void mpp_model_free(mpp_model *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nterms; i++) {
		mpp_term *t = &m->terms[i];
		free(t->feature);
		for (size_t a = 0; a < t->naliases; a++)
			free(t->aliases[a]);
		free(t->aliases);
		param_model_free(&t->pm);
	}
	free(m->terms);
	param_model_free(&m->law);
	for (int k = 0; k < MPP_NCOMM_LAWS; k++)
		param_model_free(&m->comm_laws[k]);
	param_model_free(&m->mem_law);
	param_model_free(&m->progress);
	free(m->progress_feature);
	free(m->mem);
	free(m->comm_profile_json);
	if (m->comm_profile) {
		mpp_loggps_profile_clear(m->comm_profile);
		free(m->comm_profile);
	}
	for (size_t i = 0; i < m->nranges; i++)
		free(m->range_names[i]);
	free(m->range_names);
	free(m->range_lo);
	free(m->range_group);
	free(m->range_hi);
	free(m->pcoef);
	free(m->app);
	free(m->build_id);
	free(m->method);
	free(m->fit);
	free(m);
}

int mpp_model_has_build(const mpp_model *m, const char *build)
{
	size_t n = strlen(build);

	for (const char *b = m->build_id; b && *b;) {
		const char *end = strchr(b, '+');
		size_t len = end ? (size_t)(end - b) : strlen(b);
		if (len == n && strncmp(b, build, n) == 0)
			return 1;
		b += len + (end != NULL);
	}
	return 0;
}

long mpp_model_find_term(const mpp_model *m, const char *name)
{
	for (size_t i = 0; i < m->nterms; i++) {
		const mpp_term *t = &m->terms[i];
		if (strcmp(t->feature, name) == 0)
			return (long)i;
		for (size_t a = 0; a < t->naliases; a++)
			if (strcmp(t->aliases[a], name) == 0)
				return (long)i;
	}
	return -1;
}

/*
 * The answer, or MPP_EINVAL when the model's value is not a positive run
 * time: a linear model far from its training runs can go to zero or below
 * (the seed's least squares has negative coefficients), and a job never
 * runs 0 s, so the input is refused, naming the value and the method,
 * rather than answered with a time the scheduler would believe. The
 * interval scales the point value.
 */
static int finish(const mpp_model *m, const char *basis, double runtime,
		  double lo, double hi, mpp_prediction *out, char *err,
		  size_t errlen)
{
	/* An interval wider than MPP_MAX_SPREAD (upper / lower) bounds
	 * nothing a scheduler can use: the held-out runs it comes from were
	 * predicted at a small fraction of their time (a kept counter that the
	 * job's parameters do not predict, a regime seen in a few runs, or a
	 * method whose fit errs wildly). Refused, saying so, rather than
	 * answered with, e.g., [1.41, 1180] s (issue 15). */
	if (!(hi <= lo * MPP_MAX_SPREAD)) {
		if (err)
			snprintf(err, errlen,
				 "%s: the model's (method %s) interval from "
				 "cross-validation spans x[%.3g, %.3g], over "
				 "%gx: some held-out training runs took far "
				 "longer or shorter than predicted, so no sane "
				 "bound can be given",
				 basis, m->method ? m->method : "?", lo, hi,
				 (double)MPP_MAX_SPREAD);
		return MPP_EINVAL;
	}
	if (!(runtime > 0) && !isnan(runtime)) {
		if (err)
			snprintf(err, errlen,
				 "%s: the model (method %s) gives %.4g s, not "
				 "a positive run time, for these inputs: "
				 "they are too far from its training runs",
				 basis, m->method ? m->method : "?", runtime);
		return MPP_EINVAL;
	}
	out->runtime_s = runtime;
	out->lower_s = runtime * lo;
	out->upper_s = runtime * hi;
	return MPP_OK;
}

/* Value of the term's feature (or one of its aliases) among f, or NULL. */
static const mpp_kv *find_value(const mpp_term *t, const mpp_kv *f, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		if (strcmp(f[k].name, t->feature) == 0)
			return &f[k];
		for (size_t a = 0; a < t->naliases; a++)
			if (strcmp(f[k].name, t->aliases[a]) == 0)
				return &f[k];
	}
	return NULL;
}

/* Job p's value of range i, or NULL when p does not show it (tmp holds a
 * value computed here). */
static const double *range_value(const mpp_model *m, const mpp_params *p,
				 size_t i, double *tmp)
{
	const double *v = mpp_params_get(p, m->range_names[i]);

	/* Ranks per node: the job's placement (placement.h). */
	if (!v && !strcmp(m->range_names[i], MPP_RANKS_PER_NODE) &&
	    (*tmp = mpp_placement_nodes(m, p)) >= 1) {
		*tmp = ceil(*mpp_params_get(p, "nprocs") / *tmp);
		v = tmp;
	}
	return v;
}

/* The ranges p is outside, named in out->extrapolated. A parameter the
 * job does not show is not judged. */
static void judge_ranges(const mpp_model *m, const mpp_params *p,
			 mpp_prediction *out)
{
	out->nextrapolated = 0;
	out->xdistance = mpp_model_xdistance(m, NULL, NULL, p);
	for (size_t i = 0; p && i < m->nranges; i++) {
		double tmp;
		const double *v = range_value(m, p, i, &tmp);
		if (!v || (*v >= m->range_lo[i] && *v <= m->range_hi[i]))
			continue;
		if (out->nextrapolated < MPP_MAX_EXTRAPOLATED)
			out->extrapolated[out->nextrapolated++] =
			    m->range_names[i];
	}
}

size_t mpp_model_range_group(const mpp_model *m, const char *name)
{
	for (size_t i = 0; i < m->nranges; i++)
		if (!strcmp(m->range_names[i], name))
			return m->range_group ? m->range_group[i] : i;
	return (size_t)-1;
}

double mpp_model_xdistance(const mpp_model *m, const double *lo,
			   const double *hi, const mpp_params *p)
{
	double sum = 0;

	if (!lo || !hi) {
		lo = m->range_lo;
		hi = m->range_hi;
	}
	/* Each group is counted at its first member (its root). */
	for (size_t g = 0; p && g < m->nranges; g++) {
		double far = 0;
		if (m->range_group && m->range_group[g] != g)
			continue;
		for (size_t i = g; i < m->nranges; i++) {
			double tmp;
			const double *v;
			if (i != g &&
			    (!m->range_group || m->range_group[i] != g))
				continue;
			if (!(v = range_value(m, p, i, &tmp)) || !(*v > 0))
				continue;
			if (*v > hi[i] && hi[i] > 0)
				far = fmax(far, log(*v / hi[i]));
			else if (*v < lo[i] && lo[i] > 0)
				far = fmax(far, log(lo[i] / *v));
		}
		sum += far;
	}
	return sum;
}

/* The interval of an answer outside a range: the wider of its own and
 * the extrapolation checks' factors, those raised to distance / xdist
 * when the answer is farther out than the checks were, at most to
 * XK_MAX: a design of random sizes checks a hair past its range (gen-md:
 * 0.025), where a check's error is the runs' noise, not a slope, and
 * 5 % compounded 18 times bounded nothing (15 to 746 s for 87). */
#define XK_MAX 4.0
static void widen_past(const mpp_model *m, const mpp_prediction *out,
		       double *lo, double *hi)
{
	double k = 1;

	if (!out->nextrapolated)
		return;
	if (m->xdist > 0 && out->xdistance > m->xdist)
		k = fmin(out->xdistance / m->xdist, XK_MAX);
	*lo = fmin(*lo, exp(k * log(m->xlo)));
	*hi = fmax(*hi, exp(k * log(m->xhi)));
}

/* Ranks per node of the job p (1 when p does not say). */
static double ranks_per_node(const mpp_model *m, const mpp_params *p)
{
	const double *np = p ? mpp_params_get(p, "nprocs") : NULL;
	double nodes = p ? mpp_placement_nodes(m, p) : 0;

	return np && nodes >= 1 && *np >= nodes ? ceil(*np / nodes) : 1;
}

/* A rank's peak memory (KiB) by the model's power law at p, or NAN. */
static double mem_law_kib(const mpp_model *m, const mpp_params *p)
{
	double l = m->mem_law.log_c;

	if (!p || !m->mem_law.predictable)
		return NAN;
	for (size_t j = 0; j < m->mem_law.nvars; j++) {
		const double *v = mpp_params_get(p, m->mem_law.vars[j]);
		if (!v || !(*v > 0))
			return NAN;
		l += m->mem_law.expo[j] * log(*v);
	}
	return m->mem_a + m->mem_b * exp(l);
}

/* The memory regime's factor into out (memory.h): the footprint from
 * rss_kib (a rank's peak memory; NAN: from the model's law at p). 1 for a
 * model without one; MPP_EINVAL naming what is missing. */
static int mem_factor(const mpp_model *m, double rss_kib, const mpp_params *p,
		      double rpn, mpp_prediction *out, char *err, size_t errlen)
{
	out->mem_factor = 1;
	out->mem_node_kib = NAN;
	if (!(m->mem_beta > 0) || !m->mem)
		return MPP_OK;
	if (!(rss_kib > 0))
		rss_kib = mem_law_kib(m, p);
	if (!(rss_kib > 0)) {
		if (err)
			snprintf(err, errlen,
				 "missing feature %s: the model scales its "
				 "answers by the memory regime, and the job's "
				 "parameters do not give its footprint",
				 MPP_MEM_FEATURE);
		return MPP_EINVAL;
	}
	out->mem_node_kib = rss_kib * rpn;
	out->mem_factor =
	    mpp_mem_factor(m->mem, m->mem_beta, out->mem_node_kib, rpn);
	return MPP_OK;
}

static int predict_run(const mpp_model *m, const mpp_kv *f, size_t n,
		       const mpp_params *p, int judge, double rpn,
		       mpp_prediction *out, char *err, size_t errlen)
{
	judge_ranges(m, judge ? p : NULL, out);
	double y = m->intercept, rss = NAN;

	for (size_t k = 0; k < n; k++)
		if (!strcmp(f[k].name, MPP_MEM_FEATURE))
			rss = f[k].value;
	for (size_t i = 0; i < m->nterms; i++) {
		const mpp_term *t = &m->terms[i];
		const mpp_kv *kv = find_value(t, f, n);
		if (!kv) {
			if (err)
				snprintf(err, errlen, "missing feature %s",
					 t->feature);
			return MPP_EINVAL;
		}
		if (!isfinite(kv->value) || kv->value < 0) {
			if (err)
				snprintf(err, errlen,
					 "feature %s: value %g is not a finite "
					 "number >= 0",
					 kv->name, kv->value);
			return MPP_EINVAL;
		}
		y += t->coef * kv->value;
	}
	out->path = MPP_PATH_FEATURES;
	if (mem_factor(m, rss, p, rpn, out, err, errlen))
		return MPP_EINVAL;
	y *= out->mem_factor;
	/* Outside a range, the wider of its own interval and the one
	 * training's extrapolation check measured. */
	double lo = m->rel_lo, hi = m->rel_hi;
	widen_past(m, out, &lo, &hi);
	return finish(m, "features", y, lo, hi, out, err, errlen);
}

int mpp_model_predict_features(const mpp_model *m, const mpp_kv *f, size_t n,
			       const mpp_params *p, mpp_prediction *out,
			       char *err, size_t errlen)
{
	return predict_run(m, f, n, p, 1, ranks_per_node(m, p), out, err,
			   errlen);
}

int mpp_model_predict_run(const mpp_model *m, const mpp_kv *f, size_t n,
			  const mpp_params *p, double rpn, mpp_prediction *out,
			  char *err, size_t errlen)
{
	return predict_run(m, f, n, p, 0, rpn, out, err, errlen);
}

const char *mpp_path_name(int path)
{
	return path == MPP_PATH_FEATURES     ? "features"
	       : path == MPP_PATH_PARAMETERS ? "parameters"
					     : "runtime-law";
}

/* A parameter the model needs, as a positive finite number, or
 * MPP_EINVAL naming it and what needs it. */
/* The largest value of parameter name in training (NAN: no range). */
static double range_example(const mpp_model *m, const char *name)
{
	for (size_t i = 0; i < m->nranges; i++)
		if (!strcmp(m->range_names[i], name))
			return m->range_hi[i];
	return NAN;
}

static int need_param(const mpp_model *m, const mpp_params *p, const char *name,
		      const char *what, double *v, char *err, size_t errlen)
{
	const double *x = mpp_params_get(p, name);

	if (!x || !(*x > 0) || !isfinite(*x)) {
		char hint[256];
		/* A missing one names how the job gives it: the user knows
		 * the job, not the model's parameter names. */
		mpp_params_hint(name, range_example(m, name), hint,
				sizeof(hint));
		if (err)
			snprintf(err, errlen,
				 "parameter %s: %s (needed for %s)%s%s", name,
				 x ? "not a positive number" : "missing", what,
				 x ? "" : "; ", x ? "" : hint);
		return MPP_EINVAL;
	}
	*v = *x;
	return MPP_OK;
}

/* p lies above the training range of a parameter of group g. */
static int above_group(const mpp_model *m, const mpp_params *p, size_t g)
{
	for (size_t i = 0; i < m->nranges; i++) {
		double tmp;
		const double *v = range_value(m, p, i, &tmp);
		if ((i == g || (m->range_group && m->range_group[i] == g)) &&
		    v && *v > m->range_hi[i])
			return 1;
	}
	return 0;
}

double mpp_model_law_count(const mpp_model *m, const mpp_param_model *pm,
			   const mpp_params *p)
{
	const double *np = mpp_params_get(p, "nprocs");
	double logx = pm->log_c;

	if (!pm->predictable)
		return NAN;
	if (pm->zero_serial && np && *np == 1)
		return 0;
	for (size_t j = 0; j < pm->nvars; j++) {
		const double *v = mpp_params_get(p, pm->vars[j]);
		if (!v || !(*v > 0) || !isfinite(*v))
			return NAN;
		logx += pm->expo[j] * log(*v);
	}
	/* An edge law: its group's part of the power law, z, rescaled to
	 * the slope of the top of the range (model.h). */
	for (size_t k = 0; k < pm->nedges; k++) {
		const struct mpp_edge_law *e = &pm->edges[k];
		double z = 0;
		if (!above_group(m, p, e->range))
			continue;
		for (size_t j = 0; j < pm->nvars; j++)
			if (mpp_model_range_group(m, pm->vars[j]) == e->range)
				z += pm->expo[j] *
				     log(*mpp_params_get(p, pm->vars[j]));
		logx += e->a + (e->b - 1) * z;
	}
	return exp(logx);
}

/* The counters path: parameters -> each kept counter -> run time. */
static int counters_path(const mpp_model *m, const mpp_params *p, double *y,
			 char *err, size_t errlen)
{
	const double *pc = m->pcoef;
	*y = m->pcoef ? m->pintercept : m->intercept;
	for (size_t i = 0; i < m->nterms; i++) {
		const mpp_term *t = &m->terms[i];
		double coef = pc ? pc[i] : t->coef;
		/* Without a parameters-path fit of its own, a term that
		 * cannot be predicted refuses, whatever the coefficient. */
		if (coef == 0 && (m->pcoef || t->pm.predictable))
			continue;
		/* model:comm_s for the job's placement (placement.h). */
		if (mpp_placement_active(m) &&
		    !strcmp(t->feature, MPP_COMM_FEATURE)) {
			double x;
			if (mpp_placement_comm_s(m, p, &x, err, errlen))
				return MPP_EINVAL;
			*y += coef * x;
			continue;
		}
		if (!t->pm.predictable) {
			if (err)
				snprintf(err, errlen,
					 "feature %s cannot be predicted from "
					 "job parameters",
					 t->feature);
			return MPP_EINVAL;
		}
		if (t->pm.zero_serial) {
			double np;
			if (need_param(m, p, "nprocs", t->feature, &np, err,
				       errlen))
				return MPP_EINVAL;
			if (np == 1)
				continue;
		}
		for (size_t j = 0; j < t->pm.nvars; j++) {
			double v;
			if (need_param(m, p, t->pm.vars[j], t->feature, &v, err,
				       errlen))
				return MPP_EINVAL;
		}
		*y += coef * mpp_model_law_count(m, &t->pm, p);
	}
	return MPP_OK;
}

/* The run-time law: parameters -> run time. */
static int law_path(const mpp_model *m, const mpp_params *p, double *y,
		    char *err, size_t errlen)
{
	double l = m->law.log_c;

	for (size_t j = 0; j < m->law.nvars; j++) {
		double v;
		if (need_param(m, p, m->law.vars[j], "the run-time law", &v,
			       err, errlen))
			return MPP_EINVAL;
		l += m->law.expo[j] * log(v);
	}
	*y = m->law_a + m->law_b * exp(l);
	return MPP_OK;
}

int mpp_model_predict_params(const mpp_model *m, const mpp_params *p,
			     mpp_prediction *out, char *err, size_t errlen)
{
	double y, lo = m->prel_lo, hi = m->prel_hi;
	int rc;

	out->path = m->params_law ? MPP_PATH_RUNTIME_LAW : MPP_PATH_PARAMETERS;
	/* Outside the training range: said, and the wider interval
	 * (judge_ranges sets extrapolated). */
	judge_ranges(m, p, out);
	rc = m->params_law ? law_path(m, p, &y, err, errlen)
			   : counters_path(m, p, &y, err, errlen);
	if (rc)
		return rc;
	widen_past(m, out, &lo, &hi);
	if (mem_factor(m, NAN, p, ranks_per_node(m, p), out, err, errlen))
		return MPP_EINVAL;
	y *= out->mem_factor;
	return finish(m, mpp_path_name(out->path), y, lo, hi, out, err, errlen);
}
