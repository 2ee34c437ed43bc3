/*
 * pool.c: run independent jobs on the online CPUs (pool.h).
 */
#include "regress/pool.h"

#include <pthread.h>
#include <unistd.h>

struct pool {
	pthread_mutex_t lock;
	size_t next, n;
	int rc;
	int (*fn)(void *ctx, size_t i);
	void *ctx;
};

static void *pool_worker(void *arg)
{
	struct pool *p = arg;

	for (;;) {
		pthread_mutex_lock(&p->lock);
		size_t i = p->rc ? p->n : p->next++;
		pthread_mutex_unlock(&p->lock);
		if (i >= p->n)
			return NULL;
		int rc = p->fn(p->ctx, i);
		if (rc) {
			pthread_mutex_lock(&p->lock);
			if (!p->rc)
				p->rc = rc;
			pthread_mutex_unlock(&p->lock);
		}
	}
}

int mpp_parallel_for(size_t n, int (*fn)(void *ctx, size_t i), void *ctx)
{
	struct pool p = {PTHREAD_MUTEX_INITIALIZER, 0, n, 0, fn, ctx};
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	size_t nt = ncpu < 1 ? 1 : ncpu > 8 ? 8 : (size_t)ncpu, started = 0;
	pthread_t tid[8];

	if (nt > n)
		nt = n;
	for (size_t t = 1; t < nt; t++)
		if (pthread_create(&tid[started], NULL, pool_worker, &p) == 0)
			started++;
	pool_worker(&p);
	for (size_t t = 0; t < started; t++)
		pthread_join(tid[t], NULL);
	return p.rc;
}
