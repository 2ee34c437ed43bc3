/*
 * source.h: the bytes of one C source file and the questions the rewriter
 * asks about them: line and column of an offset, where the next code token
 * starts (past blanks, comments, preprocessor directive lines and text that
 * an #if excluded), and whether a statement is directly preceded by
 * directive lines such as `#pragma omp for`.
 *
 * It knows nothing of libclang; offsets are byte offsets into `text`.
 * Not a C lexer: it only recognises what it must skip.
 */
#ifndef MPP_INSTRUMENT_SOURCE_H
#define MPP_INSTRUMENT_SOURCE_H

#include <stddef.h>

/* A half-open byte range [begin, end). */
struct mpp_range {
	size_t begin, end;
};

struct mpp_source {
	char *text;   /* the file, NUL-terminated (owned) */
	size_t len;   /* bytes, without the NUL */
	size_t *line; /* line[i]: offset where line i+1 starts (owned) */
	size_t nline;
	/* Text excluded by #if/#ifdef (sorted, disjoint; owned). Filled by the
	 * parser, may stay empty. */
	struct mpp_range *skipped;
	size_t nskipped;
};

/* Reads `path` into `src`. Returns 0, or -1 with a message in err. */
int mpp_source_read(struct mpp_source *src, const char *path, char *err,
		    size_t errlen);
void mpp_source_free(struct mpp_source *src);

/* 1-based line and byte column of `off`. */
void mpp_source_linecol(const struct mpp_source *src, size_t off,
			unsigned *line, unsigned *col);

/* Offset of the first byte of the next code token at or after `off`,
 * skipping blanks, comments, directive lines and skipped text; src->len at
 * the end of the file. */
size_t mpp_source_next_code(const struct mpp_source *src, size_t off);

/* If the code token at `off` is the first one on its line and the lines
 * right above it (blank lines allowed) are preprocessor directives, returns
 * the offset of the start of the first such directive line; otherwise
 * returns `off`. A token at `off` that is itself a `#` counts as a
 * directive line. */
size_t mpp_source_directives_before(const struct mpp_source *src, size_t off);

/* True if `off` lies on a preprocessor directive's logical line (`#if X`,
 * `#define ...`, continued lines included). */
int mpp_source_in_directive(const struct mpp_source *src, size_t off);

/* True if `off` lies in text the preprocessor skipped (an #if excluded
 * it; src->skipped). */
int mpp_source_in_skipped(const struct mpp_source *src, size_t off);

/* True if the `len` bytes at `off` are exactly `word` and the byte after
 * is not part of an identifier. */
int mpp_source_is_word(const struct mpp_source *src, size_t off,
		       const char *word);

#endif
