/*
 * train.h: fit a model (model.h) to the run rows of one app.
 *
 * Two methods (a table in train_methods.c). "seed" is the seed's literal loop:
 * least squares on the raw features, keep the top-p by |coefficient|, refit,
 * until the target count remains; the last fit is the model ("ols"). "default"
 * keeps that loop and makes it sound: constant and (near-)duplicate columns are
 * folded (the duplicates become aliases of the kept one), columns are
 * standardised before ranking, each fit is ridge with its penalty chosen by GCV
 * when the runs are few for the features, the target comes from K-fold
 * cross-validation with the one-standard-error rule, every step is redone
 * inside each training fold, and the final fit minimises relative error
 * with a free intercept, non-negative least squares or ridge, whichever
 * cross-validates better. Both methods store split-conformal interval
 * factors and a power-law parameter model per kept term; when some kept
 * terms are not predictable from job parameters, the parameters path gets
 * its own fit without them (model.h pcoef), cross-validated the same way.
 *
 * Used by mpipredict-train. The model is the caller's (mpp_model_free); the
 * report's arrays are freed with mpp_train_report_free(). Errors: MPP_EINVAL
 * (too few runs, no usable feature), MPP_ENOMEM, with a message in err.
 * GSL's abort-on-error handler is switched off during the call.
 */
#ifndef MPP_TRAIN_H
#define MPP_TRAIN_H

#include <stddef.h>

#include "regress/model.h"
#include "regress/runs.h"

typedef struct mpp_train_opts {
	const char *method; /* "default" (NULL) or "seed"                    */
	size_t target;   /* features to keep; 0: chosen by cross-validation */
	double top_p;    /* fraction kept at each round, in (0, 1)          */
	size_t folds;    /* K of the K-fold cross-validation                */
	double coverage; /* the prediction interval's coverage, e.g. 0.9    */
	unsigned long seed; /* for the fold assignment */
	/* 1 in the trainer's own trainings on parts of the runs (nested
	 * checks, train_check.c): those are not checked again. */
	int inner;
	/* Called with a one-line progress message, when not NULL. */
	void (*progress)(void *ctx, const char *msg);
	void *ctx;
	/* The machine's memory curve (regress/memory.h; NULL: none). With it,
	 * and runs that carry mem:peak_rss_kib.mean, training chooses the
	 * memory regime's beta (train_memory.c). */
	const struct mpp_mem_curve *mem;
	/* Set by the trainer for its own trainings at one beta: no choice;
	 * and, for those answered from measured footprints only, no law of
	 * peak memory. */
	int mem_fixed, mem_no_law;
	double mem_beta;
	/* The user's beta (mpipredict-train --memory-beta): mem_beta, kept
	 * in the nested check's folds too, so that the error it reports is
	 * the given beta's. */
	int mem_given;
	/* 1: only the columns the job parameters predict are candidates
	 * (set by the trainer for its second training, train.c). */
	int predictable_only;
} mpp_train_opts;

/* Defaults: method default, target 0, top_p 0.5, 5 folds, coverage 0.95. */
void mpp_train_opts_init(mpp_train_opts *o);

typedef struct mpp_train_report {
	size_t nruns;
	size_t nfeatures_in;  /* feature columns of the app's rows           */
	size_t nabsent;       /* missing in some runs of another build        */
	size_t nconstant;     /* folded: constant over the runs               */
	size_t nduplicate;    /* folded: duplicate of another column          */
	size_t target;        /* features kept                                */
	int target_by_cv;     /* 1 when cross-validation chose the target     */
	double cv_mape_nnls;  /* CV MAPE (percent) of each final fit at its   */
	double cv_mape_ridge; /* chosen target, NAN when not tried            */
	int ridge_cancels;    /* ridge won the CV but its terms cancelled on
				 all the runs (a term's share below 0, or
				 their absolute contributions over twice
				 the prediction): NNLS kept                */
	double cv_coverage; /* fraction of CV predictions inside the interval */
	size_t nparams_cv;  /* runs whose CV prediction from parameters
			       exists (their fold kept a predictable term) */
	size_t nparams_left_out; /* kept terms not predictable from the
				    parameters: the parameters path is
				    refitted without them (model pcoef) */
	double *share;       /* per term: share of the predicted run time over
				the training runs, percent                   */
	int nested;          /* 1: the model's cv errors are nested estimates */
	size_t nested_folds; /* outer folds they used: K, or 1 (a hold-out
				on large data, regress/train_check.c) */
	double cv_mape_inner;        /* the (optimistic) inner CV errors, */
	double cv_mape_params_inner; /* before the nested check           */
	double law_cv_mape; /* CV error of the run-time law, NAN if none */
	/* The law against the counters on the same held-out runs (train.c,
	 * law_clearly_better): mean of the paired differences of their
	 * relative errors (law minus counters, percent points; negative: the
	 * law is better), its standard error, and how many runs both
	 * predicted (0: not compared). */
	double law_diff_mean, law_diff_se;
	size_t law_diff_runs;
	/* When no kept term is predictable from the parameters (the law
	 * stands in for the counters there), a second training on the
	 * columns that are (train.c, predictable_terms): whether it ran and
	 * was kept, the columns it left out, and the paired difference of
	 * the two trainings' held-out relative errors (first minus second,
	 * percent points), its standard error and runs. */
	int pred_tried, pred_kept;
	size_t pred_dropped;
	double pred_diff_mean, pred_diff_se;
	size_t pred_diff_runs;
	/* Per run, in the trainer's order: the kept target's held-out
	 * relative error from features (NAN: not predicted). */
	double *held_err;
	size_t nextrap_checked; /* runs the extrapolation check predicted */
	/* Answers behind the model's x_mape: the extrapolation check's and
	 * the edge checks' held runs (a run may count in several). */
	size_t x_answers;
	/* The edge checks (train_check.c), MPP_EDGE_CHECK per model range:
	 * the error (percent) of the answers at the range's largest value by
	 * a training on the runs below it, and the least and greatest ratio
	 * actual / predicted of those runs (they widen the extrapolation
	 * interval); NAN: not checked. A range whose group's earlier member
	 * held out the same runs copies that member's check. NULL: none. */
#define MPP_EDGE_CHECK 3
/* The stable choice's checks reported (the longest runs, then up to 7
 * parameters). */
#define MPP_STABLE_CHECKS 8
	double *edge_check;
	size_t nedge_check; /* ranges it covers (placement adds one after) */
	/* The stable choice of terms (train_stable.c): targets inside the
	 * one-SE band compared on the longest fifth of the runs, the target
	 * the 1-SE rule alone would keep, and the kept target's error on that
	 * fifth (NAN: not compared). */
	size_t stable_candidates;
	size_t stable_pick; /* index of the kept one: 0 is the 1-SE set */
	size_t target_one_se;
	double extrap_mape;
	/* Its checks, in order: the longest runs ("runtime"), then each
	 * varying parameter's largest values; the runs each held out, and
	 * how many of those lay outside the kept runs' ranges. */
	size_t nstable_checks;
	struct {
		char by[32];
		size_t held, outside;
	} stable_check[MPP_STABLE_CHECKS];
	/* The memory regime (train_memory.c): the beta kept; the runs its
	 * check held out (the largest node footprints) and its error there
	 * (percent) at each beta of MPP_MEM_BETAS (NAN: not tried); the
	 * slowdown range of the runs (least, greatest); why none (a static
	 * string, NULL when a check ran). */
#define MPP_NMEM_BETAS 3
	double mem_beta;
	int mem_given; /* beta given by the user: nothing tried */
	size_t mem_held;
	double mem_err[MPP_NMEM_BETAS];
	double mem_cv[MPP_NMEM_BETAS]; /* the same trainings' own CV MAPE */
	double mem_slow_lo, mem_slow_hi;
	const char *mem_why;
} mpp_train_report;

void mpp_train_report_free(mpp_train_report *r);

/* 1 when name is a training method (--method), else 0. */
int mpp_train_method_exists(const char *name);
/* The methods' names, comma-separated, for messages (a static string). */
const char *mpp_train_method_names(void);

/* The fewest runs mpp_train trains on. */
#define MPP_TRAIN_MIN_RUNS 5

/* Train on rows[0..nrows) of rs (all of one app). An unknown o->method is
 * MPP_EINVAL. */
int mpp_train(const mpp_runs *rs, const size_t *rows, size_t nrows,
	      const mpp_train_opts *o, mpp_model **out, mpp_train_report *rep,
	      char *err, size_t errlen);

#endif
