/*
 * edits.c: the sorted insertion list (see edits.h). Sorting once and copying
 * the text in one pass keeps rewriting linear in the size of the file.
 */
#include "instrument/edits.h"

#include <stdlib.h>
#include <string.h>

int mpp_edits_add(struct mpp_edits *e, size_t off, enum mpp_edit_side side,
		  unsigned depth, const char *text)
{
	if (e->n == e->cap) {
		size_t cap = e->cap ? e->cap * 2 : 256;
		struct mpp_edit *v = realloc(e->v, cap * sizeof(*v));
		if (!v)
			return -1;
		e->v = v;
		e->cap = cap;
	}
	char *t = strdup(text);
	if (!t)
		return -1;
	e->v[e->n] = (struct mpp_edit){off, side, depth, (unsigned)e->n, t};
	e->n++;
	return 0;
}

void mpp_edits_truncate(struct mpp_edits *e, size_t n)
{
	while (e->n > n)
		free(e->v[--e->n].text);
}

static int cmp_edit(const void *pa, const void *pb)
{
	const struct mpp_edit *a = pa, *b = pb;
	if (a->off != b->off)
		return a->off < b->off ? -1 : 1;
	if (a->side != b->side)
		return a->side < b->side ? -1 : 1;
	if (a->depth != b->depth) {
		int outer_first = a->depth < b->depth ? -1 : 1;
		return a->side == MPP_EDIT_OPEN ? outer_first : -outer_first;
	}
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

int mpp_edits_apply(struct mpp_edits *e, const char *text, size_t len,
		    char **out, size_t *outlen)
{
	if (e->n > 1)
		qsort(e->v, e->n, sizeof(*e->v), cmp_edit);
	size_t total = len;
	for (size_t i = 0; i < e->n; i++)
		total += strlen(e->v[i].text);
	char *buf = malloc(total + 1);
	if (!buf)
		return -1;
	size_t at = 0, o = 0;
	for (size_t i = 0; i < e->n; i++) {
		size_t off = e->v[i].off < len ? e->v[i].off : len;
		memcpy(buf + o, text + at, off - at);
		o += off - at;
		at = off;
		size_t tl = strlen(e->v[i].text);
		memcpy(buf + o, e->v[i].text, tl);
		o += tl;
	}
	memcpy(buf + o, text + at, len - at);
	o += len - at;
	buf[o] = 0;
	*out = buf;
	*outlen = o;
	return 0;
}

void mpp_edits_free(struct mpp_edits *e)
{
	mpp_edits_truncate(e, 0);
	free(e->v);
	memset(e, 0, sizeof(*e));
}
