/*
 * store.h: the SQLite store (schema/schema.sql), the only code that opens,
 * migrates or queries it.
 *
 * Opening creates or migrates the schema (when MPP_STORE_CREATE) and turns on
 * WAL, so one writer (a training, the daemon's batched writes) and many
 * readers work at once. Every write is one transaction: a model version, a
 * batch of prediction records, a set of ingested runs is all there or not at
 * all, even after kill -9.
 *
 * A store handle is used by one thread at a time; a multi-threaded caller
 * opens one handle per thread (cheap) or serialises. Models returned are the
 * caller's, freed with mpp_model_free(). Errors: common/status.h.
 */
#ifndef MPP_STORE_H
#define MPP_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "common/status.h"
#include "regress/model.h"
#include "regress/runs.h"

typedef struct mpp_store mpp_store;

enum {
	MPP_STORE_READONLY = 1, /* never writes (the daemon's read handles) */
	MPP_STORE_CREATE = 2,   /* create the file and schema when missing  */
};

int mpp_store_open(const char *path, int flags, mpp_store **out, char *err,
		   size_t errlen);
void mpp_store_close(mpp_store *s);

/* Store m as the next version for m->app and make it the active one, in one
 * transaction; sets m->id and m->version. */
int mpp_store_save_model(mpp_store *s, mpp_model *m, char *err, size_t errlen);

/* The active model of `app`; MPP_ENOTFOUND when there is none. */
int mpp_store_load_active(mpp_store *s, const char *app, mpp_model **out,
			  char *err, size_t errlen);

/* Every active model, one per app, sorted by app. *out is a malloc'ed array
 * of *n models; free each with mpp_model_free() and the array with free(). */
int mpp_store_load_all_active(mpp_store *s, mpp_model ***out, size_t *n,
			      char *err, size_t errlen);

/* Sets *changed to 1 when another connection committed since the previous
 * call on this handle (PRAGMA data_version), else 0. Cheap: no disk read. */
int mpp_store_changed(mpp_store *s, int *changed, char *err, size_t errlen);

/* One answered prediction, for the audit table. */
typedef struct mpp_prediction_rec {
	double at;          /* unix time */
	const char *job_id; /* may be NULL */
	const char *app;
	int64_t model_id;
	const char *basis;     /* "features", "parameters", ... */
	const char *user;      /* may be NULL */
	const char *partition; /* may be NULL */
	double runtime_s, lower_s, upper_s;
} mpp_prediction_rec;

/* Insert n records in one transaction. */
int mpp_store_record_predictions(mpp_store *s, const mpp_prediction_rec *r,
				 size_t n, char *err, size_t errlen);

/* Ingest run rows (long format: run x feature -> value) in one transaction.
 * A run_id already stored is MPP_EINVAL naming it, and nothing is written. */
int mpp_store_add_runs(mpp_store *s, const mpp_runs *rs, char *err,
		       size_t errlen);

#endif
