/*
 * tu.h: parsing one C file with libclang for rewriting. Parses with the
 * detailed preprocessing record (to see macro expansions), refuses a file
 * whose parse has any error diagnostic (an AST with errors has missing
 * children), and records where macros were expanded or defined in the file
 * and which text #if excluded, so that no edit lands inside them.
 */
#ifndef MPP_INSTRUMENT_TU_H
#define MPP_INSTRUMENT_TU_H

#include <clang-c/Index.h>

#include "instrument/source.h"

/* A macro expansion (`FOO(a, b)`) or definition (`#define FOO ...`) in
 * the main file, as a byte range. Sorted, disjoint. */
struct mpp_macro {
	size_t begin, end;
	int is_definition;
	/* An expansion of a macro whose definition stringizes a parameter
	 * (`#x`): text inserted into its arguments would show in a string. */
	int stringizes;
	/* An expansion of a macro defined in a system header (`assert`):
	 * what it holds is not the user's to move, so no note about it. */
	int system;
};

struct mpp_tu {
	CXIndex index;
	CXTranslationUnit tu;
	CXFile file;  /* the main file (of a view: the header) */
	int borrowed; /* a view: tu and index belong to another mpp_tu */
	struct mpp_macro *macros;
	size_t nmacros;
	/* Where the main file asks for a pragma, as byte ranges sorted by
	 * begin: a `#pragma` directive (from `#` to the end of the word
	 * `pragma`), a `_Pragma(...)` operator (the whole of it), and the
	 * invocation of a macro whose definition holds `_Pragma`. */
	struct mpp_range *pragmas;
	size_t npragmas;
};

/* Parses `src_path` (already read into `src`) with the clang arguments
 * `args` (which must not name the file). Fills src->skipped.
 * Returns 0; 1 if the parse has errors, with clang's diagnostics, one per
 * line, in *diag (malloc'd, caller frees); -1 if libclang failed, with a
 * message in err. */
int mpp_tu_parse(struct mpp_tu *t, struct mpp_source *src, const char *src_path,
		 const char *const *args, int nargs, char **diag, char *err,
		 size_t errlen);
void mpp_tu_free(struct mpp_tu *t);

/* A view of `whole` in which `file` (a header it includes, read into
 * `src`) plays the main file: its macro ranges, pragmas and skipped text
 * (src->skipped), so that the walk of visit.h plans edits for that file.
 * The view borrows whole's parse (free it with mpp_tu_free before whole).
 * Returns 0 or -1 (out of memory). */
int mpp_tu_view(const struct mpp_tu *whole, CXFile file, struct mpp_source *src,
		struct mpp_tu *view);

/* Index of the macro range r with r.begin < off < r.end, or -1. */
long mpp_tu_macro_inside(const struct mpp_tu *t, size_t off);
/* Index of the macro expansion beginning exactly at off, or -1. */
long mpp_tu_expansion_at(const struct mpp_tu *t, size_t off);
/* Index of the last macro expansion (not definition) that ends at or
 * before off, or -1. */
long mpp_tu_expansion_before(const struct mpp_tu *t, size_t off);

/* True if a pragma range begins in [begin, end). */
int mpp_tu_pragma_within(const struct mpp_tu *t, size_t begin, size_t end);
/* Index of the last pragma range that begins before off, or -1. */
long mpp_tu_pragma_before(const struct mpp_tu *t, size_t off);

#endif
