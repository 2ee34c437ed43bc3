/*
 * easy.h: replays a job trace through EASY backfilling, with the user's
 * requested times or with predictions (EASY++), on a machine of P
 * processors, and measures the schedule. The conventions are those of the
 * pyss simulator of the SC'15 study (Gaussier, Glesser, Reis, Trystram),
 * so that its published rows can be reproduced; history/README.md lists
 * them.
 *
 * The scheduler only: predictions come from history.h (the daemon's own
 * code), the trace from swf.h. Not a general batch-system simulator (one
 * queue, rigid jobs, no failures).
 */
#ifndef MPP_HISTORY_EASY_H
#define MPP_HISTORY_EASY_H

#include <stddef.h>

#include "history/swf.h"

enum mpp_easy_pred {
	MPP_EASY_REQUESTED = 0,   /* the users' requested times */
	MPP_EASY_CLAIRVOYANT = 1, /* the actual run times */
	MPP_EASY_HISTORY = 2,     /* history.h, method in hist_method */
};

enum mpp_easy_corrector {
	MPP_EASY_CORRECT_STEPS = 0,   /* mpp_hist_correct (Tsafrir's steps) */
	MPP_EASY_CORRECT_REQUEST = 1, /* straight to the requested time */
	MPP_EASY_CORRECT_DOUBLE = 2,  /* twice the current prediction, not
					 capped at the request (the study's
					 "recursive doubling") */
};

/* Run-time limits (kills) and the limit-extension policy (issue 37): a
 * study of what extending running jobs is worth, not the SC'15 replay
 * (which never kills: MPP_EASY_LIMIT_NONE). */
enum mpp_easy_limit {
	MPP_EASY_LIMIT_NONE = 0,    /* jobs run to their end (the study's) */
	MPP_EASY_LIMIT_REQUEST = 1, /* killed at the requested time */
	MPP_EASY_LIMIT_ECMWF = 2,   /* killed at the mean + 1 sd of the run
				       times of the user's finished jobs of
				       the same request (>= 2 of them; else
				       the request), never above the request
				       (ECMWF's rule) */
};

typedef struct mpp_easy_opts {
	int procs;       /* machine size */
	int sjbf;        /* 1: backfill shortest predicted first (EASY++) */
	int pred;        /* enum mpp_easy_pred */
	int hist_method; /* history.h method when pred is MPP_EASY_HISTORY */
	int corrector;   /* enum mpp_easy_corrector */
	double under;    /* MPP_HIST_LEARNED: mpp_hist_set_under (0: 1) */
	int no_guard;    /* 1: the learners' guard off (mpp_hist_set_guard) */
	const struct mpp_nag_loss *loss; /* MPP_HIST_ONLINE: mpp_hist_set_loss
					    (NULL: the study's) */
	double bound_s;                  /* bounded slowdown's bound (10 s) */
	/* Limits: with pred MPP_EASY_REQUESTED the scheduler plans with the
	 * limit (what Slurm knows of a job); other preds are refused. */
	int limits; /* enum mpp_easy_limit */
	/* The extension policy (server/extend.c's rule): at 90 % of its
	 * limit a job still running is estimated to end at its run time x
	 * ext_ratio[i] (the predictor's upper bound against the truth, its
	 * real answers, taken in turn); an end past the limit by at most
	 * min(ext_cap_pct % of it, ext_cap_s) becomes the limit, a farther
	 * one is left alone (the user told). next_ratio 0: no policy. */
	const double *ext_ratio;
	size_t next_ratio;
	double ext_cap_pct, ext_cap_s;
} mpp_easy_opts;

/* Per job, filled by mpp_easy_run (arrays of n, the caller's). */
typedef struct mpp_easy_job_out {
	double start_s;
	double end_s;         /* its end: run time, or killed at its limit */
	double pred_s;        /* the prediction made at submission */
	double reservation_s; /* first reservation made for it as the head
				 of the queue; -1 when it never waited there */
	int corrections;      /* times its prediction was raised */
} mpp_easy_job_out;

typedef struct mpp_easy_stats {
	size_t njobs;
	double avebsld; /* mean bounded slowdown */
	double mean_wait_s;
	double mae_s;       /* mean |prediction at submission - run time| */
	double under_share; /* share of jobs predicted below their run time */
	size_t corrections; /* total prediction raises */
	/* With limits: jobs killed at their limit, their processor-seconds
	 * (the tail waste), jobs extended, of them those that then finished,
	 * and those whose estimate was past the cap (left alone). */
	size_t killed, extended, saved, over_cap;
	double waste_ps;
} mpp_easy_stats;

/* Replay jobs[0..n) (submit times not decreasing). out may be NULL.
 * Returns 0, MPP_EINVAL (a job wider than the machine, bad options: err
 * says which), MPP_ENOMEM. */
int mpp_easy_run(const mpp_swf_job *jobs, size_t n, const mpp_easy_opts *o,
		 mpp_easy_job_out *out, mpp_easy_stats *st, char *err,
		 size_t errlen);

#endif
