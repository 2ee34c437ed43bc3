/*
 * policy.c: applies a prediction to a job (see policy.h and the mode table
 * in contrib/slurm/README.md): predicted minutes = ceil(upper_s * safety /
 * 60), at least min_minutes, capped by max_minutes or the partition's
 * partition_max_minutes; the user's comment kept whole.
 *
 * Not for: anything that waits; every rule here is arithmetic on the job.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <slurm/slurm.h>

#include "contrib/slurm/config.h"
#include "contrib/slurm/policy.h"
#include "contrib/slurm/slurm_api.h"

/* slurmctld 22.05 refuses a job whose comment is longer than this many
 * bytes ("Pathname of a file, directory or other parameter too long",
 * ESLURM_PATHNAME_TOO_LONG), and checks it after job_submit plugins ran:
 * sbatch --comment of 1024 bytes is accepted, 1025 refused (measured, see
 * contrib/slurm/README.md). */
#define COMMENT_MAX 1024

bool mpp_app_allowed(const char *app)
{
	if (!mpp_cfg.napps)
		return true;
	for (int i = 0; i < mpp_cfg.napps; i++)
		if (!strcmp(mpp_cfg.apps[i], app))
			return true;
	return false;
}

bool mpp_user_opted_out(uid_t uid)
{
	for (int i = 0; i < mpp_cfg.nopt_out; i++)
		if (mpp_cfg.opt_out[i] == uid)
			return true;
	return false;
}

/* The prediction's upper bound times the safety factor, in whole minutes,
 * at least min_minutes. */
static uint32_t predicted_minutes(const struct mpp_prediction *p)
{
	double m = ceil(p->upper_s * mpp_cfg.safety / 60.0);

	if (m < mpp_cfg.min_minutes)
		m = mpp_cfg.min_minutes;
	return m > 525600 ? 525600 : (uint32_t)m;
}

/* The longest limit the plugin may give the job: max_minutes, or less for
 * a partition it asked for (a comma-separated list: the smallest) named in
 * partition_max_minutes. A limit over the partition's MaxTime would leave
 * the job pending for ever (reason PartitionTimeLimit). 0: no cap. */
static uint32_t cap_minutes(const job_desc_msg_t *job)
{
	uint32_t cap = mpp_cfg.max_minutes;
	const char *p = job->partition;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		for (int i = 0; i < mpp_cfg.nparts; i++)
			if (strlen(mpp_cfg.parts[i].name) == n &&
			    !strncmp(mpp_cfg.parts[i].name, p, n) &&
			    (!cap || mpp_cfg.parts[i].minutes < cap))
				cap = mpp_cfg.parts[i].minutes;
		p += n + (p[n] == ',');
	}
	return cap;
}

/* Appends the prediction to the user's comment, which is kept whole: the
 * full note if the result fits in COMMENT_MAX bytes, else the runtime
 * alone, else nothing (a longer comment gets the job refused). */
static void append_comment(job_desc_msg_t *job, const struct mpp_prediction *p)
{
	char full[400], brief[64], text[COMMENT_MAX + 1];
	const char *notes[] = {full, brief};
	const char *mine = job->comment ? job->comment : "";
	size_t have = strlen(mine);

	if (p->version >= 0)
		snprintf(full, sizeof(full),
			 "mpipredict: %.0fs [%.0f,%.0f] %s@%lld", p->runtime_s,
			 p->lower_s, p->upper_s, p->app, (long long)p->version);
	else
		snprintf(full, sizeof(full), "mpipredict: %.0fs [%.0f,%.0f] %s",
			 p->runtime_s, p->lower_s, p->upper_s, p->app);
	snprintf(brief, sizeof(brief), "mpipredict: %.0fs", p->runtime_s);
	for (int i = 0; i < 2; i++) {
		if (have + (have ? 2 : 0) + strlen(notes[i]) > COMMENT_MAX)
			continue;
		snprintf(text, sizeof(text), "%s%s%s", mine, have ? "; " : "",
			 notes[i]);
		slurm_xfree((void **)&job->comment);
		job->comment = slurm_xstrdup(text);
		return;
	}
	slurm_debug(PFX "comment of %zu bytes leaves no room for the "
			"prediction; comment kept as it is",
		    have);
}

void mpp_apply(job_desc_msg_t *job, const struct mpp_prediction *p)
{
	uint32_t m = predicted_minutes(p), cap = cap_minutes(job);
	bool user_limit =
	    job->time_limit != NO_VAL && job->time_limit != INFINITE;
	uint32_t tmin =
	    job->time_min != NO_VAL && job->time_min != 0 ? job->time_min : 0;

	append_comment(job, p);
	if (mpp_cfg.mode == MPP_MODE_TIME_MIN) {
		/* Backfill may shorten the job down to time_min: never set
		 * it below the prediction (so never clamped down), above the
		 * user's limit, or over the user's own time_min. Without a
		 * user's limit the job gets the partition's DefaultTime,
		 * which the plugin cannot see; a time_min over it makes
		 * slurmctld reject the job, so then nothing is set. */
		if (tmin)
			return;
		if (!user_limit || m > job->time_limit || (cap && m > cap))
			return;
		job->time_min = m;
	} else if (mpp_cfg.mode == MPP_MODE_FILL) {
		/* A limit below the job's time_min makes slurmctld reject
		 * it (ESLURM_INVALID_TIME_MIN_LIMIT): raise it to time_min,
		 * and set nothing when that is over the cap. */
		if (cap && m > cap)
			m = cap;
		if (m < tmin)
			m = tmin;
		if (cap && m > cap)
			return;
		if (job->time_limit == NO_VAL)
			job->time_limit = m;
		else if (mpp_cfg.lower_user_limit && user_limit &&
			 m < job->time_limit)
			job->time_limit = m;
	}
}
