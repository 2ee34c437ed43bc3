/*
 * keeper.c: the background store thread (see keeper.h).
 *
 * A failed audit commit (the store busy behind a long training, a full
 * disk) is retried at the next interval with the same batch, so records are
 * neither lost nor written twice; meanwhile new records wait in the queue,
 * whose bound protects the daemon's memory. At shutdown the queue is closed
 * and drained; a batch that still fails after some twenty retries is
 * dropped with an error line rather than hanging the shutdown.
 */
#include "server/keeper.h"

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

#include "server/log.h"
#include "server/metrics.h"

struct mpp_keeper {
	mpp_store *store;
	mpp_audit *q;
	mpp_cache *cache;
	int audit_ms, reload_ms;
	size_t batch;
	pthread_t thread;
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

static int write_batch(mpp_keeper *k, mpp_audit_batch *b)
{
	char err[256];
	if (mpp_store_record_predictions(k->store, b->recs, b->n, err,
					 sizeof err) == MPP_OK) {
		mpp_audit_batch_free(b);
		return 0;
	}
	mpp_log(MPP_LOG_ERROR, "audit: %zu records not written yet: %s", b->n,
		err);
	mpp_metrics_error(MPP_ERR_AUDIT_WRITE, 1);
	return -1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *run(void *arg)
{
	mpp_keeper *k = arg;
	mpp_audit_batch pending = {0};
	int retries = 0;
	double last_write = now_s();
	for (;;) {
		long queued = mpp_audit_wait(k->q, k->reload_ms);
		int closing = queued < 0;
		double t = now_s();
		if (pending.n == 0 && (closing || (size_t)queued >= k->batch ||
				       t - last_write >= k->audit_ms / 1e3)) {
			mpp_audit_take(k->q, k->batch, &pending);
			last_write = t;
		}
		if (pending.n > 0)
			retries = write_batch(k, &pending) ? retries + 1 : 0;
		if (pending.n > 0 && closing) {
			/* Give a busy store some time, but not forever. */
			if (retries > 20) {
				mpp_log(MPP_LOG_ERROR,
					"audit: %zu records lost at shutdown",
					pending.n);
				mpp_audit_batch_free(&pending);
			} else {
				struct timespec ts = {0, 100 * 1000000L};
				nanosleep(&ts, NULL);
			}
		}
		if (closing && pending.n == 0 &&
		    mpp_audit_take(k->q, k->batch, &pending) == 0)
			break;
		if (!closing)
			reload_if_changed(k);
	}
	return NULL;
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
	int changed;
	/* The first call sets the baseline for the ones that follow. */
	rc = mpp_store_changed(k->store, &changed, err, errlen);
	mpp_snapshot *s = rc == MPP_OK ? load(k->store, err, errlen) : NULL;
	if (s == NULL) {
		mpp_store_close(k->store);
		free(k);
		return rc != MPP_OK ? rc : MPP_EIO;
	}
	mpp_metrics_models(mpp_snapshot_count(s));
	mpp_cache_init(cache, s);
	if (pthread_create(&k->thread, NULL, run, k) != 0) {
		mpp_cache_destroy(cache);
		mpp_store_close(k->store);
		free(k);
		return MPP_ENOMEM;
	}
	/* Named for top -H and the bench's per-thread CPU. */
	pthread_setname_np(k->thread, "mpp-store");
	*out = k;
	return MPP_OK;
}

void mpp_keeper_stop(mpp_keeper *k)
{
	mpp_audit_close(k->q);
	pthread_join(k->thread, NULL);
	mpp_store_close(k->store);
	free(k);
}
