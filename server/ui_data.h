/*
 * ui_data.h: what the staff page shows, read from the store by a thread of
 * its own into an immutable in-memory snapshot.
 *
 * The page (ui.c) never touches SQLite: it renders from the current
 * snapshot, which a background thread rebuilds from its own read-only
 * connection when the store changed (PRAGMA data_version, checked every
 * refresh interval). Readers take a reference (under a mutex held only
 * for that) and release it; an old snapshot is freed by its last reader.
 *
 * Actual run times: from the `jobs` table (Slurm's accounting, schema
 * version 4, when the store has it and it is not empty: job_id, user,
 * nodes, time_limit_s, runtime_s...), else from the ingested training runs with
 * the same job_id (`runs`, the longest run of the job). Per-user figures need
 * `jobs` (the requested time is only there).
 *
 * Not for: writing anything, or answering what the REST API answers.
 */
#ifndef MPP_SERVER_UI_DATA_H
#define MPP_SERVER_UI_DATA_H

#include <pthread.h>
#include <stddef.h>

/* Points on the accuracy charts: the most recent predictions with an
 * outcome, at most this many. */
#define MPP_UI_MAX_POINTS 5000
/* Rows in the recent-predictions table. */
#define MPP_UI_RECENT 100

typedef struct mpp_ui_model {
	char *app, *method,
	    *terms; /* terms: kept term names, space-separated */
	long long id, version, ntrain, nterms;
	int active;
	double created_at; /* Unix seconds */
	double cv_mape;    /* percent; NAN when unknown */
	double x_mape;     /* past the training ranges, percent; NAN: unknown */
	double rel_lo, rel_hi, coverage;
} mpp_ui_model;

typedef struct mpp_ui_pred {
	long long id;
	double at;
	char *app, *job_id, *user, *basis; /* user/job_id may be NULL */
	long long version;                 /* model version, -1 when unknown */
	double runtime_s, lower_s, upper_s;
	double actual_s; /* NAN: no outcome known */
} mpp_ui_pred;

/* Rows in the model events table (model_events, newest first). */
#define MPP_UI_EVENTS 50

/* A promotion, refusal, drift, failure or admin step of a model. */
typedef struct mpp_ui_event {
	double at; /* Unix seconds */
	char *app, *kind, *reason;
	long long version; /* -1: no model (a failed training) */
} mpp_ui_event;

typedef struct mpp_ui_user {
	char *user;
	long long jobs;
	double requested_s, used_s; /* sums over the user's jobs */
	double factor;              /* requested_s / used_s */
	long long predicted;        /* jobs with a prediction covering them */
	double freed_node_s;        /* sum nodes * (limit - upper) over those */
} mpp_ui_user;

typedef struct mpp_ui_data {
	int refs; /* guarded by the mpp_ui_store lock */
	double built_at;
	int have_jobs; /* the store has the `jobs` table */
	const char
	    *outcomes; /* "jobs" or "runs": where actual times came from */
	mpp_ui_model *models; /* by app, then version descending */
	size_t nmodels;
	mpp_ui_pred *points; /* predictions with an outcome, oldest first */
	size_t npoints;
	long long points_total; /* before the MPP_UI_MAX_POINTS cap */
	mpp_ui_pred *recent;    /* newest first, outcome or not */
	size_t nrecent;
	long long predictions_total;
	mpp_ui_user *users; /* over-request factor descending */
	size_t nusers;
	mpp_ui_event *events; /* newest first, at most MPP_UI_EVENTS */
	size_t nevents;
} mpp_ui_data;

typedef struct mpp_ui_store mpp_ui_store;

/* Opens db_path read-only, builds the first snapshot (so the page has data
 * from the start) and starts the refresh thread (every refresh_ms, a
 * rebuild only when the store changed). 0, or -1 with err filled. */
int mpp_ui_store_start(const char *db_path, int refresh_ms, mpp_ui_store **out,
		       char *err, size_t errlen);

/* Stops the thread, closes the store, frees the snapshot (after its last
 * reader). NULL is fine. */
void mpp_ui_store_stop(mpp_ui_store *s);

/* A reference to the current snapshot (never NULL after a start); give it
 * back with mpp_ui_release(). */
const mpp_ui_data *mpp_ui_acquire(mpp_ui_store *s);
void mpp_ui_release(mpp_ui_store *s, const mpp_ui_data *d);

#endif
