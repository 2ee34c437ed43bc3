/*
 * history.h: run-time predictions for jobs that have no model, from the
 * actual run times of the same user's finished jobs. Used by the daemon
 * (server/, `basis: "history"`) and by the trace replay (history/replay.c,
 * `make bench-history`): one implementation for both.
 *
 * Two methods:
 * - MPP_HIST_TSAFRIR: Tsafrir, Etsion and Feitelson (IEEE TPDS 2007) as the
 *   SC'15 study ran it: the mean of the user's last two finished jobs,
 *   truncated to whole seconds and capped at the request; the request
 *   itself until the user has two finished jobs. When the app is known
 *   and the user has two finished jobs of it, those two instead.
 * - MPP_HIST_OURS: the same user's jobs that look like this one first (same
 *   app, same request, same size), see history.c for the rule and
 *   history/README.md for what it gains on the KTH-SP2 replay.
 * - MPP_HIST_LEARNED: a linear model over the job's features (its request,
 *   size, the user's last runs and their means, the user's running jobs,
 *   the time of day and week, ours' prediction...) fitted online with an
 *   asymmetric loss that penalises under-predictions (learn.h); ours until
 *   the first fit.
 * - MPP_HIST_ONLINE: the SC'15 study's predictor: a linear model over the
 *   study's 19 features and their pairwise products and squares, one
 *   normalised adaptive gradient step per finished job on a composite
 *   loss (nag.h); ours until it has learnt from ONLINE_MIN jobs.
 *
 * A running job that outlives its prediction is corrected upward with
 * mpp_hist_correct() (Tsafrir's fixed steps, capped at the request).
 *
 * Memory: one fixed-size record per user and per (user, app), (user,
 * request), (user, request, size) key seen; nothing grows per job. The
 * daemon keeps what feeds it bounded (the `jobs` table is pruned to the
 * last jobs per user, see schema/store.h) and rebuilds it at start.
 *
 * Not thread-safe: one thread at a time per mpp_hist (the daemon holds a
 * lock). Not for jobs that have a model: those go through regress/.
 */
#ifndef MPP_HISTORY_H
#define MPP_HISTORY_H

#include <stddef.h>

typedef struct mpp_hist mpp_hist;

enum mpp_hist_method {
	MPP_HIST_TSAFRIR = 0,
	MPP_HIST_OURS = 1,
	MPP_HIST_LEARNED = 2, /* learn.h: an online regression */
	MPP_HIST_ONLINE = 3,  /* nag.h: the SC'15 study's online learner */
};

/* What is known of a job at submission. user is required; app may be NULL
 * or "" (unknown); req_s <= 0 means no requested limit (no cap); procs <= 0
 * unknown. Strings are borrowed for the call only. The fields after procs
 * feed MPP_HIST_LEARNED and ONLINE only and may be left 0 (unknown): submit_s
 * and end_s are times in seconds on one clock (Unix time in the daemon, the
 * trace's in the replay; end_s is read by mpp_hist_observe); running_* are
 * the same user's jobs running at submission: how many, their processors,
 * the sum and the largest of their elapsed times. alias != 0 (observe
 * only): a job already observed under another identity of its user (the
 * daemon learns each job under the user's name and "uid:N"): the
 * identity's records learn it, the learned and online models do not
 * learn it twice. */
typedef struct mpp_hist_job {
	const char *user;
	const char *app;
	double req_s;
	double procs;
	double submit_s, end_s;
	double running, running_procs, running_elapsed_s, running_max_s;
	int alias;
} mpp_hist_job;

/* The features of MPP_HIST_LEARNED (history.c lists them). */
enum { MPP_HIST_NFEAT = 22 };

typedef struct mpp_hist_pred {
	double runtime_s; /* the prediction (req_s when !known) */
	double lower_s;   /* interval from the user's own past errors */
	double upper_s;   /* never above req_s when req_s > 0 */
	int known;        /* 0: the user has too few finished jobs */
	size_t nerrors;   /* how many past errors made the interval (0: the
			     interval is [0, req_s], no evidence) */
	/* MPP_HIST_LEARNED: the job's features at submission, for
	 * mpp_hist_observe_at when it ends (nfeat 0 for other methods). */
	double feat[MPP_HIST_NFEAT];
	size_t nfeat;
	/* MPP_HIST_LEARNED and ONLINE (0 for the others): the learner's own
	 * answer, Tsafrir's, and guarded = 1 when runtime_s is Tsafrir's
	 * because the learner's recent error is the larger (the guard,
	 * mpp_hist_guard). */
	double learner_s, tsafrir_s;
	int guarded;
} mpp_hist_pred;

/* A new, empty history; NULL when out of memory or method is unknown. */
mpp_hist *mpp_hist_new(int method);
void mpp_hist_free(mpp_hist *h);

/* Parses "tsafrir", "ours", "learned" or "online" into *method: 0, else
 * -1. */
int mpp_hist_method_parse(const char *name, int *method);
const char *mpp_hist_method_name(int method);

/* Predict job j from what has been observed so far. Never fails on a valid
 * job: with no history it returns known = 0 and runtime_s = req_s (or 0
 * when there is no request). Returns MPP_EINVAL (common/status.h codes)
 * when j->user is NULL or empty. */
int mpp_hist_predict(const mpp_hist *h, const mpp_hist_job *j,
		     mpp_hist_pred *out);

/* Learn that job j finished after runtime_s seconds (> 0). Also records
 * the error of the prediction the history would have made for it just
 * before (for the intervals). Returns 0, MPP_EINVAL (bad job or run time),
 * MPP_ENOMEM. */
int mpp_hist_observe(mpp_hist *h, const mpp_hist_job *j, double runtime_s);

/* mpp_hist_observe, with the prediction made for j at its submission
 * (NULL: none kept): MPP_HIST_LEARNED learns from the features the job had
 * then, which is what a prediction sees; without them it rebuilds them
 * from the state at the call (the daemon learns a job only when it ends;
 * the same user's runs that ended in between are then among its
 * features). */
int mpp_hist_observe_at(mpp_hist *h, const mpp_hist_job *j, double runtime_s,
			const mpp_hist_pred *at_submit);

/* Tsafrir's correction of a running job that reached its prediction: the
 * initial prediction plus 1, 5, 15, 30 min, 1, 2, 5, 10, 20, 50, 100 h for
 * the 1st, 2nd, ... correction (ncorrections >= 1), capped at req_s when
 * req_s > 0. */
double mpp_hist_correct(double initial_s, double req_s, int ncorrections);

/* The guard of MPP_HIST_LEARNED and ONLINE: when the learner's mean
 * absolute error over the last 64 finished jobs (once it has 16) is above
 * Tsafrir's on the same jobs, predictions answer with Tsafrir's rule
 * (mpp_hist_pred.guarded) until the learner, still learning and scored, is
 * back at or below it. Returns 1 while guarded, else 0; *switches (may be
 * NULL): how many times the guard engaged. 0 for the other methods. */
int mpp_hist_guard(const mpp_hist *h, unsigned long *switches);
/* The guard on (default) or off (the learner always answers); before the
 * first observation only: 0, else MPP_EINVAL. */
int mpp_hist_set_guard(mpp_hist *h, int on);

/* How many keys the history holds (users and finer keys). */
size_t mpp_hist_nkeys(const mpp_hist *h);

/* The method h was created with. */
int mpp_hist_method(const mpp_hist *h);

/* MPP_HIST_LEARNED only, before it has observed anything: an
 * under-prediction weighs `under` times an over-prediction in the fit
 * (default 1, the squared loss; > 1 penalises under-predictions more, as
 * the SC'15 study's E-Loss, see history/README.md for what it does on the
 * KTH-SP2 replay). Returns 0 or MPP_EINVAL (another method, under <= 0,
 * already observing), MPP_ENOMEM. */
int mpp_hist_set_under(mpp_hist *h, double under);

/* MPP_HIST_ONLINE only, before it has observed anything: the loss its
 * learner minimises (nag.h; default mpp_nag_study). Returns 0 or
 * MPP_EINVAL (another method, an invalid loss, already observing),
 * MPP_ENOMEM. */
struct mpp_nag_loss;
int mpp_hist_set_loss(mpp_hist *h, const struct mpp_nag_loss *loss);

#endif
