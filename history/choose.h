/*
 * choose.h: the history predictor and corrector a site should use, chosen
 * from its own finished jobs. Used by mpipredict-replay --pred auto and by
 * the daemon's --history auto (server/hist.c): one rule for both.
 *
 * Each candidate (tsafrir, ours, learned, online, each with the step and
 * the request corrector) replays the jobs through EASY++ (easy.h). The
 * jobs are cut in two by submission order: the older part (the first
 * `split` of them) chooses the challenger: of the candidates whose AVEbsld
 * there is within `margin` (5 % by default) of the lowest, the one with
 * the lowest MAE there (the MAE is what a user sees of a prediction;
 * AVEbsld differences within the margin are mostly chance, a candidate's
 * rank moving from one part of a trace to the next). The newest part,
 * which it was not chosen on, judges it against the champion (the current
 * choice): the challenger replaces the champion only when, there, its
 * AVEbsld is below the champion's by more than `margin` and its MAE is
 * not above the champion's (a scheduler's gain bought with wilder answers
 * is not taken). The spirit of regress/challenge.h: a switch needs
 * evidence the candidate did not see. Deterministic (the replays are).
 *
 * Not thread-safe per call, but calls share nothing: a daemon may run one
 * off its request threads.
 */
#ifndef MPP_HISTORY_CHOOSE_H
#define MPP_HISTORY_CHOOSE_H

#include <stddef.h>

#include "history/swf.h"

/* 4 predictors x 2 correctors (easy.h's steps and request). */
enum { MPP_CHOOSE_NCAND = 8 };

/* The default margin, a share of the champion's AVEbsld. */
#define MPP_CHOOSE_MARGIN 0.05
/* The default older part, a share of the jobs. */
#define MPP_CHOOSE_SPLIT 0.5

typedef struct mpp_choose_opts {
	int procs;     /* machine size (> 0; wider jobs are clamped) */
	double split;  /* older part's share in (0, 1) (0: default) */
	double margin; /* >= 0 (negative: default) */
	int champion;  /* index into the candidates (-1: tsafrir/steps) */
} mpp_choose_opts;

typedef struct mpp_choose_score {
	int method;         /* history.h method */
	int corrector;      /* easy.h corrector */
	double avebsld_old; /* on the older part */
	double avebsld_new; /* on the newest part */
	double mae_old_s;   /* on the older part */
	double mae_new_s;   /* on the newest part */
	double under_new;   /* share under-predicted on the newest part */
} mpp_choose_score;

typedef struct mpp_choose_result {
	mpp_choose_score cand[MPP_CHOOSE_NCAND];
	size_t nold, nnew; /* jobs in each part */
	int challenger;    /* chosen on the older part (above) */
	int champion;      /* the choice before this call */
	int chosen;        /* the choice: champion or challenger */
} mpp_choose_result;

/* Candidate i's method and corrector (0 <= i < MPP_CHOOSE_NCAND); the
 * name "tsafrir/steps"-like of candidate i. */
void mpp_choose_candidate(int i, int *method, int *corrector);
const char *mpp_choose_name(int i);
/* "PRED/CORRECTOR" (or "PRED": steps) into an index: 0, else -1. */
int mpp_choose_parse(const char *s, int *i);

/* Chooses over jobs[0..n) in submission order (at least 4 jobs; fewer, or
 * no job in a part: MPP_EINVAL with err). Jobs wider than procs are
 * clamped to it (a machine size guessed from a table may be short). */
int mpp_choose(const mpp_swf_job *jobs, size_t n, const mpp_choose_opts *o,
	       mpp_choose_result *r, char *err, size_t errlen);
/* The rule alone, on scores already in r->cand (r->champion set): sets
 * r->challenger and r->chosen. margin >= 0. */
void mpp_choose_pick(mpp_choose_result *r, double margin);

#endif
