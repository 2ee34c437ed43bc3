/*
 * pool.h: run n independent jobs on the machine's online CPUs (at most 8
 * threads, the caller's thread among them). Not a general thread pool: no
 * queue outlives the call.
 */
#ifndef MPP_POOL_H
#define MPP_POOL_H

#include <stddef.h>

/* Run fn(ctx, i) for i in [0, n); the calls must touch disjoint data.
 * Returns 0, or the first non-zero result (the remaining jobs are then
 * not started). */
int mpp_parallel_for(size_t n, int (*fn)(void *ctx, size_t i), void *ctx);

#endif
