/*
 * challenge.h: champion and challenger. Whether a newly trained model (the
 * challenger) should replace an app's active one (the champion), judged on
 * held-back runs that neither was fitted on.
 *
 * The held-back sample is fixed by the run ids alone: a run is held back
 * when the FNV-1a (32-bit) hash of its run_id is 0 mod 5, so about one run
 * in five, the same runs at every retraining, old and new alike, and never
 * trained on in challenger mode. Both models answer each held-back run from
 * its measured features (mpp_model_predict_features, the path of
 * mpipredict-predict --features) and are scored by MAPE on the runs both
 * answer.
 *
 * The rule (mpp_challenge_decide), in order:
 *   no champion                     -> promoted ("first model");
 *   the runs moved: on more than half of those the champion answers
 *   (at least 3; the held-back runs and the runs that arrived after it
 *   was trained), their run time lies beyond its interval on one side,
 *   and the median of run time / its answer is 2x or more (1/2 or less)
 *                                   -> drift (the data's);
 *   fewer than 3 runs compared      -> rejected: no comparison, the
 *                                      champion stays;
 *   on more than half the runs the challenger's answer is outside the
 *   champion's interval and the champion's outside the challenger's
 *                                   -> drift: held as a candidate until an
 *                                      admin promotes it;
 *   challenger MAPE <= champion MAPE + margin (percentage points)
 *                                   -> promoted; else rejected.
 *
 * Used by mpipredict-train --challenger. Nothing here reads or writes the
 * store. Errors: MPP_ENOMEM, with a message in err.
 */
#ifndef MPP_CHALLENGE_H
#define MPP_CHALLENGE_H

#include <stddef.h>

#include "regress/model.h"
#include "regress/runs.h"

/* Held-back runs: 1 in MPP_HOLDOUT_MOD by the hash of the run id. */
#define MPP_HOLDOUT_MOD 5
/* Fewer runs compared than this: no comparison. */
#define MPP_HOLDOUT_MIN 3
/* The default margin, in percentage points of MAPE. */
#define MPP_CHALLENGE_MARGIN 2.0
/* Runs whose median time moved this factor from the champion's answers
 * (beyond its interval) are a drift. */
#define MPP_DRIFT_FACTOR 2.0

/* 1 when the run with this id is held back, else 0. */
int mpp_holdout(const char *run_id);

/* FNV-1a, 32 bits, of the string's bytes (documented so that a site can
 * tell which of its runs are held back). */
unsigned long mpp_fnv1a32(const char *s);

enum mpp_challenge_kind {
	MPP_CHALLENGE_PROMOTED,
	MPP_CHALLENGE_REJECTED,
	MPP_CHALLENGE_DRIFT,
};

typedef struct mpp_challenge {
	size_t nheld;     /* held-back runs of the app */
	size_t ncompared; /* of them, answered by both models */
	size_t nbeyond;   /* of those, beyond both intervals */
	double champion_mape, challenger_mape; /* percent; NAN: none */
	double median_ratio; /* challenger / champion answers; NAN: none */
	/* The first held-back run a model could not answer, and why (""
	 * when all were answered). */
	char unanswered[384];
	size_t champion_failed, challenger_failed;
	/* The held-back and newer runs against the champion alone: how
	 * many it answered, how many ran longer than its upper bound or
	 * shorter than its lower, and the median of run time / its answer
	 * (NAN: none). */
	size_t nchampion, above, below;
	double actual_ratio;
	/* The decision (mpp_challenge_decide). */
	int kind; /* enum mpp_challenge_kind */
	char reason[768];
} mpp_challenge;

/* Answer rows[0..n) of rs (the held-back runs) with both models and fill
 * out's counts and errors. champion may be NULL (none yet). newer[0..
 * nnewer) are other runs the champion was not trained on (those that
 * arrived after it): only whether they moved from its answers counts. */
int mpp_challenge_compare(const mpp_model *champion,
			  const mpp_model *challenger, const mpp_runs *rs,
			  const size_t *rows, size_t n, const size_t *newer,
			  size_t nnewer, mpp_challenge *out, char *err,
			  size_t errlen);

/* Apply the rule above with `margin` (percentage points): sets out->kind
 * and out->reason, a sentence for a person and the log, naming the
 * versions (champion_version 0: none; challenger_version the one it will be
 * stored as) and, for a drift, what to do. */
void mpp_challenge_decide(mpp_challenge *out, const char *app,
			  int champion_version, int challenger_version,
			  double margin);

#endif
