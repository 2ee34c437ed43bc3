/*
 * codegen.h: the text the rewriter adds around a file's own code, as the
 * ABI in collector/mpp_abi.h asks: a one-line prologue (the site type, the
 * extern thread-local tag stack, the counter and site arrays, the unit's
 * inline tag-push function), then
 * `#line 1 "<file>"`, then the rewritten file, then an epilogue holding the
 * names, the `struct __mpp_unit` and the constructor that registers it.
 * Every identifier starts with __mpp_ and nothing is #included, so user
 * macros and feature-test macros cannot interfere.
 *
 * Also the features.tsv rows of a plan.
 */
#ifndef MPP_INSTRUMENT_CODEGEN_H
#define MPP_INSTRUMENT_CODEGEN_H

#include <stdio.h>

#include "instrument/plan.h"

/* `s` as a C string literal with quotes and escapes (malloc'd), or NULL. */
char *mpp_quote_c(const char *s);

/* The identifier suffix for a file: 16 hex digits of a hash of `key` (the
 * file's absolute path), written into id[17]. */
void mpp_unit_id(const char *key, char id[17]);

/* Writes the complete rewritten file: prologue, `#line 1`, `body` (the
 * source with the plan's edits applied), epilogue. `display` is the file
 * name used in feature names and in #line; `app` (NULL or "" for none) the
 * default app name the unit carries. Returns 0 or -1 (write error or out
 * of memory). */
int mpp_codegen_write(FILE *out, const struct mpp_plan *plan, const char *id,
		      const char *display, const char *app, const char *body,
		      size_t bodylen);

/* Writes one features.tsv row per counter and two (call, bytes) per site. */
int mpp_codegen_features(FILE *out, const struct mpp_plan *plan,
			 const char *display);

/* The header row of features.tsv. */
extern const char mpp_features_header[];

#endif
