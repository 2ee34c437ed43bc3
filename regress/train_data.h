/*
 * train_data.h: the trainer's internals, shared by its files (not installed,
 * not for any caller but regress/train*.c): the runs as a dense matrix, the
 * selection path of one fold, the cross-validation's results, and the table
 * of training methods.
 *
 * The files, in the order a training runs them:
 *   train_load.c    rows -> struct data (folds, standardised columns, params)
 *   train_fold.c    constant and duplicate columns folded, per fold
 *   train_select.c  ranking fits, the top-p rounds, the swap refinement
 *   train_final.c   the final fit of the kept columns
 *   train_power.c   power laws of a column in the job parameters
 *   train_cv.c      cross-validation, the choice of target, the interval
 *   train_law.c     the run-time law on the parameters; their ranges
 *   train_check.c   nested trainings: honest error, extrapolation factors
 *   train_methods.c the methods (--method): which of the above each uses
 *   train.c         mpp_train(): the steps in order, and the model's terms
 *
 * Fold f in [0, K) means "the runs outside fold f"; f == K means every run.
 * Functions return MPP_OK or a status of common/status.h; memory they
 * allocate into a struct is freed by that struct's free function.
 */
#ifndef MPP_TRAIN_DATA_H
#define MPP_TRAIN_DATA_H

#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include "common/status.h"
#include "regress/model.h"
#include "regress/params.h"
#include "regress/runs.h"
#include "regress/train.h"

/* The final fits (fit_names in train.c). */
enum { FIT_NNLS, FIT_RIDGE, FIT_OLS, NFITS };

struct mpp_tr_method;

struct data {
	size_t m, k;       /* runs (in fold order), usable feature columns */
	size_t *col;       /* column -> feature index in the run set       */
	const double **rv; /* per position: the run's values (NAN: absent)   */
	double *y;         /* run times                                    */
	size_t *row;       /* position -> index in the run set             */
	gsl_matrix *Zt;    /* k x m, each column standardised over all runs */
	size_t K, *bstart; /* fold f holds positions [bstart[f], bstart[f+1]) */
	gsl_matrix **G;    /* per fold block: Zt_b Zt_b^T, or NULL          */
	double **bs, **bzy; /* per block: sums of w z and of w z y           */
	const struct mpp_tr_method *method; /* the --method in use */
	double top_p;
	mpp_params *params; /* per position                                  */
	size_t nvars;       /* parameters usable in power laws               */
	char **vars;
	/* Fold FOLD_HELD means "the runs r with held[r] == 0" (train_stable.c
	 * holds out the longest runs); nheld_train counts those runs. */
	unsigned char *held;
	size_t nheld_train;
	/* Per position: the memory regime's factor the run's time was
	 * divided by (train_memory.c); NULL: none. */
	double *ymem;
};

/* Run r's measured time (y is divided by the memory factor). */
static inline double ytrue(const struct data *d, size_t r)
{
	return d->ymem ? d->y[r] * d->ymem[r] : d->y[r];
}

/* A pseudo-fold: every run but those d->held marks. */
#define FOLD_HELD ((size_t)-2)

static inline int in_train(const struct data *d, size_t f, size_t r)
{
	if (f == FOLD_HELD)
		return !d->held[r];
	return f >= d->K || r < d->bstart[f] || r >= d->bstart[f + 1];
}

static inline size_t ntrain(const struct data *d, size_t f)
{
	if (f == FOLD_HELD)
		return d->nheld_train;
	return f >= d->K ? d->m : d->m - (d->bstart[f + 1] - d->bstart[f]);
}

static inline double xval(const struct data *d, size_t r, size_t j)
{
	/* Absent in a build that has the column: zero (usable_features()). */
	double v = d->rv[r][d->col[j]];
	return isnan(v) ? 0 : v;
}

/* A deterministic pseudo-random sequence (splitmix64). */
static inline uint64_t mix(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A column and a sort key. */
struct keyed {
	double key;
	size_t j;
};

/*
 * The rounds of the top-p loop on one fold: round i ranked size[i] columns,
 * best first, in order + off[i]. Sizes fall by top_p each round down to 1.
 * The loop with target t keeps the first t of the smallest round with more
 * than t columns (all columns when none has more).
 */
struct path {
	size_t nrounds;
	size_t *size, *off, *order;
	size_t *rep; /* fold_columns() result on this fold (default method) */
};

/* The cross-validation's results (train_cv.c). */
struct cv {
	size_t nt; /* candidate targets                        */
	size_t *targets;
	double *pred;  /* [fit][target][position] held-out predictions */
	size_t *kept;  /* [fold][target][t] columns kept            */
	size_t *nkept; /* [fold][target]                            */
	double *coef;  /* [fold][fit][target][1 + tmax]             */
	size_t tmax;
};

/*
 * A training method: what --method picks. Every step of the trainer that
 * differs between methods asks this table, so a new method is one entry
 * (train_methods.c) and the functions it names.
 */
struct mpp_tr_method {
	const char *name; /* as --method and the model's method field say */
	/* Fold constant and duplicate columns on the runs outside fold f
	 * (rep as mpp_tr_fold_columns), or NULL: every column stays. */
	int (*fold)(const struct data *d, size_t f, size_t *rep);
	/* Ranking coefficients of the columns S in one top-p round. */
	int (*rank)(const struct data *d, size_t f, const size_t *S, size_t s,
		    gsl_vector *beta);
	/* 1: the kept columns are refined by swaps (train_select.c). */
	int refine;
	/* 1: among the targets near-equal in CV, the one whose terms
	 * extrapolate best is kept (train_stable.c); 0: the 1-SE target. */
	int stable;
	/* 1: --target may exceed what the folds allow, up to every column
	 * (the seed's loop had no such bound). */
	int target_up_to_k;
	/* The final fits cross-validated, fits[0] the one preferred. */
	size_t nfits;
	int fits[NFITS];
	/* From the cross-validation: the final fit and the index of its target
	 * in cv->targets; may fill rep's cv_mape_* (NAN when not tried). */
	void (*choose)(const struct data *d, const struct cv *cv, int *fit,
		       size_t *ti, mpp_train_report *rep);
};

/* The method called name (NULL: "default"), or NULL when there is none. */
const struct mpp_tr_method *mpp_tr_method_find(const char *name);

/* train_load.c: fill d from rows[0..nrows) of rs (shuffled by o->seed,
 * cut into o->folds folds); *nabsent gets the columns left out as absent
 * in some build. mpp_tr_block_grams() adds the per-fold Gram blocks when
 * they fit in memory. mpp_tr_data_free() frees what both allocated. */
int mpp_tr_load(struct data *d, const mpp_runs *rs, const size_t *rows,
		size_t nrows, const mpp_train_opts *o, size_t *nabsent,
		char *err, size_t errlen);
int mpp_tr_block_grams(struct data *d);
/* Run row's present features into kv (room for rs->nfeatures); their
 * count. */
size_t mpp_tr_run_kv(const mpp_runs *rs, size_t row, mpp_kv *kv);
void mpp_tr_data_free(struct data *d);

/* train_fold.c: rep[j] = j for a column kept on the runs outside fold f,
 * the kept column it duplicates, or (size_t)-1 when it is constant. */
int mpp_tr_fold_columns(const struct data *d, size_t f, size_t *rep);

/* train_select.c. Weighted (w = 1/y^2) total weight, mean run time and
 * centred sum of squares over the runs outside fold f. */
void mpp_tr_wstats(const struct data *d, size_t f, double *W, double *ybar,
		   double *yy);
/* Ranking coefficients: standardised, weighted (default method). */
int mpp_tr_rank_default(const struct data *d, size_t f, const size_t *S,
			size_t s, gsl_vector *beta);
/* Raw least squares with the intercept taken out by centring (the seed's
 * fit); *intercept is set when not NULL. */
int mpp_tr_ols_raw(const struct data *d, size_t f, const size_t *S, size_t s,
		   gsl_vector *a, double *intercept);
/* The top-p rounds on the runs outside fold f, into p (freed with
 * mpp_tr_path_free). */
int mpp_tr_run_path(const struct data *d, size_t f, struct path *p);
void mpp_tr_path_free(struct path *p);
/* The columns kept for target t, into K (room for t); *n gets how many. */
int mpp_tr_path_keep(const struct data *d, size_t f, const struct path *p,
		     size_t t, size_t *K, size_t *n);

/* train_final.c: c[0] + sum c[1+i] x[F[i]] fitted on the runs outside fold
 * f with the final fit `fit`; c has room for 1 + t. */
int mpp_tr_final_fit(const struct data *d, size_t f, const size_t *F, size_t t,
		     int fit, double *c);
double mpp_tr_predict_row(const struct data *d, size_t r, const size_t *F,
			  size_t t, const double *c);

/* train_power.c: column j's power law in the parameters, fitted on the
 * runs outside folds f and g (coef: d->nvars + 2 values), evaluated on run
 * r, its cross-validated MAPE (percent, NAN if it cannot be fitted), and
 * whether it predicts well enough to be used (then coef is filled). */
int mpp_tr_power_fit(const struct data *d, size_t f, size_t g, size_t j,
		     double *coef);
double mpp_tr_power_eval(const struct data *d, size_t r, const double *coef);
double mpp_tr_power_cv(const struct data *d, size_t f, size_t j);
int mpp_tr_predictable(const struct data *d, size_t f, size_t j, double *coef);
/* Every column the parameters do not predict (mpp_tr_predictable on all
 * the runs) made constant, its standardised values 0, so that no
 * selection keeps it; *n gets how many. */
int mpp_tr_keep_predictable(struct data *d, size_t *n);

/* train_memory.c: the memory regime. mpp_tr_mem_column: the run set's
 * index of MPP_MEM_FEATURE, or -1. mpp_tr_mem_run_factor: run row's
 * factor at beta on curve c (NAN when it lacks its footprint).
 * mpp_tr_mem_choose: beta for o->mem (0 when none), by the runs with the
 * largest footprints predicted from the others (report: rep->mem_*).
 * mpp_tr_mem_model: the kept regime into m (curve copy, the law of a
 * rank's peak memory). */
long mpp_tr_mem_column(const mpp_runs *rs);
/* train_stable.c: pos gets 0..m-1 by key, largest first; the count of
 * the top: nx, and the runs after them whose key is within a factor same
 * (1: equal) of the one before, up to half of m (a largest value held out
 * whole). */
size_t mpp_tr_top(const double *key, size_t m, size_t nx, double same,
		  size_t *pos);
/* A run's ranks per node (1 when it does not say). */
double mpp_tr_run_rpn(const mpp_run *run);
double mpp_tr_mem_run_factor(const mpp_runs *rs, size_t row, long fi,
			     const struct mpp_mem_curve *c, double beta);
int mpp_tr_mem_choose(const mpp_runs *rs, const size_t *rows, size_t nrows,
		      const mpp_train_opts *o, double *beta,
		      mpp_train_report *rep);
int mpp_tr_mem_model(const struct data *d, const mpp_runs *rs,
		     const mpp_train_opts *o, mpp_model *m);

/* train_law.c: the run-time law on the runs outside fold f; coef gets
 * d->nvars + 3 values (a, b, c, exponents). MPP_EINVAL when it cannot be
 * fitted there. _eval on run r; _cv: held-out predictions per fold (NAN
 * where a fold's fit failed); _store: into m (has_law set). */
int mpp_tr_law_fit(const struct data *d, size_t f, double *coef);
/* The same iteration from a first a = a0; and from nstarts first values
 * of a, 0 to the least y (exclusive), the one that errs least kept, its
 * first a into *a0 (a rank's peak memory: a baseline of code and MPI
 * buffers that the iteration from 0 reaches only in part). */
int mpp_tr_law_fit_from(const struct data *d, size_t f, double a0,
			double *coef);
int mpp_tr_law_fit_starts(const struct data *d, size_t f, int nstarts,
			  double *coef, double *a0);
double mpp_tr_law_eval(const struct data *d, size_t r, const double *coef);
int mpp_tr_law_cv(const struct data *d, double *pred);
/* The law's exponents and c (coef as mpp_tr_law_fit) into pm. */
int mpp_tr_law_to(const struct data *d, const double *coef,
		  mpp_param_model *pm);
int mpp_tr_law_store(const struct data *d, const double *coef, mpp_model *m);
/* The training range of every parameter all runs show, into m. */
int mpp_tr_ranges(const struct data *d, mpp_model *m);
/* train_check.c: the groups of m's ranges (model range_group), equal or
 * collinear parameters over the runs of d. */
int mpp_tr_groups(const struct data *d, mpp_model *m);
/* train_power.c: the edge laws (model.h) of column j's power law pm, for
 * each group of m's ranges whose top bends away from the law. */
int mpp_tr_edge_laws(const struct data *d, const mpp_model *m, size_t j,
		     mpp_param_model *pm);

/* train_stable.c: the terms kept, into F (room for cv->tmax), *t of
 * them. Candidates: the 1-SE target's set (*ti comes in as that), its
 * single swaps with columns of the path's pool that cross-validate within
 * its standard error, and the other targets inside the one-SE band. Each
 * is refitted without the longest fifth of the runs, and without the
 * fifth with the largest value of each varying parameter, and predicts
 * that fifth; the first candidate (in that order) whose mean error there
 * is within 10 % of the best is kept, and *ti becomes its target. Fewer
 * than 20 runs: the 1-SE set. rep->stable_* say what was compared. */
int mpp_tr_stable_choice(struct data *d, const struct cv *cv,
			 const struct path *all, int fit, size_t *ti, size_t *F,
			 size_t *t, mpp_train_report *rep);

/* train_check.c: nested cross-validation (m's cv errors) and the
 * extrapolation factors (m->xlo, xhi), by trainings on parts of the runs
 * of rs; report fields nested, cv_mape*_inner, nextrap_checked. */
int mpp_tr_check(const struct data *d, const mpp_runs *rs,
		 const mpp_train_opts *o, mpp_model *m, mpp_train_report *rep);

/* train_cv.c. The candidate targets (want, or a grid up to tmax). */
size_t *mpp_tr_pick_targets(size_t want, size_t tmax, size_t *n);
double mpp_tr_now_s(void);
/* Every fold's path and final fits, the held-out predictions into cv, and
 * the path on every run into all. */
int mpp_tr_cross_validate(const struct data *d, const int *fits, size_t nfits,
			  struct cv *cv, const mpp_train_opts *o, double t0,
			  struct path *all);
/* The one-standard-error rule: the index of the smallest target whose
 * error is within one standard error of the best. */
size_t mpp_tr_one_se(const struct data *d, const struct cv *cv, int fit);
/* 1 when ridge (target index tr) beats NNLS (tn) by more than one
 * standard error of the per-fold difference. */
int mpp_tr_prefer_ridge(const struct data *d, const struct cv *cv, size_t tn,
			size_t tr);
/* Mean over folds of the held-out MAPE (percent) of (fit, ti), and its
 * standard error. */
void mpp_tr_fold_mape(const struct data *d, const struct cv *cv, int fit,
		      size_t ti, double *mean, double *se);
/* Pooled held-out MAPE (percent) of (fit, ti). */
double mpp_tr_pooled_mape(const struct data *d, const struct cv *cv, int fit,
			  size_t ti);
/* Split-conformal interval factors from held-out predictions pred[0..m);
 * returns their MAPE. */
double mpp_tr_conformal(const struct data *d, const double *pred,
			int skip_missing, double coverage, double *lo,
			double *hi, double *inside, size_t *nused);
/* Held-out predictions from job parameters, as the model makes them. */
int mpp_tr_params_path(const struct data *d, const struct cv *cv, int fit,
		       size_t ti, double *pred);

#endif
