/*
 * edits.h: a list of insertions into a source text, applied in one pass.
 *
 * The rewriter only ever inserts (it never deletes or replaces), so an edit
 * is an offset and a text. Several edits may share an offset; their order
 * there is fixed by how they nest: closing texts (`}`, `)`) come before
 * opening ones, inner closers before outer closers, outer openers before
 * inner openers. `depth` is the nesting depth of the construct an edit
 * belongs to (deeper = more inner).
 */
#ifndef MPP_INSTRUMENT_EDITS_H
#define MPP_INSTRUMENT_EDITS_H

#include <stddef.h>

enum mpp_edit_side { MPP_EDIT_CLOSE = 0, MPP_EDIT_OPEN = 1 };

struct mpp_edit {
	size_t off;
	enum mpp_edit_side side;
	unsigned depth;
	unsigned seq; /* order of addition, the last tie-breaker */
	char *text;   /* owned */
};

struct mpp_edits {
	struct mpp_edit *v;
	size_t n, cap;
};

/* Adds an insertion of a copy of `text` at `off`. Returns 0 or -1 (out of
 * memory). */
int mpp_edits_add(struct mpp_edits *e, size_t off, enum mpp_edit_side side,
		  unsigned depth, const char *text);

/* Drops every edit added after the first `n` (to undo a half-made change). */
void mpp_edits_truncate(struct mpp_edits *e, size_t n);

/* Sorts the edits and writes `text` (len bytes) with them applied to `out`
 * (a malloc'd, NUL-terminated buffer the caller frees). Returns 0 or -1. */
int mpp_edits_apply(struct mpp_edits *e, const char *text, size_t len,
		    char **out, size_t *outlen);

void mpp_edits_free(struct mpp_edits *e);

#endif
