/*
 * train_main.c: mpipredict-train, the command line around train.h.
 *
 * Reads run-row CSV files, or the runs the daemon stored (--from-store),
 * trains one model per app (or the one --app names), and only when every
 * app trained stores each model as a new active version. Prints a summary
 * for a person, or JSON with --json. With --challenger a new model is
 * trained without the held-back runs and goes live only when it is no
 * worse than the active one on them (regress/challenge.h); the outcome,
 * stored or not, is one line and one model_events row per app.
 * Exit 0 on success (a challenger held or refused included), 1 on a usage
 * error, 2 on bad input or a store error.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "regress/challenge.h"
#include "regress/comm_feature.h"
#include "regress/memory.h"
#include "regress/placement.h"
#include "regress/profile_json.h"
#include "regress/train.h"
#include "schema/store.h"

static const char usage[] =
    "usage: mpipredict-train [--db FILE] [--app NAME] [--target K] "
    "[--top-p P] [--cv K]\n"
    "                        [--method default|seed] [--coverage C] "
    "[--allow-mixed-builds]\n"
    "                        [--include-failed] [--no-memory-regime | "
    "--memory-beta B]\n"
    "                        [--challenger [--margin PCT]] [--json | "
    "--verbose]\n"
    "                        FILE.csv... | --from-store --app NAME\n"
    "\n"
    "Fit a runtime model per app from run rows and store it as the app's\n"
    "new active version in the SQLite store. Prints each model as a law:\n"
    "its terms, its error inside the trained sizes (nested CV) and past\n"
    "them (training's extrapolation checks), its interval.\n"
    "\n"
    "  --db FILE             the store (default $MPIPREDICT_DB, else "
    "models.db;\n"
    "                        created when missing)\n"
    "  --app NAME            train only this app (default: every app in "
    "the files)\n"
    "  --from-store          train on the app's runs stored in the store "
    "(POST /v1/runs)\n"
    "                        instead of files; needs --app\n"
    "  --challenger          the new model goes live only when it errs no "
    "more than\n"
    "                        the active one on held-back runs (run_id's "
    "FNV-1a hash\n"
    "                        0 mod 5, never trained on); else it is "
    "stored inactive,\n"
    "                        refused or held as a drift candidate. One "
    "line per app\n"
    "  --margin PCT          percentage points of holdout MAPE the "
    "challenger may\n"
    "                        lose and still go live (default 2)\n"
    "  --target K            keep K features (default: chosen by "
    "cross-validation)\n"
    "  --top-p P             fraction of features kept at each round "
    "(default 0.5)\n"
    "  --cv K                folds of the cross-validation (default 5)\n"
    "  --method M            default (sound) or seed (the seed's literal "
    "loop)\n"
    "  --coverage C          prediction interval coverage (default 0.95)\n"
    "  --allow-mixed-builds  accept runs of different build_ids in one "
    "app\n"
    "  --include-failed      also train on failed runs (exit_status not "
    "0),\n"
    "                        which are left out by default\n"
    "  --no-memory-regime    do not scale run times by the machine "
    "profile's\n"
    "                        memory curve (regress/memory.h; on by default "
    "when\n"
    "                        the store holds one: about 4x the training "
    "time)\n"
    "  --memory-beta B       use that beta in [0, 2] instead of choosing "
    "0, 1/2 or 1\n"
    "                        (1: the time follows the curve; above 1: "
    "steeper)\n"
    "  --json                print the result as JSON\n"
    "  --verbose             also print the diagnostics: features folded, "
    "fits\n"
    "                        tried, each term's share and parameter law, "
    "the\n"
    "                        memory regime's checks\n"
    "  --help, --version\n";

static void warn_stderr(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "mpipredict-train: %s (skipped)\n", msg);
}

static void progress_stderr(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "mpipredict-train: %s\n", msg);
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
							     ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mpipredict-train: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (see --help)\n");
	va_end(ap);
	return 1;
}

static int parse_size(const char *s, size_t *out)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end || v == 0 || s[0] == '-')
		return -1;
	*out = v;
	return 0;
}

static int parse_frac(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (!*s || *end || !(v > 0 && v < 1))
		return -1;
	*out = v;
	return 0;
}

/* JSON number, or null when not finite (jansson refuses NaN). */
static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

struct app_result {
	const char *app;
	size_t *rows, nrows;
	mpp_model *model;
	mpp_train_report rep;
};

static json_t *to_json(const struct app_result *a)
{
	const mpp_model *m = a->model;
	const mpp_train_report *r = &a->rep;
	json_t *terms = json_array();

	for (size_t i = 0; i < m->nterms; i++) {
		const mpp_term *t = &m->terms[i];
		json_t *aliases = json_array(), *expo = json_object(),
		       *edges = json_array();
		for (size_t k = 0; k < t->pm.nedges; k++)
			json_array_append_new(
			    edges,
			    json_pack("{s:s, s:f, s:f}", "group",
				      m->range_names[t->pm.edges[k].range], "a",
				      t->pm.edges[k].a, "slope",
				      t->pm.edges[k].b));
		for (size_t k = 0; k < t->naliases; k++)
			json_array_append_new(aliases,
					      json_string(t->aliases[k]));
		for (size_t v = 0; v < t->pm.nvars; v++)
			json_object_set_new(expo, t->pm.vars[v],
					    json_real(t->pm.expo[v]));
		json_array_append_new(
		    terms,
		    json_pack(
			"{s:s, s:f, s:f, s:o, s:o, s:f, s:f, s:{s:b, "
			"s:o, s:f, s:o, s:b, s:o}}",
			"feature", t->feature, "coef", t->coef, "params_coef",
			m->pcoef            ? m->pcoef[i]
			: t->pm.predictable ? t->coef
					    : 0.0,
			"share_pct", jnum(r->share[i]), "aliases", aliases,
			"center", t->center, "scale", t->scale, "param_model",
			"predictable", t->pm.predictable, "cv_mape_pct",
			jnum(t->pm.cv_mape), "log_c", t->pm.log_c, "exponents",
			expo, "zero_on_one_rank", t->pm.zero_serial,
			"past_range", edges));
	}
	json_t *law = json_null(), *ranges = json_object();
	if (m->has_law) {
		json_t *lexpo = json_object();
		for (size_t v = 0; v < m->law.nvars; v++)
			json_object_set_new(lexpo, m->law.vars[v],
					    json_real(m->law.expo[v]));
		law = json_pack("{s:f, s:f, s:f, s:o, s:o}", "a", m->law_a, "b",
				m->law_b, "log_c", m->law.log_c, "exponents",
				lexpo, "cv_mape_pct", jnum(m->law.cv_mape));
	}
	for (size_t i = 0; i < m->nranges; i++)
		json_object_set_new(
		    ranges, m->range_names[i],
		    json_pack("[f, f]", m->range_lo[i], m->range_hi[i]));
	json_t *out = json_pack(
	    "{s:s, s:{s:I, s:i}, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, "
	    "s:I, s:b, s:f, s:o, s:o, s:o, s:o, s:I, s:o, s:o, s:b, s:{s:f, "
	    "s:[f, f], "
	    "s:[f, f], s:o}}",
	    "app", m->app, "model", "id", (json_int_t)m->id, "version",
	    m->version, "build_id", m->build_id, "method", m->method, "fit",
	    m->fit, "runs", (json_int_t)m->ntrain, "features_in",
	    (json_int_t)r->nfeatures_in, "absent", (json_int_t)r->nabsent,
	    "constant", (json_int_t)r->nconstant, "duplicates",
	    (json_int_t)r->nduplicate, "kept", (json_int_t)m->nterms,
	    "target_by_cv", r->target_by_cv, "intercept", m->intercept,
	    "params_intercept",
	    jnum(m->pcoef                   ? m->pintercept
		 : r->nparams_left_out == 0 ? m->intercept
					    : NAN),
	    "terms", terms, "cv_mape_pct", jnum(m->cv_mape),
	    "cv_mape_params_pct", jnum(m->cv_mape_params), "cv_params_runs",
	    (json_int_t)r->nparams_cv, "cv_mape_nnls_pct",
	    jnum(r->cv_mape_nnls), "cv_mape_ridge_pct", jnum(r->cv_mape_ridge),
	    "ridge_cancels", r->ridge_cancels, "interval", "coverage",
	    m->coverage, "features", m->rel_lo, m->rel_hi, "parameters",
	    m->prel_lo, m->prel_hi, "cv_coverage", jnum(r->cv_coverage));
	/* Issue 15: which path answers from parameters, the run-time law,
	 * the training ranges, the extrapolation interval, and whether the
	 * errors above are nested estimates (with the inner ones). */
	json_object_set_new(
	    out, "params_basis",
	    json_string(m->params_law ? "runtime-law" : "parameters"));
	json_object_set_new(out, "runtime_law", law);
	/* Why the law is or is not the parameters path (regress/train.c). */
	json_object_set_new(out, "law_vs_counters",
			    json_pack("{s:o, s:o, s:I}", "mean_diff_pct",
				      jnum(r->law_diff_mean), "se_pct",
				      jnum(r->law_diff_se), "runs",
				      (json_int_t)r->law_diff_runs));
	/* The second training on the counters the parameters predict
	 * (regress/train.c, predictable_terms); null when not tried. */
	json_object_set_new(
	    out, "predictable_only",
	    r->pred_tried
		? json_pack("{s:b, s:I, s:o, s:o, s:I}", "kept", r->pred_kept,
			    "columns_left_out", (json_int_t)r->pred_dropped,
			    "mean_diff_pct", jnum(r->pred_diff_mean), "se_pct",
			    jnum(r->pred_diff_se), "runs",
			    (json_int_t)r->pred_diff_runs)
		: json_null());
	json_object_set_new(out, "ranges", ranges);
	/* The edge checks (regress/train_check.c). */
	json_t *edges = json_object();
	for (size_t i = 0; i < m->nranges; i++) {
		const double *c = r->edge_check && i < r->nedge_check
				      ? r->edge_check + MPP_EDGE_CHECK * i
				      : NULL;
		json_object_set_new(
		    edges, m->range_names[i],
		    json_pack(
			"{s:s, s:o, s:[o, o]}", "group",
			m->range_names[m->range_group ? m->range_group[i] : i],
			"check_pct", jnum(c ? c[0] : NAN), "check_ratios",
			jnum(c ? c[1] : NAN), jnum(c ? c[2] : NAN)));
	}
	json_object_set_new(out, "edges", edges);
	json_object_set_new(json_object_get(out, "interval"), "extrapolated",
			    json_pack("[f, f]", m->xlo, m->xhi));
	json_object_set_new(out, "cv_nested", json_boolean(r->nested));
	json_object_set_new(out, "cv_nested_folds",
			    json_integer((json_int_t)r->nested_folds));
	json_object_set_new(out, "cv_mape_inner_pct", jnum(r->cv_mape_inner));
	json_object_set_new(out, "cv_mape_params_inner_pct",
			    jnum(r->cv_mape_params_inner));
	json_object_set_new(out, "extrapolation_checked_runs",
			    json_integer((json_int_t)r->nextrap_checked));
	json_object_set_new(out, "extrapolation_distance",
			    m->xdist > 0 ? json_real(m->xdist) : json_null());
	/* The error outside the ranges (regress/train_check.c). */
	json_object_set_new(out, "x_mape_pct", jnum(m->x_mape));
	json_object_set_new(out, "x_mape_answers",
			    json_integer((json_int_t)r->x_answers));
	/* The stable choice of terms (regress/train_stable.c). */
	json_t *checks = json_array();
	for (size_t i = 0; i < r->nstable_checks; i++)
		json_array_append_new(
		    checks,
		    json_pack("{s:s, s:I, s:I}", "by", r->stable_check[i].by,
			      "held", (json_int_t)r->stable_check[i].held,
			      "outside",
			      (json_int_t)r->stable_check[i].outside));
	json_object_set_new(
	    out, "stable_choice",
	    json_pack("{s:I, s:I, s:I, s:o, s:o}", "candidates",
		      (json_int_t)r->stable_candidates, "kept_candidate",
		      (json_int_t)r->stable_pick, "one_se_target",
		      (json_int_t)r->target_one_se, "extrap_mape_pct",
		      jnum(r->extrap_mape), "checks", checks));
	/* The memory regime (regress/train_memory.c). */
	json_t *merr = json_array(), *mcv = json_array();
	for (int b = 0; b < MPP_NMEM_BETAS; b++) {
		json_array_append_new(merr, jnum(r->mem_err[b]));
		json_array_append_new(mcv, jnum(r->mem_cv[b]));
	}
	json_t *mlaw = json_null();
	if (m->mem_beta > 0 && m->mem_law.predictable) {
		mlaw = json_object();
		json_object_set_new(mlaw, "a_kib", json_real(m->mem_a));
		json_object_set_new(mlaw, "b", json_real(m->mem_b));
		json_object_set_new(mlaw, "log_c", json_real(m->mem_law.log_c));
		json_object_set_new(mlaw, "cv_mape_pct",
				    jnum(m->mem_law.cv_mape));
		json_t *ex = json_object();
		for (size_t v = 0; v < m->mem_law.nvars; v++)
			json_object_set_new(ex, m->mem_law.vars[v],
					    json_real(m->mem_law.expo[v]));
		json_object_set_new(mlaw, "expo", ex);
	}
	json_t *prog = json_null();
	if (m->progress_feature) {
		json_t *ex = json_object();
		for (size_t v = 0; v < m->progress.nvars; v++)
			json_object_set_new(ex, m->progress.vars[v],
					    json_real(m->progress.expo[v]));
		prog = json_pack("{s:s, s:f, s:o, s:o}", "feature",
				 m->progress_feature, "log_c",
				 m->progress.log_c, "cv_mape_pct",
				 jnum(m->progress.cv_mape), "expo", ex);
	}
	json_object_set_new(out, "progress_counter", prog);
	json_object_set_new(
	    out, "memory",
	    json_pack(
		"{s:f, s:b, s:I, s:o, s:o, s:o, s:o, s:o, s:o}", "beta",
		m->mem_beta, "given", r->mem_given, "held",
		(json_int_t)r->mem_held, "held_mape_pct_by_beta", merr,
		"others_cv_mape_pct_by_beta", mcv, "slowdown_range",
		json_pack("[o, o]", jnum(r->mem_slow_lo), jnum(r->mem_slow_hi)),
		"none_because",
		r->mem_why ? json_string(r->mem_why) : json_null(),
		"peak_memory_law", mlaw, "betas_tried",
		json_pack("[f, f, f]", 0.0, 0.5, 1.0)));
	return out;
}

/* A term's law in the job parameters, " (~ 50 x -n^3.00 x -i^1.00)", or
 * nothing when the parameters cannot predict it. */
static void print_param_law(const mpp_param_model *pm)
{
	if (!pm->predictable)
		return;
	printf("  (~ %.3g", exp(pm->log_c));
	for (size_t v = 0; v < pm->nvars; v++)
		if (fabs(pm->expo[v]) >= 5e-3)
			printf(" x %s^%.2f", pm->vars[v], pm->expo[v]);
	printf(")");
}

/* The model for a person: the law, then its errors in and past the
 * trained sizes and its interval, in four to ten lines. */
static void print_law(const struct app_result *a)
{
	const mpp_model *m = a->model;
	printf("%s: version %d, %zu runs\n", m->app, m->version, m->ntrain);
	printf("  run time = %.3g s\n", m->intercept);
	for (size_t i = 0; i < m->nterms; i++) {
		printf("           + %.3g s x %s", m->terms[i].coef,
		       m->terms[i].feature);
		print_param_law(&m->terms[i].pm);
		putchar('\n');
	}
	if (m->has_law && m->params_law) {
		printf("  from parameters alone: %.3g s + %.3g s", m->law_a,
		       m->law_b * exp(m->law.log_c));
		for (size_t v = 0; v < m->law.nvars; v++)
			if (fabs(m->law.expo[v]) >= 5e-3)
				printf(" x %s^%.2f", m->law.vars[v],
				       m->law.expo[v]);
		putchar('\n');
	}
	printf("  error %.1f %% inside the trained sizes", m->cv_mape);
	if (isfinite(m->cv_mape_params))
		printf(" (%.1f %% from parameters alone)", m->cv_mape_params);
	if (isfinite(m->x_mape))
		printf(", %.1f %% past them", m->x_mape);
	else
		printf(", not measured past them");
	printf("; interval x[%.2f, %.2f] (%.0f %%)\n", m->rel_lo, m->rel_hi,
	       100 * m->coverage);
	if (m->mem_beta > 0)
		printf("  run times follow the node's memory curve (beta "
		       "%.2g)\n",
		       m->mem_beta);
}

static void print_summary(const struct app_result *a)
{
	const mpp_model *m = a->model;
	const mpp_train_report *r = &a->rep;

	printf("app %s: %zu runs, build %s\n", m->app, m->ntrain, m->build_id);
	printf("features: %zu in, %zu absent in some builds, %zu constant and "
	       "%zu duplicates folded, %zu kept (%s)\n",
	       r->nfeatures_in, r->nabsent, r->nconstant, r->nduplicate,
	       m->nterms,
	       r->target_by_cv ? "target by cross-validation, 1-SE rule"
			       : "target given");
	printf("model: version %d, method %s, final fit %s", m->version,
	       m->method, m->fit);
	if (isfinite(r->cv_mape_nnls) && isfinite(r->cv_mape_ridge))
		printf(" (CV MAPE nnls %.2f %%, ridge %.2f %%)",
		       r->cv_mape_nnls, r->cv_mape_ridge);
	if (r->ridge_cancels)
		printf(" (ridge's terms cancelled each other: NNLS kept)");
	printf("\n  %14.6g s    intercept\n", m->intercept);
	for (size_t i = 0; i < m->nterms; i++) {
		const mpp_term *t = &m->terms[i];
		printf("  %14.6g  %5.1f %%  %s", t->coef, r->share[i],
		       t->feature);
		if (t->naliases)
			printf(" (= %zu alias%s)", t->naliases,
			       t->naliases > 1 ? "es" : "");
		if (!t->pm.predictable) {
			printf("\n                           not predictable "
			       "from the job parameters%s\n",
			       m->pcoef ? " (left out of that path)" : "");
			continue;
		}
		printf("\n                           ~ %.3g", exp(t->pm.log_c));
		/* Exponents that print as 0.000 say nothing: left out. */
		for (size_t v = 0; v < t->pm.nvars; v++)
			if (fabs(t->pm.expo[v]) >= 5e-4)
				printf(" * %s^%.3f", t->pm.vars[v],
				       t->pm.expo[v]);
		printf("%s  (CV error %.1f %%)\n",
		       t->pm.zero_serial ? ", 0 on one rank" : "",
		       t->pm.cv_mape);
	}
	if (m->pcoef) {
		printf(
		    "parameters path: refitted without the %zu unpredictable "
		    "term%s: intercept %.6g s, coefficients",
		    r->nparams_left_out, r->nparams_left_out > 1 ? "s" : "",
		    m->pintercept);
		for (size_t i = 0; i < m->nterms; i++)
			if (m->terms[i].pm.predictable)
				printf(" %.6g", m->pcoef[i]);
		printf("\n");
	}
	if (r->pred_tried && !isfinite(r->pred_diff_mean))
		printf("a first training kept no term the parameters predict; "
		       "one on the counters they predict kept none: the first "
		       "stands\n");
	else if (r->pred_tried)
		printf("a first training kept no term the parameters predict; "
		       "one on the counters they predict (%zu columns left "
		       "out) is %s (held-out error, first minus second, "
		       "%+.2f points, standard error %.2f, %zu runs)\n",
		       r->pred_dropped,
		       r->pred_kept ? "kept: the first is not clearly better"
				    : "not kept: the first is clearly better",
		       r->pred_diff_mean, r->pred_diff_se, r->pred_diff_runs);
	if (m->has_law) {
		printf("run-time law%s: %.6g s + %.6g",
		       m->params_law ? " (the parameters path)" : "", m->law_a,
		       m->law_b * exp(m->law.log_c));
		for (size_t v = 0; v < m->law.nvars; v++)
			if (fabs(m->law.expo[v]) >= 5e-4)
				printf(" * %s^%.3f", m->law.vars[v],
				       m->law.expo[v]);
		printf(" s  (CV error %.1f %%)\n", m->law.cv_mape);
	}
	if (m->progress_feature) {
		printf("progress counter (running jobs): %s ~ %.3g",
		       m->progress_feature, exp(m->progress.log_c));
		for (size_t v = 0; v < m->progress.nvars; v++)
			if (fabs(m->progress.expo[v]) >= 5e-4)
				printf(" * %s^%.3f", m->progress.vars[v],
				       m->progress.expo[v]);
		printf("  (CV error %.1f %%)\n", m->progress.cv_mape);
	}
	printf("%s MAPE: %.2f %% from features, ",
	       !r->nested             ? "CV"
	       : r->nested_folds == 1 ? "hold-out (1 outer fold)"
				      : "nested CV",
	       m->cv_mape);
	if (isfinite(m->cv_mape_params))
		printf("%.2f %% from parameters (%s)\n", m->cv_mape_params,
		       m->params_law ? "run-time law" : "counters");
	else
		printf("none from parameters\n");
	printf("interval (%.0f %%): x[%.3f, %.3f] from features",
	       100 * m->coverage, m->rel_lo, m->rel_hi);
	if (isfinite(m->cv_mape_params))
		printf(", x[%.3f, %.3f] from parameters", m->prel_lo,
		       m->prel_hi);
	printf("; CV coverage %.1f %%\n", 100 * r->cv_coverage);
	printf("extrapolated answers: x[%.3f, %.3f] (%s)", m->xlo, m->xhi,
	       r->nextrap_checked ? "from training on all but the longest runs"
				  : "widened by the CV error");
	if (isfinite(m->x_mape))
		printf("; MAPE %.2f %% on %zu answers past a range", m->x_mape,
		       r->x_answers);
	if (m->xdist > 0)
		printf("; checked %.3g past the ranges (log), farther answers "
		       "wider",
		       m->xdist);
	putchar('\n');
	/* Parameters equal or collinear over the runs are one size
	 * (regress/model.h range_group). */
	for (size_t i = 0; m->range_group && i < m->nranges; i++) {
		if (m->range_group[i] != i)
			continue;
		printf("%s", i ? "; " : "parameter groups: ");
		for (size_t j = i; j < m->nranges; j++)
			if (m->range_group[j] == i)
				printf("%s%s", j == i ? "{" : ", ",
				       m->range_names[j]);
		putchar('}');
	}
	if (m->range_group && m->nranges)
		putchar('\n');
	/* The memory regime (regress/memory.h). */
	if (m->mem_beta > 0 && r->mem_given)
		printf("memory regime: answers x (1 + %.2g (slowdown - 1)), "
		       "beta given\n",
		       m->mem_beta);
	else if (m->mem_beta > 0)
		printf("memory regime: answers x (1 + %.2g (slowdown - 1)); "
		       "the %zu runs with the largest footprints err %.2f %% "
		       "with it, %.2f %% without; the runs' slowdowns "
		       "%.3f-%.3f\n",
		       m->mem_beta, r->mem_held,
		       r->mem_err[m->mem_beta == 1 ? 2 : 1], r->mem_err[0],
		       r->mem_slow_lo, r->mem_slow_hi);
	else if (isfinite(r->mem_err[0]))
		printf("memory regime: none (the %zu runs with the largest "
		       "footprints err %.2f %% without, %.2f %% and %.2f %% "
		       "with half or all of the time following the curve)\n",
		       r->mem_held, r->mem_err[0], r->mem_err[1],
		       r->mem_err[2]);
	else if (r->mem_why && isfinite(r->mem_slow_lo))
		printf("memory regime: none (%s)\n", r->mem_why);
}

/* Refuse an app whose runs come from several builds, unless allowed: -1
 * with why in err. */
static int check_builds(const mpp_runs *rs, const struct app_result *a,
			char *err, size_t errlen)
{
	const char *b0 = rs->runs[a->rows[0]].build_id;

	for (size_t i = 1; i < a->nrows; i++) {
		const char *b = rs->runs[a->rows[i]].build_id;
		if (strcmp(b, b0)) {
			snprintf(err, errlen,
				 "app %s: runs of build_id '%s' and '%s' (run "
				 "%s) mixed; features of different builds do "
				 "not compare (use --allow-mixed-builds)",
				 a->app, b0, b, rs->runs[a->rows[i]].run_id);
			return -1;
		}
	}
	return 0;
}

/* The newest machine profile in db, if there is one: *profile gets its
 * text (malloc'ed) and *parsed the same parsed; when it has a measured
 * communication level, model:comm_s is appended to rs. A store that cannot
 * be read (missing, not migrated yet) or holds no profile leaves all as
 * it is. Returns 0, or 1 after printing why (a stored profile that does
 * not parse, out of memory). */
static int load_profile(const char *db, mpp_runs *rs, char **profile,
			mpp_loggps_profile *parsed)
{
	mpp_store *s = NULL;
	char err[512], *text = NULL;
	size_t nset;
	int rc, levels = 0;

	/* Opened for writing (not created): a store of an older schema is
	 * migrated here, or its profile would be missed until the next
	 * training. */
	if (access(db, R_OK) != 0 ||
	    mpp_store_open(db, 0, &s, err, sizeof(err)))
		return 0;
	rc = mpp_store_load_profile(s, NULL, &text, err, sizeof(err));
	mpp_store_close(s);
	if (rc)
		return 0;
	rc = mpp_profile_from_json(db, text, parsed, err, sizeof(err));
	for (int i = 0; rc == 0 && i < MPP_NLV; i++)
		levels += parsed->level[i] != NULL;
	if (rc == 0 && levels)
		rc = mpp_runs_add_comm_feature_json(rs, db, text, &nset, err,
						    sizeof(err));
	if (rc)
		free(text);
	else
		*profile = text;
	if (rc)
		fprintf(stderr, "mpipredict-train: machine profile in %s\n",
			err);
	return rc ? 1 : 0;
}

/* What --challenger needs beside the training options. */
struct challenge_ctx {
	mpp_store *store;
	const char *db, *profile;
	const mpp_train_opts *o;
	double margin;
	int mixed;
	json_t *out; /* --json: the array of outcomes, else NULL */
	/* Each run's ingest time (--from-store), else NULL: the runs newer
	 * than the champion tell whether the runs moved from it. */
	const double *ingested;
};

/* A challenger that could not be judged: said on stderr and, when the
 * store takes it, recorded as a 'failed' event (the active model is
 * untouched). Returns 2. */
static int challenge_failed(const struct challenge_ctx *c, const char *app,
			    const char *why)
{
	mpp_model_event ev = {.app = app,
			      .kind = "failed",
			      .reason = why,
			      .champion_mape = NAN,
			      .challenger_mape = NAN,
			      .holdout_runs = -1};
	char err[512];

	fprintf(stderr, "mpipredict-train: %s\n", why);
	if (mpp_store_add_event(c->store, &ev, err, sizeof(err)))
		fprintf(stderr,
			"mpipredict-train: %s: the failure could not be "
			"recorded: %s\n",
			c->db, err);
	return 2;
}

static const char *const outcome_words[] = {
    [MPP_CHALLENGE_PROMOTED] = "promoted",
    [MPP_CHALLENGE_REJECTED] = "rejected",
    [MPP_CHALLENGE_DRIFT] = "held as a drift candidate",
};
static const char *const outcome_kinds[] = {
    [MPP_CHALLENGE_PROMOTED] = "promoted",
    [MPP_CHALLENGE_REJECTED] = "rejected",
    [MPP_CHALLENGE_DRIFT] = "drift",
};

/* One app in challenger mode: train on its runs but the held-back ones,
 * judge the new model against the active one on those, and store it with
 * the outcome, in one transaction. Returns 0 (stored, live or not) or 2
 * (nothing stored; a 'failed' event when it could be written). */
static int challenge_app(const struct challenge_ctx *c, mpp_runs *rs,
			 struct app_result *a)
{
	size_t *held = malloc((a->nrows + 1) * sizeof(*held)), nheld = 0,
	       ntrain = 0, nnewer = 0;
	size_t *newer = malloc((a->nrows + 1) * sizeof(*newer));
	mpp_model *champ = NULL;
	mpp_challenge ch;
	char err[768], why[1024];
	int next = 0, rc = 0;

	if (!held || !newer) {
		free(held);
		free(newer);
		fprintf(stderr, "mpipredict-train: out of memory\n");
		return 2;
	}
	int r =
	    mpp_store_load_active(c->store, a->app, &champ, err, sizeof(err));
	if (r != MPP_OK && r != MPP_ENOTFOUND) {
		snprintf(why, sizeof(why), "app %s: %s: %s", a->app, c->db,
			 err);
		rc = challenge_failed(c, a->app, why);
		goto out;
	}
	/* The held-back runs leave the training rows, in order. A first
	 * model has no champion to be judged against: when holding back
	 * would leave it too few runs to train on (of 8 runs, 4 were held
	 * back once), it trains on all of them. */
	size_t would = 0;
	for (size_t i = 0; i < a->nrows; i++)
		would += mpp_holdout(rs->runs[a->rows[i]].run_id) != 0;
	int hold = champ || a->nrows - would >= MPP_TRAIN_MIN_RUNS ||
		   a->nrows < MPP_TRAIN_MIN_RUNS;
	for (size_t i = 0; i < a->nrows; i++) {
		if (hold && mpp_holdout(rs->runs[a->rows[i]].run_id))
			held[nheld++] = a->rows[i];
		else
			a->rows[ntrain++] = a->rows[i];
	}
	a->nrows = ntrain;
	if (mpp_store_next_version(c->store, a->app, &next, err, sizeof(err))) {
		snprintf(why, sizeof(why), "app %s: %s: %s", a->app, c->db,
			 err);
		rc = challenge_failed(c, a->app, why);
		goto out;
	}
	if (ntrain == 0) {
		snprintf(why, sizeof(why),
			 "app %s: training failed: all %zu runs are held "
			 "back, none left to train on",
			 a->app, nheld);
		rc = challenge_failed(c, a->app, why);
		goto out;
	}
	if (!c->mixed && check_builds(rs, a, err, sizeof(err))) {
		snprintf(why, sizeof(why), "training failed: %s", err);
		rc = challenge_failed(c, a->app, why);
		goto out;
	}
	if (mpp_train(rs, a->rows, a->nrows, c->o, &a->model, &a->rep, err,
		      sizeof(err)) ||
	    mpp_placement_fit(a->model, rs, a->rows, a->nrows, c->db,
			      c->profile, err, sizeof(err))) {
		snprintf(why, sizeof(why), "app %s: training failed: %s",
			 a->app, err);
		rc = challenge_failed(c, a->app, why);
		goto out;
	}
	/* Trained on, but arrived after the champion was: it never saw
	 * them. */
	for (size_t i = 0; champ && c->ingested && i < a->nrows; i++)
		if (c->ingested[a->rows[i]] > champ->created_at)
			newer[nnewer++] = a->rows[i];
	if (mpp_challenge_compare(champ, a->model, rs, held, nheld, newer,
				  nnewer, &ch, err, sizeof(err))) {
		rc = challenge_failed(c, a->app, err);
		goto out;
	}
	mpp_challenge_decide(&ch, a->app, champ ? champ->version : 0, next,
			     c->margin);
	mpp_model_event ev = {
	    .kind = outcome_kinds[ch.kind],
	    .reason = ch.reason,
	    .champion_mape = ch.champion_mape,
	    .challenger_mape = ch.challenger_mape,
	    .holdout_runs = (int64_t)ch.ncompared,
	};
	a->model->version = next;
	if (mpp_store_save_challenger(
		c->store, a->model, ch.kind == MPP_CHALLENGE_PROMOTED,
		champ ? champ->id : 0, &ev, err, sizeof(err))) {
		/* The store's message names the app. */
		snprintf(why, sizeof(why), "%s: %s", c->db, err);
		rc = challenge_failed(c, a->app, why);
		goto out;
	}
	int live = ch.kind == MPP_CHALLENGE_PROMOTED
		       ? a->model->version
		       : (champ ? champ->version : 0);
	if (c->out) {
		json_array_append_new(
		    c->out,
		    json_pack("{s:s, s:i, s:I, s:s, s:s, s:i, s:o, s:o, s:o, "
			      "s:I, s:I, s:I, s:o, s:f}",
			      "app", a->app, "version", a->model->version,
			      "model_id", (json_int_t)a->model->id, "outcome",
			      outcome_kinds[ch.kind], "reason", ch.reason,
			      "active_version", live, "champion_version",
			      champ ? json_integer(champ->version)
				    : json_null(),
			      "champion_mape_pct", jnum(ch.champion_mape),
			      "challenger_mape_pct", jnum(ch.challenger_mape),
			      "holdout_runs", (json_int_t)ch.ncompared,
			      "held_back_runs", (json_int_t)ch.nheld,
			      "beyond_both_intervals", (json_int_t)ch.nbeyond,
			      "median_ratio", jnum(ch.median_ratio),
			      "margin_pct", c->margin));
	} else {
		printf("%s: version %d %s: %s\n", a->app, a->model->version,
		       outcome_words[ch.kind], ch.reason);
	}
out:
	mpp_model_free(champ);
	free(held);
	free(newer);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"app", required_argument, NULL, 'a'},
	    {"target", required_argument, NULL, 't'},
	    {"top-p", required_argument, NULL, 'p'},
	    {"cv", required_argument, NULL, 'k'},
	    {"method", required_argument, NULL, 'm'},
	    {"coverage", required_argument, NULL, 'c'},
	    {"allow-mixed-builds", no_argument, NULL, 'x'},
	    {"json", no_argument, NULL, 'j'},
	    {"verbose", no_argument, NULL, 'v'},
	    {"include-failed", no_argument, NULL, 'f'},
	    {"no-memory-regime", no_argument, NULL, 'M'},
	    {"memory-beta", required_argument, NULL, 'B'},
	    {"from-store", no_argument, NULL, 'S'},
	    {"challenger", no_argument, NULL, 'C'},
	    {"margin", required_argument, NULL, 'G'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const char *db = NULL, *only = NULL;
	int mixed = 0, json = 0, verbose = 0, no_mem = 0, opt, rc = 0;
	int from_store = 0, challenger = 0, margin_given = 0;
	double margin = MPP_CHALLENGE_MARGIN, *ingested = NULL;
	mpp_store *store = NULL;
	mpp_train_opts o;
	mpp_runs rs = {0};
	struct app_result *apps = NULL;
	size_t napps = 0;
	char err[512], *profile = NULL;
	mpp_loggps_profile machine = {0};

	mpp_train_opts_init(&o);
	o.progress = progress_stderr;
	opterr = 0;
	if (argc == 1) {
		/* Training writes a store: never from a bare command. */
		fputs(usage, stderr);
		return 1;
	}
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'a':
			only = optarg;
			break;
		case 't':
			if (parse_size(optarg, &o.target))
				return usage_error("--target: '%s' is not a "
						   "positive integer",
						   optarg);
			break;
		case 'p':
			if (parse_frac(optarg, &o.top_p))
				return usage_error("--top-p: '%s' is not a "
						   "fraction in (0, 1)",
						   optarg);
			break;
		case 'k':
			if (parse_size(optarg, &o.folds) || o.folds < 2)
				return usage_error("--cv: '%s' is not an "
						   "integer >= 2",
						   optarg);
			break;
		case 'm':
			if (!mpp_train_method_exists(optarg))
				return usage_error("--method: '%s' is not "
						   "a training method",
						   optarg);
			o.method = optarg;
			break;
		case 'c':
			if (parse_frac(optarg, &o.coverage))
				return usage_error("--coverage: '%s' is not a "
						   "fraction in (0, 1)",
						   optarg);
			break;
		case 'x':
			mixed = 1;
			break;
		case 'v':
			verbose = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'f':
			rs.include_failed = 1;
			break;
		case 'M':
			no_mem = 1;
			break;
		case 'B': {
			char *end;
			o.mem_beta = strtod(optarg, &end);
			if (end == optarg || *end ||
			    !(o.mem_beta >= 0 && o.mem_beta <= 2))
				return usage_error("--memory-beta: '%s' is not "
						   "a number in [0, 2]",
						   optarg);
			o.mem_given = 1;
			break;
		}
		case 'S':
			from_store = 1;
			break;
		case 'C':
			challenger = 1;
			break;
		case 'G': {
			char *end;
			margin = strtod(optarg, &end);
			if (end == optarg || *end ||
			    !(margin >= 0 && margin <= 100))
				return usage_error("--margin: '%s' is not a "
						   "number of percentage "
						   "points in [0, 100]",
						   optarg);
			margin_given = 1;
			break;
		}
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("mpipredict-train " MPP_VERSION "\n");
			return 0;
		case ':':
			return usage_error("option '%s' needs a value",
					   argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (from_store && optind < argc)
		return usage_error("--from-store reads the store, not files: "
				   "'%s' given too",
				   argv[optind]);
	if (from_store && !only)
		return usage_error("%s", "--from-store needs --app NAME");
	if (!from_store && optind >= argc)
		return usage_error("%s", "no run-row file given");
	if (json && verbose)
		return usage_error("%s", "--json already holds what --verbose "
					 "prints: give one");
	db = mpp_store_default_path(db);
	if (margin_given && !challenger)
		return usage_error("%s", "--margin goes with --challenger");
	if (no_mem && o.mem_given)
		return usage_error("%s", "--memory-beta and --no-memory-regime "
					 "contradict each other");

	/* The store is opened first when it is read from (it must exist
	 * then) or when the active model is the champion to beat. */
	if ((from_store || challenger) &&
	    mpp_store_open(db, from_store ? 0 : MPP_STORE_CREATE, &store, err,
			   sizeof(err))) {
		fprintf(stderr, "mpipredict-train: %s\n", err);
		return 2;
	}
	if (from_store && mpp_store_load_runs(store, only, &rs, &ingested, err,
					      sizeof(err))) {
		fprintf(stderr, "mpipredict-train: %s: %s\n", db, err);
		rc = 2;
		goto out;
	}
	for (int i = optind; i < argc; i++) {
		if (mpp_runs_read_file(&rs, argv[i], warn_stderr, NULL, err,
				       sizeof(err))) {
			fprintf(stderr, "mpipredict-train: %s\n", err);
			rc = 2;
			goto out;
		}
	}
	/* The derived feature model:comm_s when the store holds a machine
	 * profile (mpipredict-calibrate): training may select it; and its
	 * memory curve, for the memory regime (regress/memory.h). */
	if (load_profile(db, &rs, &profile, &machine)) {
		rc = 2;
		goto out;
	}
	o.mem = no_mem ? NULL : machine.mem;
	if (o.mem_given && o.mem_beta > 0 && !o.mem) {
		fprintf(stderr,
			"mpipredict-train: --memory-beta: the store %s holds "
			"no machine profile with a memory curve "
			"(mpipredict-calibrate --levels mem makes one)\n",
			db);
		rc = 2;
		goto out;
	}
	/* Group the rows by app, in order of first appearance. */
	apps = calloc(rs.nruns, sizeof(*apps));
	if (!apps) {
		fprintf(stderr, "mpipredict-train: out of memory\n");
		rc = 2;
		goto out;
	}
	for (size_t r = 0; r < rs.nruns; r++) {
		const char *app = rs.runs[r].app;
		size_t a;
		if (only && strcmp(app, only))
			continue;
		for (a = 0; a < napps && strcmp(apps[a].app, app); a++)
			;
		if (a == napps) {
			apps[napps].app = app;
			apps[napps++].rows = malloc(rs.nruns * sizeof(size_t));
			if (!apps[a].rows) {
				fprintf(stderr,
					"mpipredict-train: out of memory\n");
				rc = 2;
				goto out;
			}
		}
		apps[a].rows[apps[a].nrows++] = r;
	}
	if (napps == 0) {
		fprintf(stderr,
			"mpipredict-train: no runs of app '%s' in %s%s\n", only,
			argv[optind], argc - optind > 1 ? " ..." : "");
		rc = 2;
		goto out;
	}
	if (challenger) {
		struct challenge_ctx c = {
		    .store = store,
		    .db = db,
		    .profile = profile,
		    .o = &o,
		    .margin = margin,
		    .mixed = mixed,
		    .out = json ? json_array() : NULL,
		    .ingested = ingested,
		};
		/* Each app's outcome stands alone: one failing does not
		 * undo another's. */
		for (size_t a = 0; a < napps; a++)
			if (challenge_app(&c, &rs, &apps[a]))
				rc = 2;
		if (c.out) {
			json_t *doc = json_pack("{s:o}", "challenges", c.out);
			json_dumpf(doc, stdout,
				   JSON_INDENT(2) | JSON_REAL_PRECISION(10));
			printf("\n");
			json_decref(doc);
		}
		goto out;
	}
	for (size_t a = 0; a < napps; a++) {
		if (!mixed && check_builds(&rs, &apps[a], err, sizeof(err))) {
			fprintf(stderr, "mpipredict-train: %s\n", err);
			rc = 2;
			goto out;
		}
		if (mpp_train(&rs, apps[a].rows, apps[a].nrows, &o,
			      &apps[a].model, &apps[a].rep, err, sizeof(err))) {
			fprintf(stderr, "mpipredict-train: %s\n", err);
			rc = 2;
			goto out;
		}
		/* model:comm_s kept: its placement laws (placement.h). */
		if (mpp_placement_fit(apps[a].model, &rs, apps[a].rows,
				      apps[a].nrows, db, profile, err,
				      sizeof(err))) {
			fprintf(stderr, "mpipredict-train: %s\n", err);
			rc = 2;
			goto out;
		}
	}

	mpp_store *s;
	if (mpp_store_open(db, MPP_STORE_CREATE, &s, err, sizeof(err))) {
		fprintf(stderr, "mpipredict-train: %s\n", err);
		rc = 2;
		goto out;
	}
	for (size_t a = 0; a < napps && rc == 0; a++) {
		if (mpp_store_save_model(s, apps[a].model, err, sizeof(err))) {
			fprintf(stderr, "mpipredict-train: %s: %s\n", db, err);
			rc = 2;
		}
	}
	mpp_store_close(s);
	if (rc)
		goto out;
	if (json) {
		json_t *arr = json_array();
		for (size_t a = 0; a < napps; a++)
			json_array_append_new(arr, to_json(&apps[a]));
		json_t *doc = json_pack("{s:o}", "models", arr);
		json_dumpf(doc, stdout,
			   JSON_INDENT(2) | JSON_REAL_PRECISION(10));
		printf("\n");
		json_decref(doc);
	} else {
		for (size_t a = 0; a < napps; a++) {
			if (a)
				printf("\n");
			print_law(&apps[a]);
			if (verbose) {
				printf("\n");
				print_summary(&apps[a]);
			}
		}
	}
out:
	for (size_t a = 0; a < napps; a++) {
		free(apps[a].rows);
		mpp_model_free(apps[a].model);
		mpp_train_report_free(&apps[a].rep);
	}
	free(apps);
	free(profile);
	mpp_store_close(store);
	free(ingested);
	mpp_loggps_profile_clear(&machine);
	mpp_runs_free(&rs);
	return rc;
}
