/*
 * keeper.h: the daemon's one thread that talks to SQLite in the background.
 *
 * It owns the daemon's store handle. Every audit interval (or as soon as a
 * batch is queued) it commits the queued prediction records (audit.h) in
 * one transaction; every reload interval it asks the store whether another
 * connection committed (PRAGMA data_version, no disk read) and when so
 * loads the active models and installs them in the cache (cache.h) if they
 * differ; every minute it applies the audit's retention. Request threads
 * therefore never wait on the disk. Because the audit writes go through this
 * same handle, they do not count as changes. Not for ingesting runs (api.c
 * opens its own handle).
 */
#ifndef MPP_SERVER_KEEPER_H
#define MPP_SERVER_KEEPER_H

#include <stddef.h>

#include "server/audit.h"
#include "server/cache.h"

typedef struct mpp_keeper mpp_keeper;

/* Opens (creating when missing) the store at db_path, loads the active
 * models into a cache it initialises, and starts the thread that drains q.
 * Returns 0, or an mpp_status with err naming the database. */
int mpp_keeper_start(const char *db_path, int audit_ms, int reload_ms,
		     size_t batch, mpp_audit *q, mpp_cache *cache,
		     mpp_keeper **out, char *err, size_t errlen);

/* From now on, when another connection commits, the keeper also feeds the
 * jobs added since to h (hist.h); h must outlive the keeper. */
struct mpp_histsvc;
void mpp_keeper_set_history(mpp_keeper *k, struct mpp_histsvc *h);

/* The audit's retention (schema/store.h, mpp_store_prune_predictions):
 * records older than max_age_s seconds (0: kept whatever their age) and
 * all but the newest max_rows (0: no limit) are deleted by the keeper
 * thread, soon after this call, then every minute and once more at stop. */
void mpp_keeper_set_retention(mpp_keeper *k, double max_age_s,
			      long long max_rows);

/* The store's schema version (PRAGMA user_version), read at start. */
int mpp_keeper_schema(const mpp_keeper *k);

/* 0 when the store does not take writes: the last audit commit failed and
 * a probe write right after it failed too, for another reason than another
 * connection's write lock (a full disk, a file size limit, a read-only file
 * system), or the file is not writable by this process (access(2), checked
 * every second). 1 again once a write succeeds and the file is writable.
 * Cheap (an atomic load): request threads call it. */
int mpp_keeper_writable(const mpp_keeper *k);

/* Closes q, writes what it still holds (for at most a few seconds), stops
 * the thread and closes the store; returns 0. The cache stays valid (the
 * caller destroys it). Returns -1 when the thread is still stuck in the
 * store after those seconds: it is left running, and k, q and the cache
 * must not be freed (the caller is about to exit). */
int mpp_keeper_stop(mpp_keeper *k);

#endif
