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

/* The store a command uses (docs/cli.md): db_opt (its --db) when not NULL,
 * else $MPIPREDICT_DB when set and not empty, else "./models.db". Never
 * NULL; the string is db_opt, the environment's or a constant (not to be
 * freed). Every command but the daemon takes its default from here. */
const char *mpp_store_default_path(const char *db_opt);

/* mpp_store_open for a command that needs a store already made: never
 * creates the file, whatever flags says (MPP_STORE_CREATE is ignored). A
 * missing file is MPP_ENOTFOUND with err "PATH: no store here (make one
 * with mpipredict-train --db PATH, or give --db FILE or set
 * MPIPREDICT_DB)"; other failures as mpp_store_open. Commands exit 2 on
 * any failure (a store is data or environment, never usage). */
int mpp_store_open_existing(const char *path, int flags, mpp_store **out,
			    char *err, size_t errlen);

/* Store m as the next version for m->app and make it the active one, in one
 * transaction, with a 'promoted' event (reason "trained without
 * --challenger"); sets m->id and m->version. */
int mpp_store_save_model(mpp_store *s, mpp_model *m, char *err, size_t errlen);

/* What happened to a model version (table model_events): kind is
 * "promoted", "rejected", "drift", "promoted_by_admin", "rollback" or
 * "failed" (no model stored: version 0). The MAPEs are percent on
 * holdout_runs held-back runs; NAN and -1: not compared. On read the
 * strings are valid during the callback only. */
typedef struct mpp_model_event {
	int64_t id; /* on read */
	const char *app;
	int version; /* on read: the model's version, 0: none */
	double at;   /* unix time; set by the store on write */
	const char *kind, *reason;
	double champion_mape, challenger_mape;
	int64_t holdout_runs;
} mpp_model_event;

/* The challenger's outcome (mpipredict-train --challenger): store m as the
 * next version of m->app, active when `activate` (the old active version
 * then retired), else beside it, with the event ev (kind, reason and
 * figures; its app and version are m's), all in one transaction. The
 * comparison was made against the active model champion_id (0: none);
 * when another is active by then (an admin promoted one meanwhile), nothing
 * is written and it is MPP_EINVAL saying so. Sets m->id and m->version. */
int mpp_store_save_challenger(mpp_store *s, mpp_model *m, int activate,
			      int64_t champion_id, const mpp_model_event *ev,
			      char *err, size_t errlen);

/* The version the next model of `app` will be stored as (1: none yet).
 * mpp_store_save_challenger refuses to store m under another one when
 * m->version is set (another training stored one meanwhile). */
int mpp_store_next_version(mpp_store *s, const char *app, int *version,
			   char *err, size_t errlen);

/* Record an event of ev->app with no model (a training that failed). */
int mpp_store_add_event(mpp_store *s, const mpp_model_event *ev, char *err,
			size_t errlen);

/* Every stored run of `app` (POST /v1/runs) appended to the empty rs, as
 * the CSV reader fills it: runs in the order they were ingested, features
 * the names their values carry, sorted (a stable column order), NAN where
 * a run has none. When ingested is not NULL, *ingested gets a malloc'ed
 * array of each run's ingest time (unix seconds; the caller frees it).
 * MPP_ENOTFOUND, naming the apps that have runs, when `app` has none. */
int mpp_store_load_runs(mpp_store *s, const char *app, mpp_runs *rs,
			double **ingested, char *err, size_t errlen);

/* One model version as mpipredict-model lists it. state: "active",
 * "candidate" (held as a drift), "rejected" (worse than the active one) or
 * "retired" (active once, replaced). last_*: its newest event (NULL, NAN:
 * none). Strings valid during the callback only. */
typedef struct mpp_model_version {
	const char *app, *state, *build_id, *method;
	int version;
	int64_t model_id, ntrain;
	double created_at, cv_mape;
	const char *last_kind, *last_reason;
	double last_at;
} mpp_model_version;

/* Calls cb for each version of `app` (NULL: of every app), by app then
 * version; only version `version` when it is > 0. An unknown app or
 * version is MPP_ENOTFOUND, the message naming the known ones. cb
 * returning non-zero stops with that code. */
int mpp_store_each_version(mpp_store *s, const char *app, int version,
			   int (*cb)(void *ctx, const mpp_model_version *v),
			   void *ctx, char *err, size_t errlen);

/* Calls cb for the events of `app` (NULL: every app; version > 0: of that
 * version only), oldest first, or the newest `limit` (> 0) newest first.
 * An unknown app is MPP_ENOTFOUND naming the known ones. */
int mpp_store_each_event(mpp_store *s, const char *app, int version, int limit,
			 int (*cb)(void *ctx, const mpp_model_event *e),
			 void *ctx, char *err, size_t errlen);

/* An admin's steps, each one transaction with its event. Promote makes
 * `version` of `app` active (event 'promoted_by_admin'); *previous gets the
 * version that was active (0: none; `version` itself when it already was:
 * then nothing is written). Rollback makes the version active before the
 * current one active again (event 'rollback'), as the activations recorded
 * in model_events tell (a second rollback goes one further back); on a
 * store with no such record, the highest version below the active one.
 * *from and *to get the versions. Unknown app or version, or nothing to
 * roll back to: MPP_ENOTFOUND with a message naming the known ones. */
int mpp_store_promote(mpp_store *s, const char *app, int version, int *previous,
		      char *err, size_t errlen);
int mpp_store_rollback(mpp_store *s, const char *app, int *from, int *to,
		       char *err, size_t errlen);

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

/* The schema version of the open store (PRAGMA user_version). */
int mpp_store_schema_version(mpp_store *s, int *version, char *err,
			     size_t errlen);

/* Whether the store takes a write now: commits one real write that changes
 * nothing (the schema version set to itself), so a full disk, a file size
 * limit or a read-only file system fail it. MPP_OK when it committed. When
 * another connection holds the write lock for more than 100 ms, *busy is
 * set to 1 and MPP_EIO returned: nothing is known. Other connections see a
 * commit (mpp_store_changed). */
int mpp_store_probe_write(mpp_store *s, int *busy, char *err, size_t errlen);

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

/* The audit's retention: deletes the prediction records made before
 * `before` (unix time; <= 0: none by age) and all but the newest
 * `keep_rows` (0: no row limit), oldest first, in transactions of at most
 * 10,000 rows so that a training waiting for the write lock is not held
 * long. *deleted (may be NULL) gets the count. SQLite reuses the freed
 * pages; the file does not shrink (VACUUM does that). */
int mpp_store_prune_predictions(mpp_store *s, double before,
				long long keep_rows, long long *deleted,
				char *err, size_t errlen);

/* Ingest run rows (long format: run x feature -> value) in one transaction.
 * A run already stored with the same fields and values is skipped (a body
 * sent again after its answer was lost is done, not refused); a run_id
 * stored with other values is MPP_EINVAL naming it, and nothing is
 * written. */
int mpp_store_add_runs(mpp_store *s, const mpp_runs *rs, char *err,
		       size_t errlen);

/* A finished job as the batch system reports it (table jobs). Strings may
 * be NULL except job_id, user and state; numbers NAN when unknown, uid -1.
 * id is the row id, filled when read. */
typedef struct mpp_job_rec {
	int64_t id;
	const char *job_id, *user, *account, *partition, *state;
	const char *name; /* the job name: the app when no prediction names
			     one (on write only) */
	const char *app;  /* on read */
	int64_t uid;
	double nodes, ntasks, time_limit_s;
	double submit_at, start_at, end_at, runtime_s;
} mpp_job_rec;

/* Store n finished jobs in one transaction: a job id already stored is
 * updated (never duplicated; a field the new report lacks keeps its
 * value). A job's prediction (predictions audit) is
 * joined by job id; an audit record without a job id (the Slurm plugin
 * cannot know it at submission) of the same user ("uid:N" or the name),
 * made within 5 s of the job's submission, is given the job's id first
 * (the closest in time). Then each user's rows beyond the last keep (by
 * end_at) are deleted, keep > 0. */
int mpp_store_put_jobs(mpp_store *s, const mpp_job_rec *r, size_t n, int keep,
		       char *err, size_t errlen);

/* The latest progress of a running job (table progress, issue 37): what
 * POST /v1/progress carried. features: the counters as a JSON object
 * (name -> value). time_limit_s NAN (read) or <= 0 (write): unknown. */
typedef struct mpp_progress_rec {
	const char *job_id, *run_id, *app, *build_id, *args, *features;
	int nprocs, nnodes;
	double elapsed_s, time_limit_s, received_at; /* unix time */
} mpp_progress_rec;

/* Store (or replace: one row per job id) a job's progress; its own
 * statement, no transaction of the caller's needed. */
int mpp_store_put_progress(mpp_store *s, const mpp_progress_rec *r, char *err,
			   size_t errlen);

/* cb for each progress received at or after since, oldest first; a
 * non-zero cb return stops and is returned. */
int mpp_store_each_progress(mpp_store *s, double since,
			    int (*cb)(void *ctx, const mpp_progress_rec *r),
			    void *ctx, char *err, size_t errlen);

/* One action of the limit-extension policy (table extensions, issue 37;
 * server/extend.h). outcome: "extended", "over_cap", "reservation" or
 * "failed"; limits, need and cap in seconds, NAN: not known. */
typedef struct mpp_extension_rec {
	const char *job_id, *outcome, *detail;
	double at, old_limit_s, new_limit_s, need_s, cap_s;
} mpp_extension_rec;

/* Store one action (its own statement). */
int mpp_store_put_extension(mpp_store *s, const mpp_extension_rec *r, char *err,
			    size_t errlen);

/* cb for the newest max actions, newest first; a non-zero cb return
 * stops and is returned. */
int mpp_store_each_extension(mpp_store *s, int max,
			     int (*cb)(void *ctx, const mpp_extension_rec *r),
			     void *ctx, char *err, size_t errlen);

/* Calls cb for each job with id > after_id whose run time can teach a
 * history (state COMPLETED or TIMEOUT, runtime_s > 0), in order of end_at
 * (after_id == 0) or of id (after_id > 0: the rows added since), then sets
 * *last_id to the largest id seen (unchanged when none). Strings are valid
 * during the call only. cb returning non-zero stops with that code. */
int mpp_store_each_job(mpp_store *s, int64_t after_id,
		       int (*cb)(void *ctx, const mpp_job_rec *r), void *ctx,
		       int64_t *last_id, char *err, size_t errlen);

/* Whether a job with id <= upto_id was written again (updated_at) after
 * `since` (a job reported twice, or first as failed then as completed):
 * *changed 1 or 0; *mark is the latest updated_at of the table (since when
 * it is empty), the `since` of the next call. updated_at is taken inside
 * the ingest's write lock, so commits are ordered by it. Returns 0 or an
 * mpp_status with err. */
int mpp_store_jobs_changed(mpp_store *s, int64_t upto_id, double since,
			   int *changed, double *mark, char *err,
			   size_t errlen);

/* Accuracy of the predictions made for finished jobs (each job's first
 * prediction), grouped by `by`: "app", "user" or "basis". */
typedef struct mpp_accuracy_row {
	const char *key;
	int64_t njobs;
	double mae_s;        /* mean |predicted - actual| */
	double mape;         /* percent */
	double under_share;  /* predicted below the actual run time */
	double inside_share; /* actual within [lower_s, upper_s] */
} mpp_accuracy_row;

int mpp_store_accuracy(mpp_store *s, const char *by,
		       int (*cb)(void *ctx, const mpp_accuracy_row *r),
		       void *ctx, char *err, size_t errlen);

/* Machine profiles (mpipredict-calibrate): store the JSON document of one
 * calibration (regress/profile_json.h), and load the newest one of
 * `machine` (NULL: of any machine) into *json (malloc'ed, caller frees);
 * MPP_ENOTFOUND when there is none. */
int mpp_store_save_profile(mpp_store *s, const char *machine,
			   const char *created_at, const char *json, char *err,
			   size_t errlen);
int mpp_store_load_profile(mpp_store *s, const char *machine, char **json,
			   char *err, size_t errlen);

#endif
