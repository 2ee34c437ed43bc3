/*
 * hist.h: the daemon's history predictions, for jobs whose app has no
 * model or that name no app (basis "history"): the history predictor of
 * history/history.h fed with the store's jobs table, and the answer to
 * POST /v1/predict built from it.
 *
 * The state is rebuilt from the jobs table when the daemon starts (so it
 * survives a restart) and the keeper thread adds the rows that arrive
 * later (mpp_histsvc_refresh; a job learnt before and reported again makes
 * it rebuild from the table). The jobs table is pruned by the ingest
 * (mpipredict-jobcomp --keep), so what is read at start stays bounded; the
 * predictor keeps a fixed-size record per user and per finer key, and when
 * those pass max_keys (about 300 bytes each) it is rebuilt from the table,
 * which drops the keys of pruned jobs (one info log line).
 * Request threads and the keeper share it under a mutex (a prediction
 * takes about a microsecond). Not for jobs whose app has a model.
 */
#ifndef MPP_SERVER_HIST_H
#define MPP_SERVER_HIST_H

#include <stddef.h>
#include <stdio.h>

#include "schema/store.h"
#include "server/audit.h"
#include "server/request.h"

typedef struct mpp_histsvc mpp_histsvc;
struct mpp_reply;

/* Opens the store at db_path read-only, learns every finished job in it
 * (by end time) with history method `method` (history.h; the online
 * method with `loss`, NULL: the study's, see history/nag.h); past
 * max_keys keys, a refresh rebuilds it from the table. Returns 0, or an
 * mpp_status with err. */
struct mpp_nag_loss;
int mpp_histsvc_open(const char *db_path, int method,
		     const struct mpp_nag_loss *loss, size_t max_keys,
		     mpp_histsvc **out, char *err, size_t errlen);
void mpp_histsvc_free(mpp_histsvc *h);

/* --history auto: the predictor chosen from the jobs table by itself
 * (history/choose.h), at start (in the call) and again after every
 * `every` jobs learnt (started by mpp_histsvc_refresh in a thread of its
 * own, joined by mpp_histsvc_free), the current choice as the champion
 * (tsafrir/steps at first). procs: the machine size (0: the
 * largest sum of ntasks running at one time in the table); margin: a
 * share (negative: choose.h's 5 %); every 0: MPP_HISTSVC_EVERY. With too
 * few jobs to choose (4) the champion stays. */
#define MPP_HISTSVC_EVERY 1000
typedef struct mpp_histsvc_auto {
	int procs;
	double margin;
	unsigned long every;
} mpp_histsvc_auto;
int mpp_histsvc_open_auto(const char *db_path, const mpp_histsvc_auto *a,
			  size_t max_keys, mpp_histsvc **out, char *err,
			  size_t errlen);

/* The learners' guard (history.h, mpp_hist_guard) on (the default) or
 * off, for every history opened after the call. */
void mpp_histsvc_guard(int on);

/* The history's choice and its evidence as Prometheus text (the method;
 * with auto the corrector and every candidate's scores; the learners'
 * guard), through print; nothing when no history runs. Process-wide (one
 * history per daemon). */
typedef void (*mpp_histsvc_print)(void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void mpp_histsvc_metrics(mpp_histsvc_print print, void *ctx);
/* The same as a paragraph and a table of the staff page (HTML). */
void mpp_histsvc_page(FILE *f);

/* Learns the jobs added to s since the last call. Returns 0 or an
 * mpp_status with err. Called by the keeper thread only. */
int mpp_histsvc_refresh(mpp_histsvc *h, mpp_store *s, char *err, size_t errlen);

/* Answers q from the history of the submitting user (q->user, else
 * "uid:N") for app (NULL or "" when unknown), capped at q->time_limit_s,
 * with ntasks the job's size (<= 0 unknown): fills r with 200 and basis
 * "history" and queues the audit record. Returns 0 when it answered; -1
 * when it cannot (no user, or the user has too few finished jobs): r is
 * untouched and the caller answers as it would have. */
int mpp_histsvc_answer(mpp_histsvc *h, const mpp_request *q, const char *app,
		       double ntasks, mpp_audit *audit, struct mpp_reply *r);

#endif
