/*
 * retrain.h: the daemon retrains its apps by itself, off the request path.
 *
 * A thread of its own looks at the store every poll interval (its own
 * read-only connection, as the page's thread has) and counts, per app, the
 * runs ingested since the app's last training (the newest models row of
 * the app, active or not: a challenger that was held back counts as a
 * training). An app is due after `rows` new runs, or `interval_s` after
 * its last training when it has at least one new run. A due app is
 * trained by the same program a user runs, mpipredict-train, as a child
 * process at nice 10:
 *
 *   TRAINER --db DB --app APP --from-store --challenger --margin M
 *
 * which stores the new version and makes it active only when it beats the
 * active one on held-back runs (cli/README.md). One training at a time;
 * the trainer's one summary line is logged at notice level, a failure
 * (exit status not 0) with its last error line at warn. A failed attempt
 * is not retried until `rows` more runs arrived or `interval_s` passed, so
 * an app whose rows cannot be trained on does not keep a core busy.
 * Each training counts in mpipredictd_retrains_total{outcome} (/metrics).
 * The store is never written by this thread: the trainer writes it, and
 * the keeper's hot reload installs a promoted model.
 */
#ifndef MPP_SERVER_RETRAIN_H
#define MPP_SERVER_RETRAIN_H

#include <stddef.h>

typedef struct mpp_retrain_config {
	const char *db_path;
	const char *trainer; /* path of mpipredict-train */
	/* An app is due after `rows` new runs (0: never by count), or
	 * `interval_s` after its last training with at least one (0: never
	 * by time). */
	unsigned long rows, interval_s;
	double margin;         /* the challenger's --margin, in points */
	unsigned long poll_ms; /* how often the store is looked at */
} mpp_retrain_config;

typedef struct mpp_retrain mpp_retrain;

/* Checks that the trainer can be run and the store opened read-only, then
 * starts the thread. Returns 0, or -1 with err saying what to fix. With
 * rows and interval_s both 0 nothing is started and *out is NULL. */
int mpp_retrain_start(const mpp_retrain_config *c, mpp_retrain **out, char *err,
		      size_t errlen);

/* Stops the thread; a training under way gets SIGTERM (its store
 * transaction rolls back) and SIGKILL 5 s later. NULL is allowed. */
void mpp_retrain_stop(mpp_retrain *r);

#endif
