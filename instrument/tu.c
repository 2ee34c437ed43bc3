/*
 * tu.c: libclang parse, diagnostics and the macro and skipped-text ranges
 * of the main file (see tu.h).
 */
#include "instrument/tu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct collect {
	struct mpp_tu *t;
	size_t cap;
	int oom;
};

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
	if (t->nmacros == cl->cap) {
		size_t cap = cl->cap ? cl->cap * 2 : 256;
		struct mpp_macro *v = realloc(t->macros, cap * sizeof(*v));
		if (!v) {
			cl->oom = 1;
			return CXChildVisit_Break;
		}
		t->macros = v;
		cl->cap = cap;
	}
	t->macros[t->nmacros++] =
	    (struct mpp_macro){b, e, k == CXCursor_MacroDefinition};
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

int mpp_tu_parse(struct mpp_tu *t, struct mpp_source *src, const char *src_path,
		 const char *const *args, int nargs, char **diag, char *err,
		 size_t errlen)
{
	memset(t, 0, sizeof(*t));
	*diag = NULL;
	t->index = clang_createIndex(0, 0);
	unsigned opts = CXTranslationUnit_DetailedPreprocessingRecord |
			CXTranslationUnit_KeepGoing;
	enum CXErrorCode ec = clang_parseTranslationUnit2(
	    t->index, src_path, args, nargs, NULL, 0, opts, &t->tu);
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
	struct collect cl = {t, 0, 0};
	clang_visitChildren(clang_getTranslationUnitCursor(t->tu),
			    collect_macro, &cl);
	if (cl.oom || read_skipped(t, src) < 0) {
		snprintf(err, errlen, "%s: out of memory", src_path);
		return -1;
	}
	if (t->nmacros > 1)
		qsort(t->macros, t->nmacros, sizeof(*t->macros), cmp_macro);
	return 0;
}

void mpp_tu_free(struct mpp_tu *t)
{
	if (t->tu)
		clang_disposeTranslationUnit(t->tu);
	if (t->index)
		clang_disposeIndex(t->index);
	free(t->macros);
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
