/*
 * ingest.h: the thread that answers POST /v1/runs and POST /v1/jobs, so
 * that no event-loop thread ever waits on SQLite.
 *
 * Parsing a body and writing it to the store can take as long as SQLite's
 * busy timeout (10 s) while a training holds the write lock; predictions
 * must not wait behind that. The HTTP side suspends the connection and
 * submits the body here with its handler (mpp_api_runs, mpp_api_jobs); one
 * worker thread answers the jobs in order and calls each job's `done` from
 * its own thread, which resumes the connection. Not for predictions, which
 * never touch the store.
 */
#ifndef MPP_SERVER_INGEST_H
#define MPP_SERVER_INGEST_H

#include <stddef.h>

#include "server/api.h"

typedef struct mpp_ingest mpp_ingest;

/* Starts the worker; NULL when out of memory or threads. */
mpp_ingest *mpp_ingest_start(const mpp_api *api);

/* What answers a body: mpp_api_runs or mpp_api_jobs. */
typedef void (*mpp_ingest_fn)(const mpp_api *api, const char *body, size_t len,
			      mpp_reply *reply);

/* Queues body[0..len) (borrowed until done is called) for fn. The worker
 * fills *reply and then calls done(ctx), exactly once. Returns 0, or -1
 * when the worker is stopping or already holds `max_waiting` jobs (then
 * done is never called). */
int mpp_ingest_submit(mpp_ingest *w, mpp_ingest_fn fn, const char *body,
		      size_t len, mpp_reply *reply, void (*done)(void *),
		      void *ctx);

/* Lets the job in progress finish, answers the waiting ones 503 (each
 * through its done), and stops the thread. Later submits return -1. */
void mpp_ingest_stop(mpp_ingest *w);

/* Frees a stopped worker, once nothing can submit any more. */
void mpp_ingest_free(mpp_ingest *w);

#endif
