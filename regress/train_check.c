/*
 * train_check.c: what a user will see, measured by training again on
 * parts of the runs (the whole procedure: selection, target, fit, the
 * choice of the parameters path). Two checks, after the model is built:
 *
 *   nested cross-validation: for each fold, a training on the other folds
 *   predicts the fold from its features and from its parameters; the
 *   pooled errors replace the model's cv_mape and cv_mape_params (the
 *   inner ones chose the target and fit on the same folds that measured
 *   them, so they lean optimistic; they stay in the report);
 *
 *   extrapolation: a training on all runs but the longest fifth predicts
 *   those from their parameters; the ratios actual / predicted widen the
 *   parameters path's interval into the one an extrapolated answer gets
 *   (model xlo, xhi), and the edge checks' held runs widen it further;
 *   the errors of both checks' answers, pooled, are the error reported
 *   for answers outside the ranges (model x_mape): cv_mape is measured
 *   inside them, and the two differ (cg: 7.5 % inside, 21 % one size
 *   past the range, the checks 16-17 %);
 *
 *   edges: for each group of parameters (equal or collinear ones are
 *   one size) with three values or more, a training on the runs below
 *   its largest value predicts the runs at it from their parameters; as
 *   the extrapolation check's, their ratios widen the interval and their
 *   errors are x_mape. One more training per group; none when the
 *   parameters path is the run-time law. (A factor for answers past the
 *   range, the cost at the edge over the average, was tried here and
 *   dropped: on the development set's real codes it raised the error past
 *   the range more often than it lowered it, docs/benchmarks.md.)
 *
 * They cost K + 1 trainings, so they run in full when the runs times the
 * feature columns are at most CHECK_MAX_CELLS. Up to HOLDOUT_MAX_CELLS the
 * nested part is one outer fold (a training on the other K - 1 folds
 * predicts fold 0: an honest hold-out estimate, noisier, for 2 trainings
 * instead of K + 1); above, the inner errors stand and the extrapolation
 * factors widen the interval by the parameters path's CV error. Not for
 * the steps of a training (train.c).
 */
#include "regress/train_data.h"

#include <gsl/gsl_blas.h>
#include <gsl/gsl_linalg.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_MAX_CELLS   2000000.0
#define HOLDOUT_MAX_CELLS 50000000.0

struct sub {
	size_t *rows;
	size_t n;
};

static int train_on(const mpp_runs *rs, const struct sub *s,
		    const mpp_train_opts *o, mpp_model **out)
{
	mpp_train_opts io = *o;
	mpp_train_report rep;
	char err[256];

	io.inner = 1;
	io.progress = NULL;
	/* The memory regime is chosen again on the part (train_memory.c),
	 * unless the user gave its beta. */
	if (!io.mem_given) {
		io.mem_fixed = io.mem_no_law = 0;
		io.mem_beta = 0;
	}
	int rc = mpp_train(rs, s->rows, s->n, &io, out, &rep, err, sizeof(err));
	mpp_train_report_free(&rep);
	return rc;
}

/* Relative error (percent) of one answer; a refused one counts 100 %. */
static double err_of(int rc, const mpp_prediction *p, double y)
{
	return rc == MPP_OK ? 100 * fabs(p->runtime_s - y) / y : 100;
}

static int predict_features(const mpp_model *m, const mpp_runs *rs, size_t row,
			    mpp_prediction *p)
{
	mpp_kv *kv = malloc((rs->nfeatures + 1) * sizeof(*kv));

	if (!kv)
		return MPP_ENOMEM;
	size_t n = mpp_tr_run_kv(rs, row, kv);
	/* No parameters: the folds' trainings run no edge check. */
	int rc = mpp_model_predict_run(
	    m, kv, n, NULL, mpp_tr_run_rpn(&rs->runs[row]), p, NULL, 0);
	free(kv);
	return rc;
}

/* Outer folds 0..nf-1 (nf = K: nested CV; nf = 1: one hold-out). */
static int nested(const struct data *d, const mpp_runs *rs,
		  const mpp_train_opts *o, mpp_model *m, mpp_train_report *rep,
		  size_t nf)
{
	struct sub s = {malloc(d->m * sizeof(size_t)), 0};
	double ef = 0, ep = 0;
	size_t nheld = 0;
	int rc = s.rows ? MPP_OK : MPP_ENOMEM;

	for (size_t f = 0; rc == MPP_OK && f < nf; f++) {
		mpp_model *sm = NULL;
		s.n = 0;
		for (size_t r = 0; r < d->m; r++)
			if (in_train(d, f, r))
				s.rows[s.n++] = d->row[r];
		rc = train_on(rs, &s, o, &sm);
		for (size_t r = d->bstart[f]; r < d->bstart[f + 1]; r++) {
			mpp_prediction p;
			int prc = MPP_EINVAL;
			if (rc == MPP_OK)
				prc = predict_features(sm, rs, d->row[r], &p);
			if (prc == MPP_ENOMEM) {
				mpp_model_free(sm);
				free(s.rows);
				return prc;
			}
			ef += err_of(prc, &p, ytrue(d, r));
			nheld++;
			if (rc == MPP_OK)
				prc = mpp_model_predict_params(
				    sm, &d->params[r], &p, NULL, 0);
			ep += err_of(prc, &p, ytrue(d, r));
		}
		mpp_model_free(sm);
		/* A fold too small to train on counts its runs as refused. */
		if (rc == MPP_EINVAL)
			rc = MPP_OK;
	}
	free(s.rows);
	if (rc)
		return rc;
	if (nheld == 0)
		return MPP_OK;
	rep->cv_mape_inner = m->cv_mape;
	rep->cv_mape_params_inner = m->cv_mape_params;
	m->cv_mape = ef / (double)nheld;
	m->cv_mape_params = ep / (double)nheld;
	rep->nested = 1;
	rep->nested_folds = nf;
	return MPP_OK;
}

/* Parameter `name` of run r, or NAN. */
static double param_of(const struct data *d, size_t r, const char *name)
{
	const double *v = mpp_params_get(&d->params[r], name);
	return v ? *v : NAN;
}

/* The answers of the extrapolation checks, pooled into m->x_mape: sum
 * of |predicted - actual| / actual, and how many; and the sum of their
 * distances past the check's ranges (mpp_model_xdistance), over the nd
 * that were past them, into m->xdist. */
struct xerr {
	double sum, dsum;
	size_t n, nd;
};

/* One answer of a check past a range, at distance dist past the ranges
 * of the check's training runs: its ratio actual / predicted widens the
 * extrapolation interval (m xlo, xhi) and its error counts in x_mape.
 * Returns the ratio. */
static double past_range(mpp_model *m, struct xerr *x, double predicted,
			 double actual, double dist)
{
	double ratio = actual / predicted;
	m->xlo = fmin(m->xlo, ratio);
	m->xhi = fmax(m->xhi, ratio);
	x->sum += fabs(predicted - actual) / actual;
	x->n++;
	if (dist > 0) {
		x->dsum += dist;
		x->nd++;
	}
	return ratio;
}

/* The ranges of the runs q with in[q], for mpp_model_xdistance: lo at
 * [0, nranges], hi after; NULL when out of memory (the distance is then
 * not measured: the fixed factors). Free it. */
static double *ranges_in(const struct data *d, const mpp_model *m,
			 const unsigned char *in)
{
	double *lo = malloc(2 * (m->nranges + 1) * sizeof(*lo));
	double *hi = lo ? lo + m->nranges + 1 : NULL;

	for (size_t i = 0; lo && i < m->nranges; i++) {
		lo[i] = INFINITY;
		hi[i] = -INFINITY;
		for (size_t q = 0; q < d->m; q++) {
			double v = param_of(d, q, m->range_names[i]);
			if (in[q] && isfinite(v)) {
				lo[i] = fmin(lo[i], v);
				hi[i] = fmax(hi[i], v);
			}
		}
	}
	return lo;
}

/* The distance of run r past the ranges rg (ranges_in). */
static double dist_past(const struct data *d, const mpp_model *m,
			const double *rg, size_t r)
{
	return rg ? mpp_model_xdistance(m, rg, rg + m->nranges + 1,
					&d->params[r])
		  : 0;
}

/* The edge check of range i: a training on the runs below the range's
 * largest value predicts those at it from their parameters, and their
 * answers are scored as a user meets them past a range (model x_mape,
 * xlo, xhi): chk[0] their error (percent), chk[1], chk[2] the least and
 * greatest ratio actual / predicted; NAN: not checked. Not run: fewer
 * than three values, the edge's runs under 2 or over 40 % of them, or
 * fewer than 5 below; nor when the parameters path is the run-time law
 * (the longest fifth's check prices its answers past the range). */
static int edge_check(const struct data *d, const mpp_runs *rs,
		      const mpp_train_opts *o, mpp_model *m, size_t i,
		      double *chk, struct xerr *xe)
{
	const char *name = m->range_names[i];
	unsigned char *use = calloc(d->m, 1);
	struct sub s = {malloc(d->m * sizeof(size_t)), 0};
	double hi = -INFINITY, below = -INFINITY, sum = 0, *rg = NULL;
	size_t nat = 0, n = 0;
	mpp_model *sm = NULL;
	int rc = use && s.rows ? MPP_OK : MPP_ENOMEM;

	for (int k = 0; k < MPP_EDGE_CHECK; k++)
		chk[k] = NAN;
	if (rc || m->params_law)
		goto out;
	for (size_t r = 0; r < d->m; r++)
		hi = fmax(hi, param_of(d, r, name));
	for (size_t r = 0; r < d->m; r++) {
		double v = param_of(d, r, name);
		if (v == hi) {
			nat++;
			continue;
		}
		use[r] = 1;
		s.rows[s.n++] = d->row[r];
		below = fmax(below, v);
	}
	/* Three values or more (two left to fit), and the edge's runs at
	 * most 40 % of them. */
	int values = 0;
	for (size_t r = 0; r < d->m && values < 2; r++)
		values = use[r] && param_of(d, r, name) < below ? 2 : values;
	if (values < 2 || nat < 2 || 5 * nat > 2 * d->m || s.n < 5 ||
	    train_on(rs, &s, o, &sm) != MPP_OK)
		goto out;
	rg = ranges_in(d, m, use);
	for (size_t r = 0; r < d->m; r++) {
		mpp_prediction p;
		if (use[r] ||
		    mpp_model_predict_params(sm, &d->params[r], &p, NULL, 0) ||
		    !(p.runtime_s > 0))
			continue;
		double y = ytrue(d, r);
		double ratio =
		    past_range(m, xe, p.runtime_s, y, dist_past(d, m, rg, r));
		sum += fabs(p.runtime_s - y) / y;
		n++;
		chk[1] = isnan(chk[1]) ? ratio : fmin(chk[1], ratio);
		chk[2] = isnan(chk[2]) ? ratio : fmax(chk[2], ratio);
	}
	if (n)
		chk[0] = 100 * sum / (double)n;
out:
	free(rg);
	mpp_model_free(sm);
	free(use);
	free(s.rows);
	return rc;
}

/* By measured run time, longest first (ctx: the data). */
static int cmp_desc_y(const void *a, const void *b, void *ctx)
{
	const struct data *d = ctx;
	double x = ytrue(d, *(const size_t *)a),
	       z = ytrue(d, *(const size_t *)b);
	return (x < z) - (x > z);
}

/* Runs r and q were run with the same parameters (every range's). */
static int same_setting(const struct data *d, const mpp_model *m, size_t r,
			size_t q)
{
	for (size_t i = 0; i < m->nranges; i++)
		if (param_of(d, r, m->range_names[i]) !=
		    param_of(d, q, m->range_names[i]))
			return 0;
	return 1;
}

/* The longest fifth of the runs, with every repeat of their settings:
 * held out by run time alone, a repeat of the largest size that ran a
 * little faster stayed in training, the check answered inside its
 * training's ranges and measured no extrapolation at all (PENNANT's law,
 * whose answers past the range then missed their upper bound). */
static int extrapolation(const struct data *d, const mpp_runs *rs,
			 const mpp_train_opts *o, mpp_model *m,
			 mpp_train_report *rep, struct xerr *xe)
{
	size_t nx = d->m / 5 ? d->m / 5 : 1;
	size_t *pos = malloc(d->m * sizeof(*pos));
	unsigned char *in = malloc(d->m);
	struct sub s = {malloc(d->m * sizeof(size_t)), 0};
	mpp_model *sm = NULL;
	int rc = pos && in && s.rows ? MPP_OK : MPP_ENOMEM;

	m->xlo = m->prel_lo;
	m->xhi = m->prel_hi;
	for (size_t r = 0; rc == MPP_OK && r < d->m; r++)
		pos[r] = r;
	if (rc == MPP_OK)
		qsort_r(pos, d->m, sizeof(*pos), cmp_desc_y, (void *)d);
	for (size_t i = 0; rc == MPP_OK && i < d->m; i++) {
		in[pos[i]] = i >= nx;
		for (size_t k = 0; in[pos[i]] && k < nx; k++)
			if (same_setting(d, m, pos[i], pos[k]))
				in[pos[i]] = 0;
		if (in[pos[i]])
			s.rows[s.n++] = d->row[pos[i]];
	}
	if (rc == MPP_OK && s.n >= 5 && train_on(rs, &s, o, &sm) == MPP_OK) {
		double *rg = ranges_in(d, m, in);
		for (size_t r = 0; r < d->m; r++) {
			mpp_prediction p;
			if (in[r] || mpp_model_predict_params(sm, &d->params[r],
							      &p, NULL, 0))
				continue;
			past_range(m, xe, p.runtime_s, ytrue(d, r),
				   dist_past(d, m, rg, r));
			rep->nextrap_checked++;
		}
		free(rg);
	}
	mpp_model_free(sm);
	free(in);
	free(pos);
	free(s.rows);
	return rc;
}

/* Two ranges are one size when a combination of their centred
 * logarithms, scaled to unit norm, leaves less than this: -x = -y = -z
 * leaves 0, and so does a rank grid against nprocs, its product. */
#define GROUP_TOL 1e-2

static size_t group_root(size_t *g, size_t i)
{
	while (g[i] != i)
		i = g[i] = g[g[i]];
	return i;
}

/* The groups of ranges (model range_group): the null space of the runs'
 * centred log-parameter matrix (singular values under GROUP_TOL, GSL's
 * SVD) and its projector P = N N^T; ranges a and b share a group when
 * P[a][b] != 0. P is block diagonal over the finest split of the ranges
 * into independent dependencies, so that x = y = z, and i + j + k =
 * nprocs in logarithms, are groups of their own whatever basis the SVD
 * picks. A range that is constant, or not positive, is alone. */
int mpp_tr_groups(const struct data *d, mpp_model *m)
{
	size_t q = m->nranges, nc = 0, rows = d->m > q ? d->m : q;
	size_t *g = malloc(q * sizeof(*g)), *col = malloc(q * sizeof(*col));
	gsl_matrix *a = NULL, *v = NULL;
	gsl_vector *sv = NULL, *work = NULL;
	int rc = g && col ? MPP_OK : MPP_ENOMEM;

	m->range_group = g;
	for (size_t i = 0; rc == MPP_OK && i < q; i++) {
		g[i] = i;
		if (m->range_lo[i] > 0 && m->range_hi[i] > m->range_lo[i])
			col[nc++] = i;
	}
	if (rc || nc < 2)
		goto out;
	a = gsl_matrix_calloc(rows, nc); /* zero rows: same null space */
	v = gsl_matrix_alloc(nc, nc);
	sv = gsl_vector_alloc(nc);
	work = gsl_vector_alloc(nc);
	if (!a || !v || !sv || !work) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t c = 0; c < nc; c++) {
		gsl_vector_view x = gsl_matrix_column(a, c);
		double mean = 0;
		for (size_t r = 0; r < d->m; r++) {
			double lv = log(param_of(d, r, m->range_names[col[c]]));
			gsl_vector_set(&x.vector, r, lv);
			mean += lv / (double)d->m;
		}
		for (size_t r = 0; r < d->m; r++)
			gsl_vector_set(&x.vector, r,
				       gsl_vector_get(&x.vector, r) - mean);
		double nrm = gsl_blas_dnrm2(&x.vector);
		if (!(nrm > 0) || !isfinite(nrm)) {
			gsl_vector_set_zero(&x.vector);
			continue;
		}
		gsl_vector_scale(&x.vector, 1 / nrm);
	}
	/* Should GSL fail (it does not on finite input), each stays alone:
	 * the factor per parameter, as before groups. */
	if (gsl_linalg_SV_decomp(a, v, sv, work))
		goto out;
	for (size_t p = 0; p < nc; p++)
		for (size_t k = p + 1; k < nc; k++) {
			double pk = 0;
			for (size_t j = 0; j < nc; j++)
				if (gsl_vector_get(sv, j) < GROUP_TOL)
					pk += gsl_matrix_get(v, p, j) *
					      gsl_matrix_get(v, k, j);
			if (fabs(pk) < 1e-6)
				continue;
			size_t ra = group_root(g, col[p]),
			       rb = group_root(g, col[k]);
			/* The first range of a group is its root. */
			g[ra > rb ? ra : rb] = ra > rb ? rb : ra;
		}
	for (size_t i = 0; i < q; i++)
		g[i] = group_root(g, i);
out:
	gsl_matrix_free(a);
	gsl_matrix_free(v);
	gsl_vector_free(sv);
	gsl_vector_free(work);
	free(col);
	return rc;
}

/* Ranges i and j (same group) hold out the same runs at their edges. */
static int same_edge(const struct data *d, const mpp_model *m, size_t i,
		     size_t j)
{
	for (size_t r = 0; r < d->m; r++)
		if ((param_of(d, r, m->range_names[i]) == m->range_hi[i]) !=
		    (param_of(d, r, m->range_names[j]) == m->range_hi[j]))
			return 0;
	return 1;
}

/* The edge checks, one per range but one per set of ranges of a group
 * that hold out the same runs (-x = -y = -z: one check, not three; the
 * others copy it). */
static int edges(const struct data *d, const mpp_runs *rs,
		 const mpp_train_opts *o, mpp_model *m, mpp_train_report *rep,
		 struct xerr *xe)
{
	int rc = MPP_OK;

	rep->edge_check = malloc(MPP_EDGE_CHECK * m->nranges * sizeof(double));
	if (!rep->edge_check)
		return MPP_ENOMEM;
	rep->nedge_check = m->nranges;
	for (size_t i = 0; rc == MPP_OK && i < m->nranges; i++) {
		double *chk = rep->edge_check + MPP_EDGE_CHECK * i;
		size_t j = m->range_group[i];
		while (j < i && (m->range_group[j] != m->range_group[i] ||
				 !same_edge(d, m, i, j)))
			j++;
		if (j < i)
			memcpy(chk, rep->edge_check + MPP_EDGE_CHECK * j,
			       MPP_EDGE_CHECK * sizeof(*chk));
		else
			rc = edge_check(d, rs, o, m, i, chk, xe);
	}
	return rc;
}

int mpp_tr_check(const struct data *d, const mpp_runs *rs,
		 const mpp_train_opts *o, mpp_model *m, mpp_train_report *rep)
{
	int rc = MPP_OK;
	struct xerr xe = {0, 0, 0, 0}, xl = {0, 0, 0, 0};

	rep->cv_mape_inner = m->cv_mape;
	rep->cv_mape_params_inner = m->cv_mape_params;
	double cells = (double)d->m * (double)d->k;
	if (cells <= HOLDOUT_MAX_CELLS) {
		rc = nested(d, rs, o, m, rep,
			    cells <= CHECK_MAX_CELLS ? d->K : 1);
		if (rc == MPP_OK)
			rc = extrapolation(d, rs, o, m, rep, &xl);
		if (rc == MPP_OK && m->nranges)
			rc = edges(d, rs, o, m, rep, &xe);
	}
	/* The error past the ranges is the edge checks' answers; the
	 * longest fifth (often inside every range) only when no edge was
	 * checked. */
	m->xdist =
	    xe.nd + xl.nd ? (xe.dsum + xl.dsum) / (double)(xe.nd + xl.nd) : 0;
	if (xe.n == 0)
		xe = xl;
	rep->x_answers = xe.n;
	m->x_mape = xe.n ? 100 * xe.sum / (double)xe.n : NAN;
	if (rc == MPP_OK && rep->nextrap_checked == 0) {
		/* Not checked: widen by the parameters path's CV error. */
		double e = isfinite(m->cv_mape_params) ? m->cv_mape_params
			   : isfinite(m->cv_mape)      ? m->cv_mape
						       : 100;
		m->xlo = fmin(m->xlo, m->prel_lo / (1 + e / 100));
		m->xhi = fmax(m->xhi, m->prel_hi * (1 + e / 100));
	}
	return rc;
}
