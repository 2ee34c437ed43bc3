/*
 * extend.h: the limit-extension policy (issue 37), off by default
 * (mpipredictd --extend on). On each progress post of a running job
 * (progress.h), when the job's predicted end (its run time so far plus
 * the upper bound of its remaining time) is past its time limit by a need
 * within the site's cap (the smaller of --extend-cap-pct of the limit and
 * --extend-cap-s), the job's limit is raised to cover it, rounded up to
 * whole minutes, through Slurm itself: `scontrol update JobId=N
 * TimeLimit=M`, once no reservation starts on the job's nodes before the
 * new end (`scontrol show reservation`). A limit is never shortened; a job
 * is extended at most once. The user is told in the job's Comment (also
 * when the need is over the cap: in advance, the job not extended; told
 * only when the prediction itself, not just its upper bound, needs more
 * than the cap: in between, a later post decides) and the
 * daemon logs a notice line. Every action is a row of the store's
 * extensions table, counted in /metrics and listed on the staff page.
 *
 * scontrol runs on a worker thread of this file's (posix_spawn, bounded by
 * a timeout), never on the thread that answered the post.
 * Not for: the estimate itself (progress.c).
 */
#ifndef MPP_SERVER_EXTEND_H
#define MPP_SERVER_EXTEND_H

#include <stddef.h>
#include <stdio.h>

typedef struct mpp_extend_config {
	const char *db_path;  /* the store: the audit rows */
	const char *scontrol; /* the scontrol to run (a path or a name) */
	double cap_pct;       /* of the job's limit, > 0 */
	double cap_s;         /* seconds, > 0 */
	double timeout_s;     /* one scontrol call at most */
} mpp_extend_config;

/* Starts the worker (one per process). 0, or -1 with err. */
int mpp_extend_start(const mpp_extend_config *c, char *err, size_t errlen);

/* Stops the worker (after its current scontrol call); no-op when not
 * started. */
void mpp_extend_stop(void);

/* A progress post's estimate: received_at (unix time) when the post came,
 * elapsed_s the job's seconds since its program started, remaining_s its
 * predicted remaining time and upper_s that interval's upper bound,
 * limit_s the limit the job posted (<= 0:
 * unknown). Queues the job for the worker when it may outlive its limit;
 * cheap and never blocks on Slurm. No-op when the policy is off. */
void mpp_extend_consider(const char *job_id, double received_at,
			 double elapsed_s, double remaining_s, double upper_s,
			 double limit_s);

/* The staff page's "Limit extensions" section: the newest actions from
 * the store at db_path, or a line saying the policy is off. */
void mpp_extend_page(FILE *f, const char *db_path);

#endif
