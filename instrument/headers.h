/*
 * headers.h: counting the loops, branches and MPI calls of the project's
 * own headers (an inline function or a template in `grid.hpp`, a `static
 * inline` helper in `util.h`) once per source location, however many
 * units include them.
 *
 * A unit's rewrite also rewrites every project header it includes into a
 * copy, and points its `#include` directives at the copies. A copy defines
 * the header's counter table as weak symbols named by a hash of the
 * rewritten header (codegen.h, mpp_codegen_header): the linker keeps one
 * table for all the units that include the same rewrite, and the runtime
 * registers it once. Units that see the header differently (other macros
 * before it) make another rewrite, another table, and the runtime tells
 * the two apart as it does two units of one name.
 *
 * Project headers: files under the root of the unit's feature names
 * (rewrite.h, mpp_feature_file), not system headers, entered once in the
 * unit (a header meant to be included several times, X-macro style, is
 * left alone), and included only from the unit or from other project
 * headers by a directive naming a file (not a macro) at file scope (or
 * in an `extern "C"` block: not a `.inc` included inside a function, a
 * namespace or a struct). Others are not
 * rewritten (their loops are not counted), as before.
 *
 * Not for: parsing (tu.h) or deciding what to count (visit.h).
 */
#ifndef MPP_INSTRUMENT_HEADERS_H
#define MPP_INSTRUMENT_HEADERS_H

#include <stddef.h>

#include "instrument/plan.h"
#include "instrument/source.h"
#include "instrument/tu.h"

/* One rewritten header. */
struct mpp_header_copy {
	char *orig; /* the original's absolute path */
	char *path; /* where the copy must be written (under hdir) */
	char *key;  /* the hash naming its table (16 hex digits) */
	char *text; /* the copy */
	size_t len;
	char *features; /* its features.tsv rows */
	size_t flen;
	size_t ncounters, nsites;
};

struct mpp_headers {
	struct mpp_header_copy *v;
	size_t n;
	char **notes; /* "file:line: not instrumented: why" (owned) */
	size_t nnotes;
};

/* Plans and writes (in memory) the copies of the project headers that the
 * unit parsed in `t` (the file `main_abs`, with source `src`, C++ when
 * `cxx`: its headers are walked as C++) includes, to
 * be written under directory `hdir` (absolute), and adds to `main_edits`
 * the edits that point the unit's directives at them. Returns 0, or -1
 * (out of memory, message in err). The caller frees `out` with
 * mpp_headers_free in every case. */
int mpp_headers_rewrite(const struct mpp_tu *t, const struct mpp_source *src,
			const char *main_abs, int cxx, const char *hdir,
			struct mpp_edits *main_edits, struct mpp_headers *out,
			char *err, size_t errlen);
void mpp_headers_free(struct mpp_headers *h);

#endif
