/*
 * jobcomp.h: a finished job's record as Slurm's jobcomp/script plugin
 * hands it over (environment variables JOBID, UID, USERNAME, JOBSTATE,
 * SUBMIT, START, END, LIMIT, PROCS, NODECNT, PARTITION, ACCOUNT, JOBNAME),
 * checked and turned into a row of the jobs table (schema/store.h).
 *
 * The same names serve a spool file (mpipredict-jobcomp --from) and the
 * body of the daemon's POST /v1/jobs: one record per line, KEY=VALUE
 * fields separated by tabs (mpp_jobcomp_split). Text fields follow the
 * rule of every route into the store (common/text.h), so the command and
 * the daemon refuse the same records. Not for sacct or slurmdbd output.
 */
#ifndef MPP_HISTORY_JOBCOMP_H
#define MPP_HISTORY_JOBCOMP_H

#include <stddef.h>

#include "schema/store.h"

/* What each user keeps in the jobs table by default (--keep): the last 64
 * jobs by end time, for the command and the daemon alike. */
#define MPP_JOBCOMP_KEEP 64

/* Looks a field up by name; NULL when absent. */
typedef const char *(*mpp_jobcomp_get)(void *ctx, const char *key);

typedef struct mpp_jobcomp {
	mpp_job_rec rec; /* strings point into the source, or into user */
	char user[48];   /* "uid:N" when USERNAME is absent */
} mpp_jobcomp;

/* One record's fields, split in place (pointers into the line). */
typedef struct mpp_jobcomp_line {
	char *key[64], *val[64];
	int n;
} mpp_jobcomp_line;

/* Splits line[0..len) (its end of line already removed) in place into
 * KEY=VALUE fields at tabs; empty fields are skipped. Returns 0, or
 * MPP_EINVAL with err saying why ("field 'x' is not KEY=VALUE", "more
 * than 64 fields", "USERNAME: contains a NUL byte"). */
int mpp_jobcomp_split(char *line, size_t len, mpp_jobcomp_line *f, char *err,
		      size_t errlen);

/* An mpp_jobcomp_get over a split line (ctx: the mpp_jobcomp_line); the
 * first field of a key counts. */
const char *mpp_jobcomp_line_get(void *ctx, const char *key);

/* Fills out from the fields get finds. Returns 0, or MPP_EINVAL with err
 * naming the first wrong field ("END: not a time (got 'x')", "JOBID:
 * missing", "JOBNAME: contains a control byte (0x0a at byte 3)", "PROCS:
 * 0 for a job that started"). USERNAME, JOBID, PARTITION, ACCOUNT and
 * JOBNAME are labels (common/text.h: strict UTF-8, no control byte, at
 * most 256 bytes). PROCS and NODECNT are > 0 for a job that started; for
 * one that never did, 0 is stored as unknown. A job that never started
 * has start_at and runtime_s 0. */
int mpp_jobcomp_parse(mpp_jobcomp_get get, void *ctx, mpp_jobcomp *out,
		      char *err, size_t errlen);

/* Slurm's time limit text: "UNLIMITED" (NAN), minutes ("30"), or
 * [days-]hours:minutes:seconds, minutes:seconds. -1 when malformed. */
int mpp_jobcomp_limit(const char *s, double *seconds);

#endif
