/*
 * keeper.c: the background store thread (see keeper.h).
 *
 * A failed audit commit (the store locked behind a long training, a full
 * disk, a read-only file) keeps its batch and is retried at the next audit
 * interval, the interval doubling while the failures go on (up to
 * RETRY_MAX_S), so records are neither lost nor written twice and a
 * failing store costs a few attempts a second, not a loop. Log lines stay
 * few: the first failure, then the 2nd, 4th, 8th... attempt, and the
 * recovery. Meanwhile new records wait in the queue, whose bound protects
 * the daemon's memory; records dropped at that bound are counted
 * (metrics.h) and reported in one line per attempt.
 *
 * At shutdown the queue is closed and drained for at most FLUSH_S seconds;
 * what is left then is dropped with one error line. One attempt can block
 * in SQLite's busy timeout longer than that, so mpp_keeper_stop() waits for
 * the thread only a little longer and then leaves it behind (the process
 * is exiting; an unfinished SQLite transaction is rolled back by the next
 * open).
 */
#include "server/keeper.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "server/hist.h"
#include "server/log.h"
#include "server/metrics.h"

#define RETRY_MAX_S  5.0  /* longest wait between two failing attempts */
#define FLUSH_S      2.0  /* time to write what is queued at shutdown */
#define STOP_GRACE_S 1.0  /* ... and for an attempt in progress to return */
#define PRUNE_S      60.0 /* how often the audit's retention is applied */
#define ACCESS_S     1.0  /* how often the file's write permission is read */

struct mpp_keeper {
	mpp_store *store;
	mpp_audit *q;
	mpp_cache *cache;
	int audit_ms, reload_ms;
	size_t batch;
	pthread_t thread;
	atomic_int done; /* the thread has finished */
	/* Retention, set by mpp_keeper_set_retention() before it raises
	 * prune_now; read by the thread after it sees the flag. */
	double keep_age_s;
	long long keep_rows;
	atomic_int prune_now;
	pthread_mutex_t done_lock;
	pthread_cond_t done_cond;
	_Atomic(mpp_histsvc *) history; /* NULL: none (hist.h) */
	int history_primed;             /* read once since it was set */
	/* Health (keeper.h, mpp_keeper_writable): both 1 when fine. */
	char *db_path;
	int schema;
	atomic_int writes_ok, access_ok;
};

/* Loads every active model into a new snapshot; NULL on failure. */
static mpp_snapshot *load(mpp_store *s, char *err, size_t errlen)
{
	mpp_model **models = NULL;
	size_t n = 0;
	if (mpp_store_load_all_active(s, &models, &n, err, errlen) != MPP_OK)
		return NULL;
	return mpp_snapshot_new(models, n);
}

static void reload_if_changed(mpp_keeper *k)
{
	char err[256];
	int changed = 0;
	if (mpp_store_changed(k->store, &changed, err, sizeof err) != MPP_OK) {
		mpp_log(MPP_LOG_ERROR, "store: %s", err);
		mpp_metrics_error(MPP_ERR_RELOAD, 1);
		return;
	}
	/* Finished jobs for the history (the first time whatever changed:
	 * rows may have come between its start and this thread's). */
	mpp_histsvc *h = atomic_load(&k->history);
	if (h != NULL && (changed || !k->history_primed)) {
		k->history_primed = 1;
		if (mpp_histsvc_refresh(h, k->store, err, sizeof err))
			mpp_log(MPP_LOG_ERROR, "reading finished jobs: %s",
				err);
	}
	if (!changed)
		return;
	mpp_snapshot *fresh = load(k->store, err, sizeof err);
	if (fresh == NULL) {
		mpp_log(MPP_LOG_ERROR, "reloading models: %s", err);
		mpp_metrics_error(MPP_ERR_RELOAD, 1);
		return;
	}
	mpp_snapshot *cur = mpp_cache_acquire(k->cache);
	int same = mpp_snapshot_same(cur, fresh);
	mpp_snapshot_release(cur);
	if (same) {
		/* Another commit (ingested runs, an other daemon's audit). */
		mpp_snapshot_release(fresh);
		return;
	}
	mpp_metrics_models(mpp_snapshot_count(fresh));
	mpp_log(MPP_LOG_INFO, "models reloaded: %zu active",
		mpp_snapshot_count(fresh));
	mpp_cache_install(k->cache, fresh);
}

static int write_batch(mpp_keeper *k, mpp_audit_batch *b, char *err,
		       size_t errlen)
{
	if (mpp_store_record_predictions(k->store, b->recs, b->n, err,
					 errlen) != MPP_OK) {
		mpp_metrics_error(MPP_ERR_AUDIT_WRITE, 1);
		return -1;
	}
	mpp_audit_batch_free(b);
	return 0;
}

/* After a failed audit commit: was it the store, or the batch? A probe
 * write on the same handle tells (an audit refused by a trigger or a
 * constraint fails alone; a full disk fails both). Another writer's lock
 * tells nothing, and leaves the state as it was. */
static void probe_after_failure(mpp_keeper *k)
{
	char err[256];
	int busy = 0;
	if (mpp_store_probe_write(k->store, &busy, err, sizeof err) == MPP_OK) {
		atomic_store(&k->writes_ok, 1);
		return;
	}
	if (busy)
		return;
	if (atomic_exchange(&k->writes_ok, 0))
		mpp_log(MPP_LOG_ERROR, "store: %s does not take writes: %s",
			k->db_path, err);
}

static void writes_resumed(mpp_keeper *k)
{
	if (!atomic_exchange(&k->writes_ok, 1))
		mpp_log(MPP_LOG_WARN, "store: %s takes writes again",
			k->db_path);
}

/* The file's write permission for this process (the keeper's own handle
 * keeps writing through a chmod, but an ingest, a training and the next
 * start would not). Root passes this check except on a read-only file
 * system. */
static void check_access(mpp_keeper *k)
{
	int ok = access(k->db_path, W_OK) == 0;
	int e = errno;
	if (atomic_exchange(&k->access_ok, ok) == ok)
		return;
	if (ok)
		mpp_log(MPP_LOG_WARN, "store: %s is writable again",
			k->db_path);
	else
		mpp_log(MPP_LOG_ERROR, "store: %s is not writable: %s",
			k->db_path, strerror(e));
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void report_dropped(mpp_keeper *k)
{
	size_t n = mpp_audit_dropped(k->q);
	if (n > 0)
		mpp_log(MPP_LOG_ERROR,
			"audit: %zu records dropped, the queue was full "
			"(--audit-queue)",
			n);
}

/* Writes what is queued, for at most FLUSH_S seconds. */
static void flush(mpp_keeper *k, mpp_audit_batch *pending)
{
	char err[256] = "";
	double deadline = now_s() + FLUSH_S;
	for (;;) {
		if (pending->n == 0 &&
		    mpp_audit_take(k->q, k->batch, pending) == 0)
			break;
		if (write_batch(k, pending, err, sizeof err) == 0)
			continue;
		if (now_s() >= deadline)
			break;
		struct timespec ts = {0, 100 * 1000000L};
		nanosleep(&ts, NULL);
	}
	report_dropped(k);
	size_t lost = pending->n;
	mpp_audit_batch_free(pending);
	for (mpp_audit_batch b; mpp_audit_take(k->q, (size_t)-1, &b) > 0;) {
		lost += b.n;
		mpp_audit_batch_free(&b);
	}
	if (lost > 0) {
		mpp_metrics_error(MPP_ERR_AUDIT_DROPPED, lost);
		mpp_log(MPP_LOG_ERROR,
			"audit: %zu records not written at shutdown: %s", lost,
			err);
	}
}

/* Applies the audit's retention (off the event loop: this is the store
 * thread). */
static void prune(mpp_keeper *k)
{
	if (k->keep_age_s <= 0 && k->keep_rows <= 0)
		return;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	double before =
	    k->keep_age_s > 0 ? (double)ts.tv_sec - k->keep_age_s : 0;
	long long n = 0;
	char err[256];
	if (mpp_store_prune_predictions(k->store, before, k->keep_rows, &n, err,
					sizeof err) != MPP_OK) {
		mpp_metrics_error(MPP_ERR_AUDIT_WRITE, 1);
		mpp_log(MPP_LOG_ERROR, "audit: retention: %s", err);
	}
	if (n > 0)
		mpp_log(MPP_LOG_INFO,
			"audit: %lld records past the retention deleted", n);
}

static void *run(void *arg)
{
	mpp_keeper *k = arg;
	/* Background work: at nice 10 a batch commit (a millisecond of SQLite
	 * for 512 records) does not preempt a thread that is answering. Linux
	 * applies a nice value to one thread when given its id. */
	setpriority(PRIO_PROCESS, (id_t)gettid(), 10);
	mpp_audit_batch pending = {0};
	double interval = k->audit_ms / 1e3, delay = interval;
	double next_write = now_s() + interval;
	double next_prune = now_s() + PRUNE_S;
	double next_access = now_s() + ACCESS_S;
	/* A full batch writes early, but not before this: after each commit
	 * the store's write lock stays free at least as long as the commit
	 * held it. A writer that falls behind (a slow disk, a daemon under
	 * more load than it can audit) would otherwise commit back to back,
	 * and a training or an ingest, whose busy handler retries every
	 * 100 ms, could wait out its whole busy timeout: starved, not
	 * blocked. Behind that bound the queue fills and its drops are
	 * counted, as for any overload. */
	double not_before = 0;
	unsigned long failures = 0;
	for (;;) {
		double t = now_s();
		/* Wake for the next timed write, or at the end of the
		 * store's free time when a full batch may then go early. */
		int early = pending.n == 0 && t >= not_before;
		double wake =
		    pending.n == 0 && !early && not_before < next_write
			? not_before
			: next_write;
		int ms = wake <= t ? 0 : (int)((wake - t) * 1e3) + 1;
		if (ms > k->reload_ms)
			ms = k->reload_ms;
		/* A full batch wakes the writer, unless one is waiting for a
		 * retry (the queue filling up must not hasten that) or the
		 * store is being left free. */
		long queued = mpp_audit_wait(k->q, ms, early);
		if (queued < 0)
			break;
		t = now_s();
		if (t >= next_write || (pending.n == 0 && t >= not_before &&
					(size_t)queued >= k->batch)) {
			char err[256];
			if (pending.n == 0)
				mpp_audit_take(k->q, k->batch, &pending);
			double began = now_s();
			int wrote = pending.n > 0;
			if (wrote &&
			    write_batch(k, &pending, err, sizeof err) != 0) {
				failures++;
				probe_after_failure(k);
				/* 1st, 2nd, 4th, 8th...: few lines. */
				if ((failures & (failures - 1)) == 0)
					mpp_log(
					    MPP_LOG_ERROR,
					    "audit: %zu records not written "
					    "yet (attempt %lu): %s",
					    pending.n, failures, err);
				delay = delay * 2 < RETRY_MAX_S ? delay * 2
								: RETRY_MAX_S;
			} else if (failures > 0) {
				mpp_log(MPP_LOG_WARN,
					"audit: written again after %lu failed "
					"attempts",
					failures);
				failures = 0;
				delay = interval;
			}
			report_dropped(k);
			if (wrote && failures == 0) {
				writes_resumed(k);
				double end = now_s();
				not_before = end + (end - began);
			}
			next_write = now_s() + (failures ? delay : interval);
			if (next_write < not_before)
				next_write = not_before;
		}
		reload_if_changed(k);
		if (now_s() >= next_access) {
			check_access(k);
			next_access = now_s() + ACCESS_S;
		}
		if (atomic_exchange(&k->prune_now, 0) ||
		    now_s() >= next_prune) {
			prune(k);
			next_prune = now_s() + PRUNE_S;
		}
	}
	flush(k, &pending);
	atomic_exchange(&k->prune_now, 0); /* synchronises with the setter */
	prune(k);
	pthread_mutex_lock(&k->done_lock);
	atomic_store(&k->done, 1);
	pthread_cond_signal(&k->done_cond);
	pthread_mutex_unlock(&k->done_lock);
	return NULL;
}

void mpp_keeper_set_history(mpp_keeper *k, mpp_histsvc *h)
{
	atomic_store(&k->history, h);
}

int mpp_keeper_start(const char *db_path, int audit_ms, int reload_ms,
		     size_t batch, mpp_audit *q, mpp_cache *cache,
		     mpp_keeper **out, char *err, size_t errlen)
{
	mpp_keeper *k = calloc(1, sizeof *k);
	if (k == NULL)
		return MPP_ENOMEM;
	k->q = q;
	k->cache = cache;
	k->audit_ms = audit_ms;
	k->reload_ms = reload_ms;
	k->batch = batch;
	int rc =
	    mpp_store_open(db_path, MPP_STORE_CREATE, &k->store, err, errlen);
	if (rc != MPP_OK) {
		free(k);
		return rc;
	}
	k->db_path = strdup(db_path);
	atomic_init(&k->writes_ok, 1);
	atomic_init(&k->access_ok, 1);
	int changed;
	/* The first call sets the baseline for the ones that follow. */
	rc = k->db_path
		 ? mpp_store_schema_version(k->store, &k->schema, err, errlen)
		 : MPP_ENOMEM;
	if (rc == MPP_OK)
		rc = mpp_store_changed(k->store, &changed, err, errlen);
	mpp_snapshot *s = rc == MPP_OK ? load(k->store, err, errlen) : NULL;
	if (s == NULL) {
		mpp_store_close(k->store);
		free(k->db_path);
		free(k);
		return rc != MPP_OK ? rc : MPP_EIO;
	}
	mpp_metrics_models(mpp_snapshot_count(s));
	mpp_cache_init(cache, s);
	pthread_mutex_init(&k->done_lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&k->done_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&k->thread, NULL, run, k) != 0) {
		mpp_cache_destroy(cache);
		mpp_store_close(k->store);
		free(k->db_path);
		free(k);
		return MPP_ENOMEM;
	}
	/* Named for top -H and the bench's per-thread CPU. */
	pthread_setname_np(k->thread, "mpp-store");
	*out = k;
	return MPP_OK;
}

void mpp_keeper_set_retention(mpp_keeper *k, double max_age_s,
			      long long max_rows)
{
	k->keep_age_s = max_age_s;
	k->keep_rows = max_rows;
	atomic_store(&k->prune_now, 1);
}

int mpp_keeper_stop(mpp_keeper *k)
{
	mpp_audit_close(k->q);
	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += (time_t)(FLUSH_S + STOP_GRACE_S);
	pthread_mutex_lock(&k->done_lock);
	int rc = 0;
	while (!atomic_load(&k->done) && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&k->done_cond, &k->done_lock,
					    &until);
	int done = atomic_load(&k->done);
	pthread_mutex_unlock(&k->done_lock);
	if (!done) {
		mpp_log(MPP_LOG_ERROR,
			"audit: the store did not answer within %.0f s; "
			"exiting without the records still queued",
			FLUSH_S + STOP_GRACE_S);
		return -1;
	}
	pthread_join(k->thread, NULL);
	mpp_store_close(k->store);
	pthread_cond_destroy(&k->done_cond);
	pthread_mutex_destroy(&k->done_lock);
	free(k->db_path);
	free(k);
	return 0;
}

int mpp_keeper_schema(const mpp_keeper *k)
{
	return k->schema;
}

int mpp_keeper_writable(const mpp_keeper *k)
{
	return atomic_load(&k->writes_ok) && atomic_load(&k->access_ok);
}
