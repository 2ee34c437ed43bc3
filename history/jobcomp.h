/*
 * jobcomp.h: a finished job's record as Slurm's jobcomp/script plugin
 * hands it over (environment variables JOBID, UID, USERNAME, JOBSTATE,
 * SUBMIT, START, END, LIMIT, PROCS, NODECNT, PARTITION, ACCOUNT, JOBNAME),
 * checked and turned into a row of the jobs table (schema/store.h).
 *
 * The same names serve a spool file (mpipredict-jobcomp --from): one
 * record per line, KEY=VALUE fields separated by tabs. Not for sacct or
 * slurmdbd output.
 */
#ifndef MPP_HISTORY_JOBCOMP_H
#define MPP_HISTORY_JOBCOMP_H

#include <stddef.h>

#include "schema/store.h"

/* Looks a field up by name; NULL when absent. */
typedef const char *(*mpp_jobcomp_get)(void *ctx, const char *key);

typedef struct mpp_jobcomp {
	mpp_job_rec rec; /* strings point into the source, or into user */
	char user[48];   /* "uid:N" when USERNAME is absent */
} mpp_jobcomp;

/* Fills out from the fields get finds. Returns 0, or MPP_EINVAL with err
 * naming the first wrong field ("END: not a time (got 'x')", "JOBID:
 * missing"). A job that never started has start_at and runtime_s 0. */
int mpp_jobcomp_parse(mpp_jobcomp_get get, void *ctx, mpp_jobcomp *out,
		      char *err, size_t errlen);

/* Slurm's time limit text: "UNLIMITED" (NAN), minutes ("30"), or
 * [days-]hours:minutes:seconds, minutes:seconds. -1 when malformed. */
int mpp_jobcomp_limit(const char *s, double *seconds);

#endif
