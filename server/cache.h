/*
 * cache.h: the active models held in memory, swapped whole on reload.
 *
 * A snapshot is an immutable set of active models (one per app, sorted by
 * app), each with an index from its feature names and aliases to its terms,
 * built once here so that a request finds its terms by hashing. Request threads
 * acquire the current snapshot, use it without any lock, and release it; the
 * store keeper (keeper.h) installs a new snapshot after a training commits. The
 * old one is freed when its last reader releases it, so no request ever sees a
 * half-loaded set or a freed model. Not for talking to SQLite: the cache never
 * touches the store.
 */
#ifndef MPP_SERVER_CACHE_H
#define MPP_SERVER_CACHE_H

#include <pthread.h>
#include <stddef.h>

#include "regress/model.h"
#include "server/strmap.h"

typedef struct mpp_snapshot mpp_snapshot;

/* Takes ownership of models[0..n) (each freed with mpp_model_free) and of
 * the array itself. NULL when out of memory (the models are freed then). */
mpp_snapshot *mpp_snapshot_new(mpp_model **models, size_t n);

size_t mpp_snapshot_count(const mpp_snapshot *s);
const mpp_model *mpp_snapshot_at(const mpp_snapshot *s, size_t i);

/* The active model of `app`, or NULL. When terms is not NULL, *terms is
 * set to the model's index: feature name or alias -> term number. */
const mpp_model *mpp_snapshot_find(const mpp_snapshot *s, const char *app,
				   const mpp_strmap **terms);

/* Non-zero when both hold the same model ids for the same apps. */
int mpp_snapshot_same(const mpp_snapshot *a, const mpp_snapshot *b);

typedef struct mpp_cache {
	pthread_mutex_t lock; /* guards `cur` while a reference is taken */
	mpp_snapshot *cur;
} mpp_cache;

/* Starts with s (which may not be NULL); the cache owns it. */
void mpp_cache_init(mpp_cache *c, mpp_snapshot *s);
void mpp_cache_destroy(mpp_cache *c);

/* A reference to the current snapshot; give it back with
 * mpp_snapshot_release(). */
mpp_snapshot *mpp_cache_acquire(mpp_cache *c);
void mpp_snapshot_release(mpp_snapshot *s);

/* Makes s current (the cache takes it) and drops the cache's reference to
 * the previous one. */
void mpp_cache_install(mpp_cache *c, mpp_snapshot *s);

#endif
