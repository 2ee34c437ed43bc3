/*
 * runs.h: run rows (docs/design.md, "Run records") read from CSV into memory.
 *
 * A run set is the rows of one or more files, with the union of their
 * feature columns; a feature a row's file does not have is absent (NAN in
 * values), not zero. Malformed rows are reported as "file:line: why" through
 * the warn callback and skipped; a source with no usable row is MPP_EINVAL.
 *
 * Used by mpipredict-train and mpipredict-predict (files) and by mpipredictd
 * (POST /v1/runs bodies, parsed from memory). The run set owns all its
 * memory; free it with mpp_runs_free().
 */
#ifndef MPP_RUNS_H
#define MPP_RUNS_H

#include <stddef.h>

typedef struct mpp_run {
	char *run_id, *app, *build_id, *started_at, *job_id, *args;
	double nprocs, nnodes, runtime_s;
	int exit_status; /* the exit_status column; 0 when there is none */
	double *values;  /* nfeatures values, NAN where absent */
} mpp_run;

typedef struct mpp_runs {
	size_t nruns, nfeatures;
	mpp_run *runs;
	char **features; /* column names after the fixed columns */
	/* Set by the caller: keep rows whose exit_status is not 0 (failed
	 * runs are left out by default, with one warning per source). */
	int include_failed;
} mpp_runs;

typedef void (*mpp_warn_fn)(void *ctx, const char *msg);

/* Append the rows of CSV text (name is used in messages, e.g. a path or
 * "request body"). */
int mpp_runs_parse(mpp_runs *rs, const char *name, const char *text, size_t len,
		   mpp_warn_fn warn, void *ctx, char *err, size_t errlen);

/* Append the rows of a file. */
int mpp_runs_read_file(mpp_runs *rs, const char *path, mpp_warn_fn warn,
		       void *ctx, char *err, size_t errlen);

void mpp_runs_free(mpp_runs *rs);

#endif
