/*
 * rewrite.h: instrumenting one C file, start to finish: parse (refusing a
 * file with errors), plan the counters and call-site tags, apply the edits
 * and wrap the result in the generated declarations. Both mpipredict-
 * instrument and mpipredict-cc call this; neither prints from here.
 */
#ifndef MPP_INSTRUMENT_REWRITE_H
#define MPP_INSTRUMENT_REWRITE_H

#include <stddef.h>

#include "instrument/headers.h"

struct mpp_rewrite {
	char *text; /* the complete rewritten file */
	size_t len;
	char *features; /* its features.tsv rows (no header) */
	size_t flen;
	char **notes; /* "file:line: not instrumented: why" */
	size_t nnotes;
	char *diag; /* clang's error diagnostics when refused */
	size_t ncounters, nsites;
	/* The copies of the project headers it includes (headers.h), to be
	 * written where each one's `path` says. */
	struct mpp_headers headers;
};

/* The file part of the feature names of the source at `path` (malloc'd,
 * NULL when out of memory): unique among the files of one program even when
 * a recursive make compiles two `util.c` from two directories, readable,
 * and the same on every build of the same tree. It is the path relative to
 * a root: $MPIPREDICT_SRCROOT when set and the file is inside it; else the
 * top of the checkout (git, hg or svn) the file is in; else the file's
 * directory, raised while its parent holds a build file (Makefile,
 * makefile, GNUmakefile, CMakeLists.txt, meson.build, configure,
 * compile_commands.json). `src/a/util.c` and `src/b/util.c` of one project
 * stay apart; a lone `t.c` in a directory without a build file above it
 * is `t.c`. Names that still coincide (two trees without a checkout or a
 * build file joining them) are told apart by the runtime (collector). */
char *mpp_feature_file(const char *path);

/* Rewrites `path`, naming it `display` in notes and #line (the path as the
 * user gave it, so that diagnostics and debuggers find it) and `name_file`
 * in feature names and features.tsv, parsing with clang arguments `args`;
 * the unit carries `app` (NULL: none) as the build's default app name.
 * With `hdir` (an absolute directory; NULL: headers are not rewritten) the
 * project headers it includes are rewritten too, their copies planned
 * under hdir (out->headers) and the file's directives pointed at them.
 * Returns 0; 1 if the file does not parse cleanly (out->diag says why, nothing
 * else is set); -1 on another error, with a message in err. The caller frees
 * out with mpp_rewrite_free in every case. */
int mpp_rewrite_file(const char *path, const char *display,
		     const char *name_file, const char *app, const char *hdir,
		     const char *const *args, int nargs,
		     struct mpp_rewrite *out, char *err, size_t errlen);
void mpp_rewrite_free(struct mpp_rewrite *r);

#endif
