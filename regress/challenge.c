/*
 * challenge.c: champion against challenger on held-back runs
 * (challenge.h). It scores and decides; storing the outcome is the
 * caller's (cli/train_main.c with schema/store.h).
 */
#include "regress/challenge.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regress/params.h"

unsigned long mpp_fnv1a32(const char *s)
{
	unsigned long h = 2166136261UL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h = (h * 16777619UL) & 0xffffffffUL;
	}
	return h;
}

int mpp_holdout(const char *run_id)
{
	return mpp_fnv1a32(run_id ? run_id : "") % MPP_HOLDOUT_MOD == 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* One model's answer to a run; 0 or the predict function's status with
 * why in err. */
static int answer(const mpp_model *m, const mpp_kv *kv, size_t n,
		  const mpp_run *run, mpp_prediction *out, char *err,
		  size_t errlen)
{
	mpp_params p = {0};
	int known = mpp_params_from_string(run->args, run->nprocs, run->nnodes,
					   &p) == MPP_OK;
	int rc = mpp_model_predict_features(m, kv, n, known ? &p : NULL, out,
					    err, errlen);
	mpp_params_free(&p);
	return rc;
}

/* The median of v[0..n) (sorted here; n > 0), the geometric mean of the
 * middle two when n is even: v holds ratios. */
static double median_ratio(double *v, size_t n)
{
	size_t h = n / 2;

	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[h] : sqrt(v[h - 1] * v[h]);
}

/* The first run a model could not answer, and why, for the reason. */
static void note_unanswered(mpp_challenge *out, const char *who,
			    const char *run, const char *why)
{
	if (!out->unanswered[0])
		snprintf(out->unanswered, sizeof(out->unanswered),
			 "the %s on run %s: %.300s", who, run, why);
}

/* The features of run r as name/value pairs in kv; returns how many. */
static size_t run_kv(const mpp_runs *rs, const mpp_run *r, mpp_kv *kv)
{
	size_t nk = 0;

	for (size_t f = 0; f < rs->nfeatures; f++) {
		if (isnan(r->values[f]))
			continue;
		kv[nk].name = rs->features[f];
		kv[nk++].value = r->values[f];
	}
	return nk;
}

int mpp_challenge_compare(const mpp_model *champion,
			  const mpp_model *challenger, const mpp_runs *rs,
			  const size_t *rows, size_t n, const size_t *newer,
			  size_t nnewer, mpp_challenge *out, char *err,
			  size_t errlen)
{
	mpp_kv *kv = malloc((rs->nfeatures + 1) * sizeof(*kv));
	double *ratio = malloc((n + 1) * sizeof(*ratio));
	double *moved = malloc((n + nnewer + 1) * sizeof(*moved));
	double sum_champ = 0, sum_chall = 0;
	char why[512];

	memset(out, 0, sizeof(*out));
	out->nheld = n;
	out->champion_mape = out->challenger_mape = NAN;
	out->median_ratio = out->actual_ratio = NAN;
	if (!kv || !ratio || !moved) {
		free(kv);
		free(ratio);
		free(moved);
		snprintf(err, errlen, "out of memory comparing models");
		return MPP_ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		const mpp_run *run = &rs->runs[rows[i]];
		mpp_prediction a, b;
		size_t nk = run_kv(rs, run, kv);
		int has_b =
		    !answer(challenger, kv, nk, run, &b, why, sizeof(why));
		if (!has_b) {
			note_unanswered(out, "challenger", run->run_id, why);
			out->challenger_failed++;
		}
		int has_a = champion && !answer(champion, kv, nk, run, &a, why,
						sizeof(why));
		if (champion && !has_a) {
			note_unanswered(out, "champion", run->run_id, why);
			out->champion_failed++;
		}
		if (!(run->runtime_s > 0))
			continue;
		/* Where the run's own time lies against the champion's
		 * answer, whatever the challenger made of it. */
		if (has_a) {
			out->above += run->runtime_s > a.upper_s;
			out->below += run->runtime_s < a.lower_s;
			moved[out->nchampion++] = run->runtime_s / a.runtime_s;
		}
		if (!has_b || (champion && !has_a))
			continue;
		double e = fabs(b.runtime_s - run->runtime_s) / run->runtime_s;
		sum_chall += e;
		/* No champion: the challenger's own error, for the record. */
		if (!champion) {
			out->ncompared++;
			continue;
		}
		sum_champ +=
		    fabs(a.runtime_s - run->runtime_s) / run->runtime_s;
		/* Beyond both intervals: each answer outside the other's. */
		int b_out = b.runtime_s < a.lower_s || b.runtime_s > a.upper_s;
		int a_out = a.runtime_s < b.lower_s || a.runtime_s > b.upper_s;
		out->nbeyond += a_out && b_out;
		ratio[out->ncompared++] = b.runtime_s / a.runtime_s;
	}
	/* The runs that arrived after the champion: did they move? */
	for (size_t i = 0; champion && i < nnewer; i++) {
		const mpp_run *run = &rs->runs[newer[i]];
		mpp_prediction a;
		size_t nk = run_kv(rs, run, kv);
		if (!(run->runtime_s > 0) ||
		    answer(champion, kv, nk, run, &a, why, sizeof(why)))
			continue;
		out->above += run->runtime_s > a.upper_s;
		out->below += run->runtime_s < a.lower_s;
		moved[out->nchampion++] = run->runtime_s / a.runtime_s;
	}
	if (out->ncompared)
		out->challenger_mape = 100 * sum_chall / (double)out->ncompared;
	if (out->ncompared && champion) {
		out->champion_mape = 100 * sum_champ / (double)out->ncompared;
		out->median_ratio = median_ratio(ratio, out->ncompared);
	}
	if (out->nchampion)
		out->actual_ratio = median_ratio(moved, out->nchampion);
	free(kv);
	free(ratio);
	free(moved);
	return MPP_OK;
}

void mpp_challenge_decide(mpp_challenge *c, const char *app,
			  int champion_version, int challenger_version,
			  double margin)
{
	size_t n = c->ncompared;

	if (champion_version <= 0) {
		c->kind = MPP_CHALLENGE_PROMOTED;
		if (n)
			snprintf(c->reason, sizeof(c->reason),
				 "first model (holdout MAPE %.1f %%, %zu runs)",
				 c->challenger_mape, n);
		else
			snprintf(c->reason, sizeof(c->reason), "first model");
		return;
	}
	/* The runs moved away from the champion, beyond its interval and by
	 * a factor: whatever the challenger, that is for an admin to judge
	 * (a challenger trained on old and moved runs together may even be
	 * unable to answer: its interval spans too much). */
	size_t side = c->above > c->below ? c->above : c->below;
	if (c->nchampion >= MPP_HOLDOUT_MIN && 2 * side > c->nchampion &&
	    (c->actual_ratio >= MPP_DRIFT_FACTOR ||
	     c->actual_ratio <= 1 / MPP_DRIFT_FACTOR)) {
		c->kind = MPP_CHALLENGE_DRIFT;
		snprintf(c->reason, sizeof(c->reason),
			 "the runs moved: their run times are %.3gx the "
			 "champion's answers (median), %s its interval on %zu "
			 "of %zu (held back or newer than it); a new machine, "
			 "compiler or input set, or "
			 "broken rows? Check them, then mpipredict-model "
			 "promote --app %s --version %d",
			 c->actual_ratio,
			 c->above > c->below ? "above" : "below", side,
			 c->nchampion, app, challenger_version);
		return;
	}
	if (n < MPP_HOLDOUT_MIN) {
		c->kind = MPP_CHALLENGE_REJECTED;
		snprintf(c->reason, sizeof(c->reason),
			 "no comparison: %zu of %zu held-back runs answered "
			 "by both models, %d are needed%s%s; version %d stays "
			 "active (mpipredict-model promote --app %s --version "
			 "%d makes this one active)",
			 n, c->nheld, MPP_HOLDOUT_MIN,
			 c->unanswered[0] ? "; " : "", c->unanswered,
			 champion_version, app, challenger_version);
		return;
	}
	if (2 * c->nbeyond > n) {
		c->kind = MPP_CHALLENGE_DRIFT;
		snprintf(c->reason, sizeof(c->reason),
			 "its answers are %.3gx the champion's (median) and "
			 "beyond both intervals on %zu of %zu "
			 "held-back runs (holdout MAPE %.1f %% against %.1f "
			 "%%); a new machine, compiler or input set, or "
			 "broken rows? Check them, then mpipredict-model "
			 "promote --app %s --version %d",
			 c->median_ratio, c->nbeyond, n, c->challenger_mape,
			 c->champion_mape, app, challenger_version);
		return;
	}
	if (c->challenger_mape <= c->champion_mape + margin) {
		c->kind = MPP_CHALLENGE_PROMOTED;
		snprintf(c->reason, sizeof(c->reason),
			 "holdout MAPE %.1f %% against %.1f %% (version %d), "
			 "%zu runs",
			 c->challenger_mape, c->champion_mape, champion_version,
			 n);
		return;
	}
	c->kind = MPP_CHALLENGE_REJECTED;
	snprintf(c->reason, sizeof(c->reason),
		 "holdout MAPE %.1f %% against %.1f %% (version %d), "
		 "beyond the margin of %.3g points, %zu runs; version %d "
		 "stays active",
		 c->challenger_mape, c->champion_mape, champion_version, margin,
		 n, champion_version);
}
