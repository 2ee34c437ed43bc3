/*
 * rewrite.h: instrumenting one C file, start to finish: parse (refusing a
 * file with errors), plan the counters and call-site tags, apply the edits
 * and wrap the result in the generated declarations. Both mpipredict-
 * instrument and mpipredict-cc call this; neither prints from here.
 */
#ifndef MPP_INSTRUMENT_REWRITE_H
#define MPP_INSTRUMENT_REWRITE_H

#include <stddef.h>

struct mpp_rewrite {
	char *text; /* the complete rewritten file */
	size_t len;
	char *features; /* its features.tsv rows (no header) */
	size_t flen;
	char **notes; /* "file:line: not instrumented: why" */
	size_t nnotes;
	char *diag; /* clang's error diagnostics when refused */
	size_t ncounters, nsites;
};

/* Rewrites `path`, naming it `display` in feature names, notes and #line,
 * parsing with clang arguments `args`; the unit carries `app` (NULL: none)
 * as the build's default app name. Returns 0; 1 if the file does not
 * parse cleanly (out->diag says why, nothing else is set); -1 on another
 * error, with a message in err. The caller frees out with
 * mpp_rewrite_free in every case. */
int mpp_rewrite_file(const char *path, const char *display, const char *app,
		     const char *const *args, int nargs,
		     struct mpp_rewrite *out, char *err, size_t errlen);
void mpp_rewrite_free(struct mpp_rewrite *r);

#endif
