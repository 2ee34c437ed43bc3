/*
 * grow.h: room for one more element in a growing array, doubling its
 * capacity (first 'first' elements). Every part may include it. Not for
 * arrays whose growth policy matters (those keep their own).
 */
#ifndef MPP_COMMON_GROW_H
#define MPP_COMMON_GROW_H

#include <stdlib.h>

/* Makes *arr (of *cap elements of sz bytes, n in use) hold at least n + 1:
 * 0, or -1 when out of memory, in which case *arr and *cap are unchanged
 * (the caller still owns and frees *arr). */
static inline int mpp_grow(void **arr, size_t *cap, size_t n, size_t sz,
			   size_t first)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : first;
	void *a = realloc(*arr, c * sz);
	if (a == NULL)
		return -1;
	*arr = a;
	*cap = c;
	return 0;
}

#endif
