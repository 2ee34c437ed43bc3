/*
 * cache.c: reference-counted model snapshots (see cache.h). The mutex is
 * held only to read the pointer and take a reference, a few instructions;
 * predictions themselves run outside any lock.
 */
#include "server/cache.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

struct mpp_snapshot {
	atomic_long refs;
	size_t n;
	mpp_model **m;
	mpp_strmap *terms; /* terms[i]: model m[i]'s names -> term */
};

static void snapshot_free(mpp_snapshot *s)
{
	for (size_t i = 0; i < s->n; i++) {
		mpp_model_free(s->m[i]);
		if (s->terms)
			mpp_strmap_free(&s->terms[i]);
	}
	free(s->terms);
	free(s->m);
	free(s);
}

/* Feature names and aliases of m -> term number; the first term to claim a
 * name keeps it, as mpp_model_find_term() would find it. */
static int index_terms(const mpp_model *m, mpp_strmap *map)
{
	if (mpp_strmap_init(map, m->nterms * 2) != 0)
		return -1;
	for (size_t i = 0; i < m->nterms; i++) {
		const mpp_term *t = &m->terms[i];
		if (mpp_strmap_put(map, t->feature, strlen(t->feature),
				   (long)i) < 0)
			return -1;
		for (size_t a = 0; a < t->naliases; a++)
			if (mpp_strmap_put(map, t->aliases[a],
					   strlen(t->aliases[a]), (long)i) < 0)
				return -1;
	}
	return 0;
}

static int by_app(const void *a, const void *b)
{
	const mpp_model *x = *(mpp_model *const *)a;
	const mpp_model *y = *(mpp_model *const *)b;
	return strcmp(x->app, y->app);
}

mpp_snapshot *mpp_snapshot_new(mpp_model **models, size_t n)
{
	mpp_snapshot *s = malloc(sizeof *s);
	if (s == NULL) {
		for (size_t i = 0; i < n; i++)
			mpp_model_free(models[i]);
		free(models);
		return NULL;
	}
	atomic_init(&s->refs, 1);
	s->n = n;
	s->m = models;
	if (n > 1)
		qsort(s->m, n, sizeof *s->m, by_app);
	s->terms = calloc(n ? n : 1, sizeof *s->terms);
	for (size_t i = 0; s->terms && i < n; i++)
		if (index_terms(s->m[i], &s->terms[i]) != 0) {
			for (size_t k = 0; k <= i; k++)
				mpp_strmap_free(&s->terms[k]);
			free(s->terms);
			s->terms = NULL;
		}
	if (s->terms == NULL) {
		snapshot_free(s);
		return NULL;
	}
	return s;
}

size_t mpp_snapshot_count(const mpp_snapshot *s)
{
	return s->n;
}

const mpp_model *mpp_snapshot_at(const mpp_snapshot *s, size_t i)
{
	return s->m[i];
}

const mpp_model *mpp_snapshot_find(const mpp_snapshot *s, const char *app,
				   const mpp_strmap **terms)
{
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(app, s->m[mid]->app);
		if (c == 0) {
			if (terms != NULL)
				*terms = &s->terms[mid];
			return s->m[mid];
		}
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

int mpp_snapshot_same(const mpp_snapshot *a, const mpp_snapshot *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (a->m[i]->id != b->m[i]->id ||
		    strcmp(a->m[i]->app, b->m[i]->app) != 0)
			return 0;
	return 1;
}

void mpp_snapshot_release(mpp_snapshot *s)
{
	if (atomic_fetch_sub_explicit(&s->refs, 1, memory_order_acq_rel) != 1)
		return;
	snapshot_free(s);
}

void mpp_cache_init(mpp_cache *c, mpp_snapshot *s)
{
	pthread_mutex_init(&c->lock, NULL);
	c->cur = s;
}

void mpp_cache_destroy(mpp_cache *c)
{
	mpp_snapshot_release(c->cur);
	c->cur = NULL;
	pthread_mutex_destroy(&c->lock);
}

mpp_snapshot *mpp_cache_acquire(mpp_cache *c)
{
	pthread_mutex_lock(&c->lock);
	mpp_snapshot *s = c->cur;
	atomic_fetch_add_explicit(&s->refs, 1, memory_order_relaxed);
	pthread_mutex_unlock(&c->lock);
	return s;
}

void mpp_cache_install(mpp_cache *c, mpp_snapshot *s)
{
	pthread_mutex_lock(&c->lock);
	mpp_snapshot *old = c->cur;
	c->cur = s;
	pthread_mutex_unlock(&c->lock);
	mpp_snapshot_release(old);
}
