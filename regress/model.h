/*
 * model.h: the runtime-prediction model and its predict() functions.
 *
 * A model belongs to one app and one instrumented build. It predicts
 *   runtime_s = intercept + sum_i coef[i] * x[i]
 * over its kept terms, from measured features (basis "features"), or, before
 * a run, from a job's parameters (basis "parameters"): each term's
 * parameter model estimates x[i] first, as a power law of what a submission
 * shows (see params.h), then the sum applies. When some kept terms cannot be
 * predicted from parameters, the parameters path has coefficients of its
 * own (pintercept, pcoef), refitted on the terms that can; without them it
 * uses intercept and coef and needs every term predictable.
 * The interval is relative: lower_s = runtime_s * rel_lo, upper_s =
 * runtime_s * rel_hi, from cross-validated relative residuals (split-conformal)
 * for each basis.
 *
 * Used by mpipredict-train (fills it), schema/ (stores and loads it),
 * mpipredict-predict and mpipredictd (call predict). A model and its strings
 * are owned by whoever got it from mpp_model_new() or the store, and freed
 * with mpp_model_free(). predict() only reads the model, so one model may be
 * used by many threads at once.
 *
 * Errors: MPP_OK or a status of common/status.h; when err is not NULL, a
 * one-line message naming the field is written into err.
 */
#ifndef MPP_MODEL_H
#define MPP_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "common/status.h"
#include "regress/params.h"

/* How one kept feature grows with the job's parameters:
 *   log(x) = log_c + sum_j expo[j] * log(param[vars[j]])
 * except that x = 0 on one rank (nprocs == 1) when zero_serial is set
 * (communication counters). predictable == 0 when cross-validation showed
 * it cannot be: the parameters path then leaves the term out (pcoef[i] ==
 * 0), or, in a model without pcoef, fails with MPP_EINVAL naming it. */
typedef struct mpp_param_model {
	double log_c;
	size_t nvars;
	char **vars; /* parameter names, as in params.h */
	double *expo;
	double cv_mape; /* cross-validated error of this fit, percent */
	int predictable;
	int zero_serial; /* x is 0 when nprocs == 1 */
	/* Past the range of a group of parameters (model range_group), the
	 * slope of the top of that range: with z the group's part of log(x)
	 * above, log(x) gains a + (b - 1) * z when a parameter of the group
	 * lies above its training range (regress/train_power.c, edge laws:
	 * a solver's iterations that rise with the size up to a cap). */
	size_t nedges;
	struct mpp_edge_law {
		size_t range; /* the group's first range */
		double a, b;
	} * edges;
} mpp_param_model;

typedef struct mpp_term {
	char *feature; /* full feature name, e.g. "loop:jacobi.c:42:5.mean" */
	double coef;   /* seconds per unit of the raw feature value         */
	double center; /* training mean and standard deviation of the raw    */
	double scale;  /* feature (kept for reports and checks)              */
	size_t naliases; /* folded duplicates that count the same thing */
	char **aliases;
	mpp_param_model pm;
} mpp_term;

/* The traffic totals of comm_laws, in order. */
enum {
	MPP_COMM_LAW_P2P_MSGS,
	MPP_COMM_LAW_P2P_BYTES,
	MPP_COMM_LAW_COLL_MSGS,
	MPP_COMM_LAW_COLL_BYTES,
	MPP_NCOMM_LAWS
};

typedef struct mpp_model {
	int64_t id;  /* set by the store */
	int version; /* per app, 1, 2, ...; set by the store */
	char *app;
	char *build_id;    /* one id, or several joined by '+' */
	char *method;      /* "default" or "seed" */
	char *fit;         /* final fit chosen: "nnls", "ridge", "ols" */
	double created_at; /* unix time */

	double intercept; /* seconds */
	size_t nterms;
	mpp_term *terms;

	size_t ntrain;         /* runs it was trained on */
	size_t nfeatures_in;   /* features seen before folding */
	double cv_mape;        /* cross-validated MAPE from features, percent */
	double cv_mape_params; /* ... from job parameters (NAN if none) */
	double rel_lo, rel_hi; /* interval factors, basis features   */
	double prel_lo, prel_hi; /* interval factors, basis parameters */
	double coverage;         /* the interval's target coverage, e.g. 0.9 */

	/* The parameters path's own fit, or NULL when it uses intercept and
	 * coef: pcoef[i] is term i's coefficient there (0: left out, as not
	 * predictable), malloc'ed, nterms long. */
	double pintercept;
	double *pcoef;

	/* The run-time law (schema v6): a model of the run time on the job
	 * parameters themselves,
	 *   runtime_s = law_a + law_b * exp(law.log_c + sum law.expo[j] *
	 *               log(param[law.vars[j]]))
	 * (law.nvars 0: the constant law_a + law_b), fitted for relative error
	 * with law_a, law_b >= 0 and cross-validated in training (law.cv_mape).
	 * has_law: fitted. params_law: it is the parameters path, because no
	 * kept counter could be predicted from parameters or because it
	 * cross-validated better; then cv_mape_params, prel_lo and prel_hi
	 * are its own. */
	int has_law, params_law;
	double law_a, law_b;
	mpp_param_model law;

	/* The training range of every parameter all training runs showed
	 * (nprocs, nnodes, arguments): range_lo[i] <= value <= range_hi[i].
	 * An answer from parameters outside it is "extrapolated", and its
	 * interval uses xlo, xhi instead of prel_lo, prel_hi: factors from how
	 * training's extrapolation check erred (never narrower). */
	size_t nranges;
	char **range_names;
	double *range_lo, *range_hi;
	double xlo, xhi;
	/* How far past their training runs' ranges the extrapolation checks
	 * answered (schema v17; mpp_model_xdistance; 0: not measured): an
	 * answer farther out than that gets xlo, xhi raised to the power
	 * distance / xdist. A model that errs by a factor f at one step past
	 * its range errs by about f^2 at two (a wrong slope in log-log); the
	 * fixed factors covered 74-85 % of the development set's runs one
	 * and two sizes past the range. */
	double xdist;
	/* The error an answer outside the ranges can expect (schema v10,
	 * percent; NAN: not measured): the MAPE of the parameters path on
	 * the held runs of training's extrapolation checks (the longest fifth
	 * predicted by the rest; each edge check's top value predicted by
	 * the runs below it).
	 * cv_mape and cv_mape_params are errors inside the ranges. */
	double x_mape;
	/* The groups of ranges (schema v14, NULL: each range its own):
	 * range_group[i] is the first range of i's group, ranges whose
	 * logarithms were equal or collinear over the training runs (-x = -y
	 * = -z; a rank grid -i -j -k and nprocs, their product). A group is
	 * one size: it counts once in the distance past the ranges
	 * (mpp_model_xdistance) and training checks its edge once. */
	size_t *range_group;

	/* Placement (issue 16, regress/placement.h): set when the model keeps
	 * the derived term model:comm_s and was trained with a machine
	 * profile. comm_profile_json is that profile (owned), comm_profile
	 * the same parsed (owned; NULL: no placement re-evaluation), and
	 * comm_laws[k] the power laws in the job's parameters of a rank's
	 * traffic summed over the levels (MPP_COMM_LAW_*). The parameters
	 * path then computes model:comm_s by LogGPS for the job's placement
	 * (nprocs, nnodes) instead of by the term's own power law. A law with
	 * predictable == 0 stands for a total that was 0 in every training
	 * run. */
	char *comm_profile_json;
	struct mpp_loggps_profile *comm_profile;
	mpp_param_model comm_laws[MPP_NCOMM_LAWS];
	/* The memory regime (regress/memory.h, schema v11): with mem_beta >
	 * 0, every answer is the fit's value times mpp_mem_factor(mem,
	 * mem_beta, footprint, ranks per node); the footprint is the run's
	 * mem:peak_rss_kib.mean (features) or a rank's peak memory by its
	 * law in the job's parameters, mem_a + mem_b * exp(mem_law.log_c +
	 * sum mem_law.expo[j] * log(param[mem_law.vars[j]])) (the run-time
	 * law's form), times its ranks per node. mem_beta 0 and mem NULL:
	 * none. */
	double mem_beta;
	struct mpp_mem_curve *mem; /* owned */
	mpp_param_model mem_law;
	double mem_a, mem_b;

	/* The progress counter of a running job (server/progress.c): the
	 * loop or branch counter with the most counts over the training runs
	 * among those whose total the job's parameters predict (progress),
	 * so the innermost loop of the main phase rather than a set-up loop
	 * done once. NULL: none. */
	char *progress_feature;
	mpp_param_model progress;
} mpp_model;

/* Which path gave an answer. */
enum mpp_path {
	MPP_PATH_FEATURES,    /* measured features              */
	MPP_PATH_PARAMETERS,  /* parameters -> counters -> time */
	MPP_PATH_RUNTIME_LAW, /* parameters -> time (the law)    */
};

/* The count pm's power law gives at p, its edge laws (past m's ranges)
 * included: NAN when pm is not predictable or a parameter it needs is
 * missing or not positive, 0 for a zero_serial count on one rank. The
 * parameters path and a running job's progress (server/progress.c) both
 * read counts from it. */
double mpp_model_law_count(const mpp_model *m, const mpp_param_model *pm,
			   const mpp_params *p);

/* The group (its first range) of the range named name; (size_t)-1 when m
 * has no such range. */
size_t mpp_model_range_group(const mpp_model *m, const char *name);

/* How far job p is outside the ranges [lo[i], hi[i]] of m's parameters:
 * the sum over the groups of equal or collinear parameters (range_group)
 * of the largest |log(value / nearest bound)| among the group's members
 * (a parameter <= 0, or one p does not show, counts 0). m's own ranges
 * when lo and hi are NULL. */
double mpp_model_xdistance(const mpp_model *m, const double *lo,
			   const double *hi, const mpp_params *p);

/* The name of a path as answers say it: "features", "parameters",
 * "runtime-law". */
const char *mpp_path_name(int path);

/* At most this many names in an answer's extrapolated list. */
#define MPP_MAX_EXTRAPOLATED 16

typedef struct mpp_prediction {
	double runtime_s, lower_s, upper_s;
	int path; /* enum mpp_path */
	/* Parameters outside the training range (pointers into the model's
	 * range_names, valid while the model is). */
	size_t nextrapolated;
	const char *extrapolated[MPP_MAX_EXTRAPOLATED];
	double xdistance; /* mpp_model_xdistance (0: inside every range) */
	/* The memory regime's factor applied (1: none) and the node
	 * footprint (KiB) it was read at (NAN: none). */
	double mem_factor, mem_node_kib;
} mpp_prediction;

/* One named value (a feature of a run). */
typedef struct mpp_kv {
	const char *name;
	double value;
} mpp_kv;

mpp_model *mpp_model_new(void);
void mpp_model_free(mpp_model *m);

/* 1 when the model was trained on runs of `build` (build_id is one id, or
 * several joined by '+' for a model of mixed builds), else 0. */
int mpp_model_has_build(const mpp_model *m, const char *build);

/* Index of the term whose feature (or one of its aliases) is `name`, or -1. */
long mpp_model_find_term(const mpp_model *m, const char *name);

/* From measured features: every kept term must be among f[0..n) (else
 * MPP_EINVAL naming the missing feature); other names are ignored; values
 * must be finite and >= 0. Both predict functions refuse (MPP_EINVAL, the
 * value and the method named) inputs for which the model gives a run time
 * <= 0: an answer is always a positive time. They also refuse, naming the
 * factors, when the answer's interval (upper / lower) would span more than
 * MPP_MAX_SPREAD: such an interval bounds nothing.
 * p: the run's parameters when known (NULL: not judged). Those outside the
 * training range are listed in out->extrapolated. The interval is then the
 * wider of its own (rel_lo, rel_hi) and the extrapolation one (xlo, xhi). */
#define MPP_MAX_SPREAD 100
int mpp_model_predict_features(const mpp_model *m, const mpp_kv *f, size_t n,
			       const mpp_params *p, mpp_prediction *out,
			       char *err, size_t errlen);
/* The same with the run's ranks per node given (the memory regime reads
 * the curve of that many ranks; mpp_model_predict_features takes it from
 * p's nprocs and nnodes, 1 without p) and p used only for the footprint,
 * not judged against the ranges (training's nested checks). */
int mpp_model_predict_run(const mpp_model *m, const mpp_kv *f, size_t n,
			  const mpp_params *p, double ranks_per_node,
			  mpp_prediction *out, char *err, size_t errlen);

/* From a job's parameters (params.h), by the counters (path parameters)
 * or by the run-time law when the model chose it (path runtime-law).
 * MPP_EINVAL names a parameter the model needs and p lacks, or a term that
 * is not predictable (only in a model without pcoef and without a law).
 * Parameters outside the training range are listed in out->extrapolated,
 * and the interval is the wider extrapolation one. */
int mpp_model_predict_params(const mpp_model *m, const mpp_params *p,
			     mpp_prediction *out, char *err, size_t errlen);

#endif
