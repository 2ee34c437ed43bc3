/*
 * lean.h: a lean production build (issue 14): the counter names an app's
 * active model uses, read from the file that $MPIPREDICT_LEAN names at
 * build time (written by `mpipredict-predict --db D --app A
 * --used-features`), so that the rewriter plants only those counters.
 * Training builds leave MPIPREDICT_LEAN unset and count everything. Not
 * for: choosing counters (visit.c) or reading the store (cli/).
 *
 * The file holds one feature name a line; a `.mean` or `.max` ending is
 * dropped (the model's terms carry it, counters do not), blank lines and
 * lines starting with `#` are skipped.
 */
#ifndef MPP_INSTRUMENT_LEAN_H
#define MPP_INSTRUMENT_LEAN_H

#include <stddef.h>

struct mpp_lean {
	char **names; /* sorted, owned */
	size_t n;
};

/* Reads `path` into *l. Returns 0; -1 with a message naming the file (and
 * line) in err when it cannot be read or holds a line too long. */
int mpp_lean_read(struct mpp_lean *l, const char *path, char *err,
		  size_t errlen);

/* 1 when `name` (e.g. "loop:src/a.c:12:5") is one the list keeps. */
int mpp_lean_keeps(const struct mpp_lean *l, const char *name);

void mpp_lean_free(struct mpp_lean *l);

#endif
