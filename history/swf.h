/*
 * swf.h: reads job traces in the Standard Workload Format of the Parallel
 * Workloads Archive (18 whitespace-separated fields per job line, ';'
 * comment lines), for the trace replay. Not a general SWF toolkit: it keeps
 * the fields the replay uses and applies the cleaning of the SC'15 study's
 * filter and simulator (predictsim's strong_filter_all_swf and pyss's
 * _job_input_to_job; see swf.c), so that a raw archive trace replays as the
 * study replayed it.
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
	int procs;       /* field 8 (requested) or 5 (allocated), see
			    mpp_swf_opts; at least 1, at most the machine */
	long user;       /* field 12 */
	long app;        /* field 14, -1 when unknown */
} mpp_swf_job;

enum mpp_swf_procs {
	MPP_SWF_PROCS_REQUESTED = 0, /* field 8, else field 5 (the study's) */
	MPP_SWF_PROCS_ALLOCATED = 1, /* field 5, else field 8 */
};

typedef struct mpp_swf_opts {
	int procs_from;          /* enum mpp_swf_procs */
	int machine;             /* processors of the machine; 0: no limit */
	int refuse_oversize;     /* 1: a job wider than the machine is
				    MPP_EINVAL; 0: its width is clamped to the
				    machine, as the study's simulator does */
	int machine_from_header; /* 1: a "; MaxProcs: N" header line
				    (before the first job; N > 0) replaces
				    machine, as the study's simulator takes
				    its size from it when none is given */
} mpp_swf_opts;

/* What the cleaning did, in jobs. */
typedef struct mpp_swf_counts {
	size_t skipped;      /* lines dropped: run time, submit time or both
				processor counts unknown or not positive, or
				no request (below) */
	size_t no_request;   /* of them: requested time -1 (unknown) or 0,
				dropped as the study's filter drops them */
	size_t procs_differ; /* fields 5 and 8 both known and different */
	size_t clamped;      /* wider than the machine, clamped to it */
	size_t run_cut;      /* run time above the request, cut to it (the
				job was killed at its limit) */
	int machine;         /* the machine size applied */
	int machine_header;  /* 1: machine came from the MaxProcs header */
} mpp_swf_counts;

/* Read every job line of f (named `name` in messages) into a malloc'ed
 * array *jobs of *n jobs, the caller's to free(); o may be NULL (field 8,
 * no machine limit). Jobs are returned in file order. MPP_EINVAL, with
 * "name:line: field N: ..." in err, for a line that is not 18 numbers, a
 * value that is not finite, a processor count or identifier that is not a
 * whole number, a used field below 0 other than -1 (unknown), a value too
 * large to be real (times above 1e12 s, counts above 1e9, identifiers
 * above 1e15), a submit time before the previous job's, or (with
 * refuse_oversize) a job wider than the machine, or (with
 * machine_from_header) a MaxProcs header that is not a count. MPP_ENOMEM,
 * MPP_EIO. */
int mpp_swf_read(FILE *f, const char *name, const mpp_swf_opts *o,
		 mpp_swf_job **jobs, size_t *n, mpp_swf_counts *counts,
		 char *err, size_t errlen);

#endif
