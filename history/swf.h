/*
 * swf.h: reads job traces in the Standard Workload Format of the Parallel
 * Workloads Archive (18 whitespace-separated fields per job line, ';'
 * comment lines), for the trace replay. Not a general SWF toolkit: it keeps
 * the fields the replay uses and applies the usual cleaning of the
 * simulators the SC'15 study used (see swf.c).
 */
#ifndef MPP_HISTORY_SWF_H
#define MPP_HISTORY_SWF_H

#include <stddef.h>
#include <stdio.h>

typedef struct mpp_swf_job {
	long id;
	double submit_s; /* field 2 */
	double run_s;    /* field 4, at least 1 and at most req_s */
	double req_s;    /* field 9, at least run_s */
	int procs;       /* field 5 (allocated), else field 8 (requested) */
	long user;       /* field 12 */
	long app;        /* field 14, -1 when unknown */
} mpp_swf_job;

/* Read every job line of f (named `name` in messages) into a malloc'ed
 * array *jobs of *n jobs, the caller's to free(). Lines with a
 * non-positive run time or processor count are skipped (*skipped counts
 * them). A line that is not 18 numbers is MPP_EINVAL with "name:line:
 * field N: ..." in err. Jobs are returned in file order; submit times must
 * not decrease (MPP_EINVAL otherwise). */
int mpp_swf_read(FILE *f, const char *name, mpp_swf_job **jobs, size_t *n,
		 size_t *skipped, char *err, size_t errlen);

#endif
