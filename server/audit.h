/*
 * audit.h: the queue between request threads and the audit writer.
 *
 * A request thread pushes one answered prediction (its strings copied) and
 * returns at once: no disk, no SQLite, no sync on the request path. The
 * store keeper (keeper.h) takes batches and commits each in one
 * transaction. When the queue holds `max` records (the store is stuck), new
 * records are dropped and counted rather than blocking requests.
 * Not for anything but prediction records.
 */
#ifndef MPP_SERVER_AUDIT_H
#define MPP_SERVER_AUDIT_H

#include <stddef.h>

#include "schema/store.h"

typedef struct mpp_audit mpp_audit;

/* A queue holding at most max records; wakes the taker early once `batch`
 * are waiting. NULL when out of memory. */
mpp_audit *mpp_audit_new(size_t max, size_t batch);
void mpp_audit_free(mpp_audit *q);

/* Copies r. Returns 0, or -1 when the queue is full or out of memory (the
 * record is dropped). */
int mpp_audit_push(mpp_audit *q, const mpp_prediction_rec *r);

/* A batch taken off the queue: recs[0..n) point into memory the batch
 * owns; release with mpp_audit_batch_free(). */
typedef struct mpp_audit_batch {
	size_t n;
	mpp_prediction_rec *recs;
	void **blocks;
} mpp_audit_batch;

/* Waits until timeout_ms passes or the queue is closed, or, when
 * wake_on_batch is non-zero, until `batch` records are queued. Returns the
 * number queued, or -1 once the queue is closed. */
long mpp_audit_wait(mpp_audit *q, int timeout_ms, int wake_on_batch);

/* Records dropped because the queue was full since the previous call. */
size_t mpp_audit_dropped(mpp_audit *q);

/* Moves up to `max` queued records into b without waiting; returns b->n. */
size_t mpp_audit_take(mpp_audit *q, size_t max, mpp_audit_batch *b);
void mpp_audit_batch_free(mpp_audit_batch *b);

/* Wakes the taker; later waits return -1 at once. Takes still return what
 * is left, and pushes still work (shutdown stops the requests first). */
void mpp_audit_close(mpp_audit *q);

#endif
