/*
 * headers.c: the copies of a unit's project headers (see headers.h).
 *
 * Directives are redirected by insertion only (edits.h never deletes):
 * `#include "grid.h"` becomes `#include "/copy/grid.h"`, followed by the
 * original name in a comment, so the line keeps its number. In a copy, every
 * quoted include that is not redirected to another copy is pinned to the
 * absolute path it resolved to, since the copy no longer sits next to the files
 * it names.
 */
#include "instrument/headers.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/grow.h"
#include "instrument/codegen.h"
#include "instrument/rewrite.h"
#include "instrument/visit.h"

#define MAIN ((size_t)-1)

struct hfile {
	CXFile f;
	char *abs;     /* realpath, or NULL when it has none */
	char *display; /* as clang names it: notes and #line */
	unsigned entered;
	int cand; /* still a project header to rewrite */
	int loaded;
	struct mpp_source src;
	struct mpp_tu view;
	struct mpp_plan plan;
	char pid[17], key[17];
	char *copy;  /* where its copy goes */
	char *body0; /* rewritten without the directives' edits */
	size_t len0;
};

struct dir {
	size_t from, to; /* file indexes; from may be MAIN */
	size_t b, e;     /* offsets of the directive in `from` */
	size_t nb, ne;   /* its header name, quotes or brackets included */
	int scanned, ok;
};

struct ctx {
	const struct mpp_tu *t;
	CXFile main;
	struct hfile *files;
	size_t nfiles, capfiles;
	struct dir *dirs;
	size_t ndirs, capdirs;
	int oom;
};

static size_t file_index(struct ctx *x, CXFile f)
{
	if (clang_File_isEqual(f, x->main))
		return MAIN;
	for (size_t i = 0; i < x->nfiles; i++)
		if (clang_File_isEqual(f, x->files[i].f))
			return i;
	if (mpp_grow((void **)&x->files, &x->capfiles, x->nfiles,
		     sizeof(*x->files), 64)) {
		x->oom = 1;
		return MAIN;
	}
	struct hfile *h = &x->files[x->nfiles];
	memset(h, 0, sizeof(*h));
	h->f = f;
	CXString s = clang_getFileName(f);
	const char *n = clang_getCString(s);
	char abs[PATH_MAX];
	h->display = strdup(n ? n : "");
	h->abs = n && realpath(n, abs) ? strdup(abs) : NULL;
	clang_disposeString(s);
	if (!h->display)
		x->oom = 1;
	return x->nfiles++;
}

static void count_entry(CXFile f, CXSourceLocation *stack, unsigned len,
			CXClientData data)
{
	struct ctx *x = data;
	(void)stack;
	if (len == 0 || x->oom)
		return; /* the main file */
	size_t i = file_index(x, f);
	if (i != MAIN && !x->oom)
		x->files[i].entered++;
}

static enum CXChildVisitResult find_dirs(CXCursor c, CXCursor parent,
					 CXClientData data)
{
	(void)parent;
	struct ctx *x = data;
	if (clang_getCursorKind(c) != CXCursor_InclusionDirective)
		return CXChildVisit_Continue;
	CXFile to = clang_getIncludedFile(c), from;
	unsigned b, e;
	CXSourceRange r = clang_getCursorExtent(c);
	clang_getFileLocation(clang_getRangeStart(r), &from, NULL, NULL, &b);
	clang_getFileLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &e);
	if (!to || !from)
		return CXChildVisit_Continue;
	if (mpp_grow((void **)&x->dirs, &x->capdirs, x->ndirs, sizeof(*x->dirs),
		     64)) {
		x->oom = 1;
		return CXChildVisit_Break;
	}
	struct dir d = {.b = b, .e = e};
	d.from = file_index(x, from);
	d.to = file_index(x, to);
	if (x->oom)
		return CXChildVisit_Break;
	if (d.to == MAIN)
		return CXChildVisit_Continue;
	x->dirs[x->ndirs++] = d;
	return CXChildVisit_Continue;
}

/* Drops the candidates whose directive lies inside a declaration (a
 * `.inc` file included in a function body, a header included inside a
 * namespace or struct): the copy's prologue must be at file scope. Only
 * `extern "C" { }` blocks are looked into. */
struct scope_ctx {
	struct ctx *x;
	int changed;
};

static enum CXChildVisitResult check_scope(CXCursor c, CXCursor parent,
					   CXClientData data)
{
	(void)parent;
	struct scope_ctx *sc = data;
	struct ctx *x = sc->x;
	enum CXCursorKind k = clang_getCursorKind(c);
	if (k == CXCursor_LinkageSpec)
		return CXChildVisit_Recurse;
	if (!clang_isDeclaration(k))
		return CXChildVisit_Continue;
	CXSourceRange r = clang_getCursorExtent(c);
	CXFile fb, fe;
	unsigned b, e;
	clang_getFileLocation(clang_getRangeStart(r), &fb, NULL, NULL, &b);
	clang_getFileLocation(clang_getRangeEnd(r), &fe, NULL, NULL, &e);
	if (!fb || !fe || !clang_File_isEqual(fb, fe) || e <= b)
		return CXChildVisit_Continue;
	for (size_t i = 0; i < x->ndirs; i++) {
		struct dir *d = &x->dirs[i];
		struct hfile *to = &x->files[d->to];
		if (!to->cand || d->b <= b || d->b >= e)
			continue;
		CXFile from = d->from == MAIN ? x->main : x->files[d->from].f;
		if (clang_File_isEqual(from, fb)) {
			to->cand = 0;
			sc->changed = 1;
		}
	}
	return CXChildVisit_Continue;
}

/* Finds the header name of a directive spelled in `src`: after the word
 * `include`, a "..." or <...> on the directive's own line. */
static int scan_name(struct dir *d, const struct mpp_source *src)
{
	const char *s = src->text;
	size_t i = d->b, end = d->e < src->len ? d->e : src->len;
	while (i < end && s[i] != '\n' &&
	       !(i + 7 <= src->len && memcmp(s + i, "include", 7) == 0))
		i++;
	if (i >= end || s[i] == '\n')
		return 0;
	for (i += 7; i < src->len && (s[i] == ' ' || s[i] == '\t'); i++)
		;
	if (i >= src->len || (s[i] != '"' && s[i] != '<'))
		return 0;
	char close = s[i] == '"' ? '"' : '>';
	size_t j = i + 1;
	while (j < src->len && s[j] != close && s[j] != '\n')
		j++;
	if (j >= src->len || s[j] != close)
		return 0;
	/* The original name goes into a comment: it must not end one. */
	for (size_t k = i; k < j; k++)
		if (s[k] == '*' && s[k + 1] == '/')
			return 0;
	d->nb = i;
	d->ne = j + 1;
	return 1;
}

static const struct mpp_source *src_of(struct ctx *x, size_t i,
				       const struct mpp_source *main_src)
{
	if (i == MAIN)
		return main_src;
	struct hfile *h = &x->files[i];
	if (!h->loaded) {
		char err[PATH_MAX + 64];
		if (mpp_source_read(&h->src, h->abs, err, sizeof(err)) < 0)
			return NULL;
		h->loaded = 1;
	}
	return &h->src;
}

/* Drops candidates included from a file that is not rewritten or by a
 * directive that names no file; returns how many were dropped. */
static size_t settle(struct ctx *x, const struct mpp_source *main_src)
{
	size_t dropped = 0, changed;
	do {
		changed = 0;
		for (size_t k = 0; k < x->ndirs; k++) {
			struct dir *d = &x->dirs[k];
			struct hfile *to = &x->files[d->to];
			if (!to->cand)
				continue;
			int from_ok = d->from == MAIN || x->files[d->from].cand;
			if (from_ok && !d->scanned) {
				const struct mpp_source *s =
				    src_of(x, d->from, main_src);
				d->scanned = 1;
				d->ok = s && scan_name(d, s);
			}
			if (!from_ok || !d->ok) {
				to->cand = 0;
				changed++;
			}
		}
		dropped += changed;
	} while (changed);
	return dropped;
}

/* Adds to `e` the edits pointing directive d at `path`. */
static int redirect_to(struct mpp_edits *e, const struct dir *d,
		       const char *path)
{
	char *t;
	if (asprintf(&t, "\"%s\" /*", path) < 0)
		return -1;
	int rc = mpp_edits_add(e, d->nb, MPP_EDIT_OPEN, 0, t);
	free(t);
	if (rc == 0)
		rc = mpp_edits_add(e, d->ne, MPP_EDIT_CLOSE, 0, "*/");
	return rc;
}

/* A path that can stand in a "..." header name and in a comment. */
static int plain_path(const char *p)
{
	return p && !strpbrk(p, "\"\n\\") && !strstr(p, "*/");
}

static int add_note(struct mpp_headers *out, char *note)
{
	char **v = realloc(out->notes, (out->nnotes + 1) * sizeof(*v));
	if (!v) {
		free(note);
		return -1;
	}
	out->notes = v;
	out->notes[out->nnotes++] = note;
	return 0;
}

int mpp_headers_rewrite(const struct mpp_tu *t, const struct mpp_source *src,
			const char *main_abs, int cxx,
			const struct mpp_lean *lean, const char *hdir,
			struct mpp_edits *main_edits, struct mpp_headers *out,
			char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct ctx x = {.t = t, .main = t->file};
	int rc = -1;
	char *name = mpp_feature_file(main_abs);
	if (!name)
		goto oom;
	/* The root the unit's feature names are relative to. */
	size_t nl = strlen(name), ml = strlen(main_abs);
	size_t rl = ml > nl ? ml - nl - 1 : 0;
	free(name);
	if (!plain_path(hdir))
		return 0;

	clang_getInclusions(t->tu, count_entry, &x);
	clang_visitChildren(clang_getTranslationUnitCursor(t->tu), find_dirs,
			    &x);
	if (x.oom)
		goto oom;
	for (size_t i = 0; i < x.nfiles; i++) {
		struct hfile *h = &x.files[i];
		CXSourceLocation l = clang_getLocationForOffset(t->tu, h->f, 0);
		h->cand = h->abs && rl > 0 && h->entered == 1 &&
			  strncmp(h->abs, main_abs, rl) == 0 &&
			  h->abs[rl] == '/' &&
			  !clang_Location_isInSystemHeader(l) &&
			  plain_path(h->display);
	}
	struct scope_ctx sc = {&x, 0};
	clang_visitChildren(clang_getTranslationUnitCursor(t->tu), check_scope,
			    &sc);
	settle(&x, src);

	/* Walk each header as the main file of a view of the unit's parse. */
	for (size_t i = 0; i < x.nfiles; i++) {
		struct hfile *h = &x.files[i];
		if (!h->cand)
			continue;
		const struct mpp_source *s = src_of(&x, i, src);
		char key[PATH_MAX + 16];
		if (!s) {
			h->cand = 0;
			continue;
		}
		if (mpp_tu_view(t, h->f, &h->src, &h->view) < 0)
			goto oom;
		h->plan.cxx = cxx;
		h->plan.lean = lean;
		h->plan.name_file = mpp_feature_file(h->abs);
		if (!h->plan.name_file)
			goto oom;
		snprintf(key, sizeof(key), "header:%s", h->abs);
		mpp_unit_id(key, h->pid);
		if (mpp_visit(&h->view, &h->src, h->pid, h->display, &h->plan) <
			0 ||
		    mpp_edits_apply(&h->plan.edits, h->src.text, h->src.len,
				    &h->body0, &h->len0) < 0)
			goto oom;
		/* The table's name: the rewrite, where it counts (its
		 * feature names) and the language. */
		char more[PATH_MAX + 8];
		snprintf(more, sizeof(more), "%s\n%d", h->plan.name_file,
			 h->plan.cxx);
		snprintf(h->key, sizeof(h->key), "%016llx",
			 (unsigned long long)mpp_codegen_hash(h->body0, h->len0,
							      more));
		const char *base = strrchr(h->abs, '/') + 1;
		if (asprintf(&h->copy, "%s/%s/%s", hdir, h->key, base) < 0) {
			h->copy = NULL;
			goto oom;
		}
	}

	/* Point the directives at the copies. */
	for (size_t k = 0; k < x.ndirs; k++) {
		struct dir *d = &x.dirs[k];
		struct hfile *to = &x.files[d->to];
		struct mpp_edits *e;
		if (d->from == MAIN)
			e = main_edits;
		else if (x.files[d->from].cand)
			e = &x.files[d->from].plan.edits;
		else
			continue;
		if (!d->scanned) {
			const struct mpp_source *s = src_of(&x, d->from, src);
			d->scanned = 1;
			d->ok = s && scan_name(d, s);
		}
		if (!d->ok)
			continue;
		const char *path = NULL;
		if (to->cand)
			path = to->copy;
		else if (d->from != MAIN &&
			 src_of(&x, d->from, src)->text[d->nb] == '"' &&
			 plain_path(to->abs))
			path = to->abs;
		if (path && redirect_to(e, d, path) < 0)
			goto oom;
	}

	/* The copies. */
	for (size_t i = 0; i < x.nfiles; i++) {
		struct hfile *h = &x.files[i];
		if (!h->cand)
			continue;
		struct mpp_header_copy *v =
		    realloc(out->v, (out->n + 1) * sizeof(*v));
		if (!v)
			goto oom;
		out->v = v;
		struct mpp_header_copy *c = &out->v[out->n++];
		memset(c, 0, sizeof(*c));
		char *body = NULL;
		size_t len = 0;
		if (!(c->orig = strdup(h->abs)) ||
		    !(c->path = strdup(h->copy)) ||
		    !(c->key = strdup(h->key)) ||
		    mpp_edits_apply(&h->plan.edits, h->src.text, h->src.len,
				    &body, &len) < 0)
			goto oom;
		h->plan.id_text = h->body0;
		h->plan.id_len = h->len0;
		FILE *f = open_memstream(&c->text, &c->len);
		int w = f ? mpp_codegen_header(f, &h->plan, h->pid, h->key,
					       h->display, body, len)
			  : -1;
		free(body);
		if (!f || fclose(f) != 0 || w < 0)
			goto oom;
		f = open_memstream(&c->features, &c->flen);
		w = f ? mpp_codegen_features(f, &h->plan, h->plan.name_file)
		      : -1;
		if (!f || fclose(f) != 0 || w < 0)
			goto oom;
		c->ncounters = h->plan.ncounters;
		c->nsites = h->plan.nsites;
		for (size_t k = 0; k < h->plan.nnotes; k++) {
			if (add_note(out, h->plan.notes[k]) < 0)
				goto oom;
			h->plan.notes[k] = NULL;
		}
	}
	rc = 0;
	goto done;
oom:
	snprintf(err, errlen, "%s: out of memory (its headers)", main_abs);
done:
	for (size_t i = 0; i < x.nfiles; i++) {
		struct hfile *h = &x.files[i];
		free(h->abs);
		free(h->display);
		free(h->copy);
		free(h->body0);
		free((char *)h->plan.name_file);
		h->plan.name_file = NULL;
		mpp_plan_free(&h->plan);
		mpp_tu_free(&h->view);
		if (h->loaded)
			mpp_source_free(&h->src);
	}
	free(x.files);
	free(x.dirs);
	return rc;
}

void mpp_headers_free(struct mpp_headers *h)
{
	for (size_t i = 0; i < h->n; i++) {
		free(h->v[i].orig);
		free(h->v[i].path);
		free(h->v[i].key);
		free(h->v[i].text);
		free(h->v[i].features);
	}
	free(h->v);
	for (size_t i = 0; i < h->nnotes; i++)
		free(h->notes[i]);
	free(h->notes);
	memset(h, 0, sizeof(*h));
}
