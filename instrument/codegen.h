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

#include <stdint.h>
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

/* A 64-bit hash of `len` bytes of `text` and the string `more`. */
uint64_t mpp_codegen_hash(const char *text, size_t len, const char *more);

/* Writes the copy of a header (headers.h) whose rewritten text is `body`:
 * when the plan counts anything, a guarded prologue defining the header's
 * counter and site arrays and its unit as weak symbols named by `key` (so
 * that every unit including the same rewrite shares one table, and the
 * runtime sees one unit) and a constructor registering it; the visitor's
 * names (`__mpp_c_<id>` ...) are macros for them. Then `#line 1
 * "<line_file>"` and the body. The including unit's prologue (declaring
 * struct __mpp_site, __mpp_tag and __mpp_register) must come first.
 * plan->id_text holds the text the build id covers. Returns 0 or -1. */
int mpp_codegen_header(FILE *out, const struct mpp_plan *plan, const char *id,
		       const char *key, const char *line_file, const char *body,
		       size_t bodylen);

/* Writes one features.tsv row per counter and two (call, bytes) per site. */
int mpp_codegen_features(FILE *out, const struct mpp_plan *plan,
			 const char *display);

/* The header row of features.tsv. */
extern const char mpp_features_header[];

#endif
