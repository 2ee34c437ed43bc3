/*
 * tu.c: libclang parse, diagnostics and the macro and skipped-text ranges
 * of the main file (see tu.h).
 */
#include "instrument/tu.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"

/* Macro definitions already tokenized: (file, offset) -> their MACRO_
 * flags (open addressing). */
struct defseen {
	CXFile file;
	unsigned off;
	int used, flags;
};

struct collect {
	struct mpp_tu *t;
	size_t cap, pcap;
	struct defseen *seen;
	size_t nseen, capseen;
	int oom;
};

static int add_pragma(struct collect *cl, size_t b, size_t e)
{
	struct mpp_tu *t = cl->t;
	if (mpp_grow((void **)&t->pragmas, &cl->pcap, t->npragmas,
		     sizeof(*t->pragmas), 16))
		return -1;
	t->pragmas[t->npragmas++] = (struct mpp_range){b, e};
	return 0;
}

enum { MACRO_PRAGMA = 1, MACRO_STRINGIZES = 2 };

/* MACRO_PRAGMA if the tokens of a macro definition hold `_Pragma`,
 * MACRO_STRINGIZES if they hold `#` before a name (the first token is
 * the macro's own name; `#define` is not in the extent). */
static int definition_flags(CXTranslationUnit tu, CXSourceRange r)
{
	CXToken *tk = NULL;
	unsigned n = 0;
	int flags = 0, hash = 0;
	clang_tokenize(tu, r, &tk, &n);
	for (unsigned i = 0; i < n; i++) {
		CXTokenKind k = clang_getTokenKind(tk[i]);
		CXString s = clang_getTokenSpelling(tu, tk[i]);
		const char *c = clang_getCString(s);
		if (k == CXToken_Identifier || k == CXToken_Keyword) {
			if (strcmp(c, "_Pragma") == 0 ||
			    strcmp(c, "__pragma") == 0)
				flags |= MACRO_PRAGMA;
			if (hash)
				flags |= MACRO_STRINGIZES;
		}
		hash = k == CXToken_Punctuation && strcmp(c, "#") == 0;
		clang_disposeString(s);
	}
	clang_disposeTokens(tu, tk, n);
	return flags;
}

/* The MACRO_ flags of the definition of the macro expanded at c; -1 out
 * of memory. Each definition is tokenized once. */
static int expansion_flags(struct collect *cl, CXCursor c)
{
	CXCursor d = clang_getCursorReferenced(c);
	if (clang_getCursorKind(d) != CXCursor_MacroDefinition)
		return 0;
	CXSourceRange r = clang_getCursorExtent(d);
	CXFile f;
	unsigned off;
	clang_getFileLocation(clang_getRangeStart(r), &f, NULL, NULL, &off);
	if (2 * (cl->nseen + 1) > cl->capseen) {
		size_t cap = cl->capseen ? cl->capseen * 2 : 256;
		struct defseen *v = calloc(cap, sizeof(*v));
		if (!v)
			return -1;
		for (size_t i = 0; i < cl->capseen; i++) {
			struct defseen *o = &cl->seen[i];
			if (!o->used)
				continue;
			size_t j = ((uintptr_t)o->file ^ o->off * 2654435761u) &
				   (cap - 1);
			while (v[j].used)
				j = (j + 1) & (cap - 1);
			v[j] = *o;
		}
		free(cl->seen);
		cl->seen = v;
		cl->capseen = cap;
	}
	size_t j = ((uintptr_t)f ^ off * 2654435761u) & (cl->capseen - 1);
	while (cl->seen[j].used) {
		if (cl->seen[j].file == f && cl->seen[j].off == off)
			return cl->seen[j].flags;
		j = (j + 1) & (cl->capseen - 1);
	}
	int p = definition_flags(cl->t->tu, r);
	cl->seen[j] = (struct defseen){f, off, 1, p};
	cl->nseen++;
	return p;
}

/* Finds `#pragma` and `_Pragma(...)` in the main file's tokens (a raw
 * lexing), but not in text an #if excluded: hpcg's SPMV row loop after
 * `#ifndef HPCG_NO_OPENMP / #pragma omp parallel for / #endif`, built
 * with HPCG_NO_OPENMP, stored its count on every row (issue 34). */
static int ident_char(char c)
{
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

/* Offset of token tk in the main file. (Its start alone: an extent costs
 * a lexing of the token.) */
static unsigned tok_off(CXTranslationUnit tu, CXToken tk)
{
	unsigned o;
	clang_getFileLocation(clang_getTokenLocation(tu, tk), NULL, NULL, NULL,
			      &o);
	return o;
}

static int scan_pragmas(struct collect *cl, const struct mpp_source *src)
{
	struct mpp_tu *t = cl->t;
	const char *x = src->text;
	if (!memmem(x, src->len, "ragma", 5))
		return 0; /* nothing to find: spare the tokenizing */
	CXSourceRange all = clang_getRange(
	    clang_getLocationForOffset(t->tu, t->file, 0),
	    clang_getLocationForOffset(t->tu, t->file, (unsigned)src->len));
	CXToken *tk = NULL;
	unsigned n = 0;
	clang_tokenize(t->tu, all, &tk, &n);
	int rc = 0;
	for (unsigned i = 0; i < n && rc == 0; i++) {
		CXTokenKind k = clang_getTokenKind(tk[i]);
		if (k != CXToken_Punctuation && k != CXToken_Identifier)
			continue;
		unsigned tb = tok_off(t->tu, tk[i]);
		if (mpp_source_in_skipped(src, tb))
			continue;
		if (k == CXToken_Punctuation && x[tb] == '#' &&
		    x[tb + 1] != '#' && i + 1 < n) {
			unsigned nb = tok_off(t->tu, tk[i + 1]);
			if (nb + 6 <= src->len &&
			    memcmp(x + nb, "pragma", 6) == 0 &&
			    !ident_char(x[nb + 6]))
				rc = add_pragma(cl, tb, nb + 6);
		} else if (k == CXToken_Identifier &&
			   ((tb + 7 <= src->len &&
			     memcmp(x + tb, "_Pragma", 7) == 0 &&
			     !ident_char(x[tb + 7])) ||
			    (tb + 8 <= src->len &&
			     memcmp(x + tb, "__pragma", 8) == 0 &&
			     !ident_char(x[tb + 8])))) {
			/* To the `)` that closes its argument. */
			unsigned end = tb + 7, depth = 0;
			for (unsigned j = i + 1; j < n; j++) {
				CXSourceRange r =
				    clang_getTokenExtent(t->tu, tk[j]);
				unsigned jb, je;
				clang_getFileLocation(clang_getRangeStart(r),
						      NULL, NULL, NULL, &jb);
				clang_getFileLocation(clang_getRangeEnd(r),
						      NULL, NULL, NULL, &je);
				char c = je - jb == 1 ? x[jb] : 0;
				if (j == i + 1 && c != '(')
					break;
				depth += c == '(';
				depth -= c == ')';
				if (depth == 0) {
					end = je;
					break;
				}
			}
			rc = add_pragma(cl, tb, end);
		}
	}
	clang_disposeTokens(t->tu, tk, n);
	return rc;
}

static enum CXChildVisitResult collect_macro(CXCursor c, CXCursor parent,
					     CXClientData data)
{
	(void)parent;
	struct collect *cl = data;
	enum CXCursorKind k = clang_getCursorKind(c);
	if (k != CXCursor_MacroExpansion && k != CXCursor_MacroDefinition)
		return CXChildVisit_Continue;
	CXSourceRange r = clang_getCursorExtent(c);
	CXFile fb, fe;
	unsigned b, e;
	clang_getFileLocation(clang_getRangeStart(r), &fb, NULL, NULL, &b);
	clang_getFileLocation(clang_getRangeEnd(r), &fe, NULL, NULL, &e);
	if (!fb || !clang_File_isEqual(fb, cl->t->file) || !fe ||
	    !clang_File_isEqual(fe, cl->t->file) || e <= b)
		return CXChildVisit_Continue;
	struct mpp_tu *t = cl->t;
	if (mpp_grow((void **)&t->macros, &cl->cap, t->nmacros,
		     sizeof(*t->macros), 256)) {
		cl->oom = 1;
		return CXChildVisit_Break;
	}
	t->macros[t->nmacros++] =
	    (struct mpp_macro){b, e, k == CXCursor_MacroDefinition, 0, 0};
	if (k == CXCursor_MacroExpansion) {
		int f = expansion_flags(cl, c);
		if (f < 0 || ((f & MACRO_PRAGMA) && add_pragma(cl, b, e) < 0)) {
			cl->oom = 1;
			return CXChildVisit_Break;
		}
		t->macros[t->nmacros - 1].stringizes =
		    (f & MACRO_STRINGIZES) != 0;
		t->macros[t->nmacros - 1].system =
		    clang_Location_isInSystemHeader(
			clang_getCursorLocation(clang_getCursorReferenced(c)));
	}
	return CXChildVisit_Continue;
}

static int cmp_macro(const void *pa, const void *pb)
{
	const struct mpp_macro *a = pa, *b = pb;
	return a->begin < b->begin ? -1 : a->begin > b->begin;
}

static int cmp_range(const void *pa, const void *pb)
{
	const struct mpp_range *a = pa, *b = pb;
	return a->begin < b->begin ? -1 : a->begin > b->begin;
}

/* Appends clang's error diagnostics, one per line, to a new string. */
static char *error_text(CXTranslationUnit tu)
{
	unsigned n = clang_getNumDiagnostics(tu);
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return NULL;
	for (unsigned i = 0; i < n; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		if (clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error) {
			CXString s = clang_formatDiagnostic(
			    d, clang_defaultDiagnosticDisplayOptions());
			fprintf(f, "%s\n", clang_getCString(s));
			clang_disposeString(s);
		}
		clang_disposeDiagnostic(d);
	}
	fclose(f);
	return out;
}

static int has_errors(CXTranslationUnit tu)
{
	unsigned n = clang_getNumDiagnostics(tu);
	int bad = 0;
	for (unsigned i = 0; i < n && !bad; i++) {
		CXDiagnostic d = clang_getDiagnostic(tu, i);
		bad = clang_getDiagnosticSeverity(d) >= CXDiagnostic_Error;
		clang_disposeDiagnostic(d);
	}
	return bad;
}

static int read_skipped(struct mpp_tu *t, struct mpp_source *src)
{
	CXSourceRangeList *l = clang_getSkippedRanges(t->tu, t->file);
	if (!l)
		return 0;
	src->skipped = calloc(l->count ? l->count : 1, sizeof(*src->skipped));
	if (!src->skipped) {
		clang_disposeSourceRangeList(l);
		return -1;
	}
	for (unsigned i = 0; i < l->count; i++) {
		unsigned b, e;
		clang_getFileLocation(clang_getRangeStart(l->ranges[i]), NULL,
				      NULL, NULL, &b);
		clang_getFileLocation(clang_getRangeEnd(l->ranges[i]), NULL,
				      NULL, NULL, &e);
		if (e > b)
			src->skipped[src->nskipped++] =
			    (struct mpp_range){b, e};
	}
	clang_disposeSourceRangeList(l);
	if (src->nskipped > 1)
		qsort(src->skipped, src->nskipped, sizeof(*src->skipped),
		      cmp_range);
	return 0;
}

/* Macro ranges, pragmas and skipped text of t->file. Returns 0 or -1 (out
 * of memory). */
static int scan_file(struct mpp_tu *t, struct mpp_source *src)
{
	struct collect cl = {.t = t};
	clang_visitChildren(clang_getTranslationUnitCursor(t->tu),
			    collect_macro, &cl);
	free(cl.seen);
	if (cl.oom || read_skipped(t, src) < 0 || scan_pragmas(&cl, src) < 0)
		return -1;
	if (t->nmacros > 1)
		qsort(t->macros, t->nmacros, sizeof(*t->macros), cmp_macro);
	if (t->npragmas > 1)
		qsort(t->pragmas, t->npragmas, sizeof(*t->pragmas), cmp_range);
	return 0;
}

int mpp_tu_parse(struct mpp_tu *t, struct mpp_source *src, const char *src_path,
		 const char *const *args, int nargs, char **diag, char *err,
		 size_t errlen)
{
	memset(t, 0, sizeof(*t));
	*diag = NULL;
	t->index = clang_createIndex(0, 0);
	unsigned opts = CXTranslationUnit_DetailedPreprocessingRecord |
			CXTranslationUnit_KeepGoing;
	/* g++ only warns about narrowing in braced initialisers; clang makes
	 * it an error: parse what g++ compiles. */
	const char **all = malloc(((size_t)nargs + 1) * sizeof(*all));
	if (!all) {
		snprintf(err, errlen, "%s: out of memory", src_path);
		return -1;
	}
	for (int i = 0; i < nargs; i++)
		all[i] = args[i];
	all[nargs] = "-Wno-c++11-narrowing";
	enum CXErrorCode ec = clang_parseTranslationUnit2(
	    t->index, src_path, all, nargs + 1, NULL, 0, opts, &t->tu);
	free(all);
	if (ec != CXError_Success || !t->tu) {
		snprintf(err, errlen,
			 "%s: libclang could not parse it (code %d)", src_path,
			 (int)ec);
		return -1;
	}
	if (has_errors(t->tu)) {
		*diag = error_text(t->tu);
		return 1;
	}
	t->file = clang_getFile(t->tu, src_path);
	if (!t->file) {
		snprintf(err, errlen, "%s: libclang lost the file", src_path);
		return -1;
	}
	if (scan_file(t, src) < 0) {
		snprintf(err, errlen, "%s: out of memory", src_path);
		return -1;
	}
	return 0;
}

int mpp_tu_view(const struct mpp_tu *whole, CXFile file, struct mpp_source *src,
		struct mpp_tu *view)
{
	memset(view, 0, sizeof(*view));
	view->tu = whole->tu;
	view->file = file;
	view->borrowed = 1;
	return scan_file(view, src);
}

void mpp_tu_free(struct mpp_tu *t)
{
	if (t->tu && !t->borrowed)
		clang_disposeTranslationUnit(t->tu);
	if (t->index && !t->borrowed)
		clang_disposeIndex(t->index);
	free(t->macros);
	free(t->pragmas);
	memset(t, 0, sizeof(*t));
}

/* Index of the last macro range that begins at or before off, or -1. */
static long last_at_or_before(const struct mpp_tu *t, size_t off)
{
	size_t lo = 0, hi = t->nmacros;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->macros[mid].begin <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

long mpp_tu_macro_inside(const struct mpp_tu *t, size_t off)
{
	/* Ranges may nest (an expansion inside a definition's body is not
	 * recorded, but be safe): look back over the few that could hold off.
	 */
	for (long i = last_at_or_before(t, off); i >= 0; i--) {
		const struct mpp_macro *m = &t->macros[i];
		if (m->begin < off && off < m->end)
			return i;
		if (m->begin < off && m->end <= off)
			return -1;
	}
	return -1;
}

long mpp_tu_expansion_at(const struct mpp_tu *t, size_t off)
{
	long i = last_at_or_before(t, off);
	while (i >= 0 && t->macros[i].begin == off) {
		if (!t->macros[i].is_definition)
			return i;
		i--;
	}
	return -1;
}

long mpp_tu_expansion_before(const struct mpp_tu *t, size_t off)
{
	for (long i = last_at_or_before(t, off); i >= 0; i--)
		if (!t->macros[i].is_definition && t->macros[i].end <= off)
			return i;
	return -1;
}

long mpp_tu_pragma_before(const struct mpp_tu *t, size_t off)
{
	size_t lo = 0, hi = t->npragmas;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->pragmas[mid].begin < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

int mpp_tu_pragma_within(const struct mpp_tu *t, size_t begin, size_t end)
{
	long i = mpp_tu_pragma_before(t, end);
	return i >= 0 && t->pragmas[i].begin >= begin;
}
