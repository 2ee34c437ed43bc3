/*
 * choose.c: the history predictor and corrector chosen from a site's own
 * finished jobs (choose.h). One EASY++ replay per candidate over all the
 * jobs; each part is scored from the same replay's per-job starts, so the
 * newest part's predictors have learnt from the older part as they would
 * have in service.
 */
#include "history/choose.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "history/easy.h"
#include "history/history.h"

static const int cand_method[MPP_CHOOSE_NCAND] = {
    MPP_HIST_TSAFRIR, MPP_HIST_TSAFRIR, MPP_HIST_OURS,   MPP_HIST_OURS,
    MPP_HIST_LEARNED, MPP_HIST_LEARNED, MPP_HIST_ONLINE, MPP_HIST_ONLINE};
static const char *const cand_name[MPP_CHOOSE_NCAND] = {
    "tsafrir/steps", "tsafrir/request", "ours/steps",   "ours/request",
    "learned/steps", "learned/request", "online/steps", "online/request"};

void mpp_choose_candidate(int i, int *method, int *corrector)
{
	*method = cand_method[i];
	*corrector = i % 2 ? MPP_EASY_CORRECT_REQUEST : MPP_EASY_CORRECT_STEPS;
}

const char *mpp_choose_name(int i)
{
	return i >= 0 && i < MPP_CHOOSE_NCAND ? cand_name[i] : "?";
}

int mpp_choose_parse(const char *s, int *i)
{
	char buf[64];

	if (!strchr(s, '/') && strlen(s) < 32)
		snprintf(buf, sizeof(buf), "%s/steps", s);
	else
		snprintf(buf, sizeof(buf), "%s", s);
	for (int k = 0; k < MPP_CHOOSE_NCAND; k++)
		if (strcmp(buf, cand_name[k]) == 0) {
			*i = k;
			return 0;
		}
	return -1;
}

/* AVEbsld, MAE and share under-predicted of jobs[a..b) in one replay. */
static void part(const mpp_swf_job *jobs, const mpp_easy_job_out *out, size_t a,
		 size_t b, double bound_s, double *avebsld, double *mae,
		 double *under)
{
	double bsld = 0, ae = 0, nu = 0;

	for (size_t k = a; k < b; k++) {
		double run = jobs[k].run_s;
		double w = out[k].start_s - jobs[k].submit_s;
		double x = (w + run) / (run > bound_s ? run : bound_s);
		bsld += x > 1 ? x : 1;
		ae += fabs(out[k].pred_s - run);
		nu += out[k].pred_s < run;
	}
	*avebsld = bsld / (double)(b - a);
	*mae = ae / (double)(b - a);
	*under = nu / (double)(b - a);
}

void mpp_choose_pick(mpp_choose_result *r, double margin)
{
	double lo = r->cand[0].avebsld_old;
	const mpp_choose_score *ch, *cp = &r->cand[r->champion];

	for (int i = 1; i < MPP_CHOOSE_NCAND; i++)
		if (r->cand[i].avebsld_old < lo)
			lo = r->cand[i].avebsld_old;
	/* Among those within the margin of the best on the older part, the
	 * most accurate there; ties go to the earlier candidate, the simpler.
	 */
	r->challenger = -1;
	for (int i = 0; i < MPP_CHOOSE_NCAND; i++)
		if (r->cand[i].avebsld_old <= lo * (1 + margin) &&
		    (r->challenger < 0 ||
		     r->cand[i].mae_old_s < r->cand[r->challenger].mae_old_s))
			r->challenger = i;
	ch = &r->cand[r->challenger];
	r->chosen = r->champion;
	if (ch->avebsld_new < cp->avebsld_new * (1 - margin) &&
	    ch->mae_new_s <= cp->mae_new_s)
		r->chosen = r->challenger;
}

int mpp_choose(const mpp_swf_job *jobs, size_t n, const mpp_choose_opts *o,
	       mpp_choose_result *r, char *err, size_t errlen)
{
	double split =
	    o->split > 0 && o->split < 1 ? o->split : MPP_CHOOSE_SPLIT;
	double margin = o->margin >= 0 ? o->margin : MPP_CHOOSE_MARGIN;
	mpp_swf_job *js;
	mpp_easy_job_out *out;
	size_t m = (size_t)floor(split * (double)n);
	int rc = MPP_OK;

	memset(r, 0, sizeof(*r));
	if (o->procs < 1 || n < 4 || m < 2 || n - m < 2) {
		snprintf(err, errlen,
			 "%zu jobs on %d processors: too few to choose (at "
			 "least 2 in each part)",
			 n, o->procs);
		return MPP_EINVAL;
	}
	js = malloc(n * sizeof(*js));
	out = calloc(n, sizeof(*out));
	if (!js || !out) {
		free(js);
		free(out);
		snprintf(err, errlen, "out of memory");
		return MPP_ENOMEM;
	}
	memcpy(js, jobs, n * sizeof(*js));
	for (size_t k = 0; k < n; k++)
		if (js[k].procs > o->procs)
			js[k].procs = o->procs;
	r->nold = m;
	r->nnew = n - m;
	r->champion = o->champion >= 0 && o->champion < MPP_CHOOSE_NCAND
			  ? o->champion
			  : 0;
	r->challenger = 0;
	for (int i = 0; rc == MPP_OK && i < MPP_CHOOSE_NCAND; i++) {
		mpp_choose_score *c = &r->cand[i];
		mpp_easy_opts eo = {.procs = o->procs,
				    .sjbf = 1,
				    .pred = MPP_EASY_HISTORY,
				    .bound_s = 10};
		mpp_easy_stats st;
		double under_old;

		mpp_choose_candidate(i, &eo.hist_method, &eo.corrector);
		c->method = eo.hist_method;
		c->corrector = eo.corrector;
		rc = mpp_easy_run(js, n, &eo, out, &st, err, errlen);
		if (rc)
			break;
		part(js, out, 0, m, eo.bound_s, &c->avebsld_old, &c->mae_old_s,
		     &under_old);
		part(js, out, m, n, eo.bound_s, &c->avebsld_new, &c->mae_new_s,
		     &c->under_new);
	}
	free(js);
	free(out);
	if (rc)
		return rc;
	mpp_choose_pick(r, margin);
	return MPP_OK;
}
