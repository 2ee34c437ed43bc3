/*
 * strmap.c: open-addressing string map (see strmap.h). The hash is kept in
 * each slot so that growing never rehashes a key and a probe compares bytes
 * only when the full hashes agree.
 */
#include "server/strmap.h"

#include <stdlib.h>
#include <string.h>

static uint64_t fnv1a(const char *s, size_t len)
{
	uint64_t h = 14695981039346656037ULL;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ULL;
	}
	return h;
}

static int alloc_slots(mpp_strmap *m, size_t cap)
{
	m->slots = calloc(cap, sizeof *m->slots);
	if (m->slots == NULL)
		return -1;
	m->cap = cap;
	return 0;
}

int mpp_strmap_init(mpp_strmap *m, size_t expected)
{
	size_t cap = 8;
	while (cap < 2 * expected + 1)
		cap *= 2;
	m->n = 0;
	return alloc_slots(m, cap);
}

/* The slot holding the key, or the empty slot where it would go. */
static mpp_strmap_slot *probe(const mpp_strmap *m, const char *key, size_t len,
			      uint64_t h)
{
	size_t mask = m->cap - 1;
	for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
		mpp_strmap_slot *s = &m->slots[i];
		if (s->key == NULL || (s->hash == h && s->len == len &&
				       memcmp(s->key, key, len) == 0))
			return s;
	}
}

long mpp_strmap_get(const mpp_strmap *m, const char *key, size_t len)
{
	if (m->cap == 0)
		return -1;
	const mpp_strmap_slot *s = probe(m, key, len, fnv1a(key, len));
	return s->key ? s->value : -1;
}

static int grow(mpp_strmap *m)
{
	mpp_strmap old = *m;
	if (alloc_slots(m, old.cap ? old.cap * 2 : 8) != 0) {
		*m = old;
		return -1;
	}
	for (size_t i = 0; i < old.cap; i++)
		if (old.slots[i].key != NULL)
			*probe(m, old.slots[i].key, old.slots[i].len,
			       old.slots[i].hash) = old.slots[i];
	free(old.slots);
	return 0;
}

int mpp_strmap_put(mpp_strmap *m, const char *key, size_t len, long value)
{
	if (2 * (m->n + 1) > m->cap && grow(m) != 0)
		return -1;
	uint64_t h = fnv1a(key, len);
	mpp_strmap_slot *s = probe(m, key, len, h);
	if (s->key != NULL)
		return 1;
	*s = (mpp_strmap_slot){key, len, h, value};
	m->n++;
	return 0;
}

void mpp_strmap_free(mpp_strmap *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
}
