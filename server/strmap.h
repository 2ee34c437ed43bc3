/*
 * strmap.h: a hash map from byte strings to small integers, for lookups on
 * the request path (a model's feature names and aliases to its terms; the
 * names one request carries, to find duplicates).
 *
 * Open addressing with linear probing, FNV-1a hashes, grown at half full.
 * Keys are borrowed: each must stay valid and unchanged while the map
 * holds it. A map is written by one thread; once built, any number of
 * threads may read it at once. Not for anything that needs deletion or
 * ordered iteration.
 */
#ifndef MPP_SERVER_STRMAP_H
#define MPP_SERVER_STRMAP_H

#include <stddef.h>
#include <stdint.h>

typedef struct mpp_strmap_slot {
	const char *key; /* NULL: empty slot */
	size_t len;
	uint64_t hash;
	long value;
} mpp_strmap_slot;

typedef struct mpp_strmap {
	mpp_strmap_slot *slots;
	size_t cap; /* a power of two, or 0 before the first put */
	size_t n;
} mpp_strmap;

/* An empty map sized for `expected` keys without growing. Returns 0, or -1
 * when out of memory. */
int mpp_strmap_init(mpp_strmap *m, size_t expected);

/* The value stored for key[0..len), or -1 when absent. */
long mpp_strmap_get(const mpp_strmap *m, const char *key, size_t len);

/* Stores key -> value unless the key is there already. Returns 0 when
 * stored, 1 when the key was present (its value unchanged), -1 when out of
 * memory. */
int mpp_strmap_put(mpp_strmap *m, const char *key, size_t len, long value);

void mpp_strmap_free(mpp_strmap *m);

#endif
