/*
 * progress.h: running jobs' progress (issue 37). POST /v1/progress takes
 * the counters a job's rank 0 read while it runs (libmpipredict's
 * progress thread through mpipredict-collect --progress); GET
 * /v1/jobs/{job_id} answers how far the job is and how long it has left,
 * from the app's active model; the staff page lists the running jobs.
 *
 * The latest post of each job is kept in memory (answers never read
 * SQLite, except once after a start to learn what the store holds) and
 * in the store's progress table (the ingest thread writes it). A job
 * whose last post is older than MPP_PROGRESS_KEEP_S is forgotten.
 * Not for: the model's arithmetic (regress/model.h), routing (http.c).
 */
#ifndef MPP_SERVER_PROGRESS_H
#define MPP_SERVER_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#include "server/api.h"

#define MPP_PROGRESS_KEEP_S (2 * 86400.0)

/* POST /v1/progress (on the ingest thread): a JSON object with job_id,
 * run_id, app, build_id, args, nprocs, nnodes, elapsed_s, optional
 * time_limit_s, and features (name -> number, >= 0). 200 {"stored":1};
 * 400 naming the field. */
void mpp_api_progress(const mpp_api *api, const char *body, size_t len,
		      mpp_reply *r);

/* GET /v1/jobs/{job_id}. 404 for a job never posted (or forgotten), 400
 * for an id that is not a job id. */
void mpp_api_job(const mpp_api *api, const char *job_id, mpp_reply *r);

/* One running job as the staff page shows it. */
typedef struct mpp_job_view {
	char job_id[64], app[128];
	double elapsed_s, remaining_s, progress; /* NAN: not known */
	int outlives_limit;                      /* -1: not known */
} mpp_job_view;

/* Up to max jobs, the most recently posted first; returns how many. */
size_t mpp_progress_list(const mpp_api *api, mpp_job_view *out, size_t max);

/* The staff page's "Running jobs" section (a table with a bar per job),
 * from the jobs the daemon learnt since it started (through the api of
 * the last progress request; nothing before the first). */
void mpp_progress_page(FILE *f);

#endif
