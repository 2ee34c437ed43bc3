/*
 * rewrite.c: one file through parse, visit, edits and codegen (see
 * rewrite.h).
 */
#include "instrument/rewrite.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "instrument/codegen.h"
#include "instrument/headers.h"
#include "instrument/plan.h"
#include "instrument/source.h"
#include "instrument/tu.h"
#include "instrument/visit.h"

static enum CXChildVisitResult ext_inline_visit(CXCursor c, CXCursor parent,
						void *data)
{
	(void)parent;
	if (clang_getCursorKind(c) == CXCursor_FunctionDecl &&
	    clang_Location_isFromMainFile(clang_getCursorLocation(c)) &&
	    clang_isCursorDefinition(c) && clang_Cursor_isFunctionInlined(c) &&
	    clang_Cursor_getStorageClass(c) != CX_SC_Static) {
		*(int *)data = 1;
		return CXChildVisit_Break;
	}
	return CXChildVisit_Continue;
}

/* 1 when the unit's file defines an inline function with external
 * linkage (plan.h, ext_inline; headers have copies of their own, whose
 * tables are weak already). Only asked of C units: C++ has no such rule. */
static int ext_inline_defined(const struct mpp_tu *tu)
{
	int found = 0;
	clang_visitChildren(clang_getTranslationUnitCursor(tu->tu),
			    ext_inline_visit, &found);
	return found;
}

/* True if directory `dir` holds an entry named `name`. */
static int holds(const char *dir, const char *name)
{
	char p[PATH_MAX];
	struct stat st;
	if (snprintf(p, sizeof(p), "%s/%s", dir, name) >= (int)sizeof(p))
		return 0;
	return stat(p, &st) == 0;
}

static int holds_build_file(const char *dir)
{
	static const char *const names[] = {"Makefile",
					    "makefile",
					    "GNUmakefile",
					    "CMakeLists.txt",
					    "meson.build",
					    "configure",
					    "compile_commands.json"};
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++)
		if (holds(dir, names[i]))
			return 1;
	return 0;
}

char *mpp_feature_file(const char *path)
{
	char dir[PATH_MAX], tmp[PATH_MAX], root[PATH_MAX], abs[2 * PATH_MAX];
	/* The directory resolved, the file's own name kept (it may be a
	 * symbolic link to anywhere). */
	snprintf(tmp, sizeof(tmp), "%s", path);
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!realpath(dirname(tmp), dir)) {
		while (path[0] == '.' && path[1] == '/')
			path += 2;
		return strdup(path);
	}
	snprintf(abs, sizeof(abs), "%s/%s", strcmp(dir, "/") ? dir : "", base);
	const char *env = getenv("MPIPREDICT_SRCROOT");
	if (env && *env && realpath(env, root)) {
		size_t n = strlen(root);
		if (strncmp(abs, root, n) == 0 && abs[n] == '/')
			return strdup(abs + n + 1);
	}
	/* Inside a checkout: relative to its top, which no two files share
	 * a path under. */
	snprintf(root, sizeof(root), "%s", dir);
	for (;;) {
		if (holds(root, ".git") || holds(root, ".hg") ||
		    holds(root, ".svn")) {
			size_t n = strcmp(root, "/") ? strlen(root) : 0;
			return strdup(abs + n + 1);
		}
		if (strcmp(root, "/") == 0)
			break;
		snprintf(tmp, sizeof(tmp), "%s", root);
		snprintf(root, sizeof(root), "%s", dirname(tmp));
	}
	snprintf(root, sizeof(root), "%s", dir);
	while (strcmp(root, "/") != 0) {
		snprintf(tmp, sizeof(tmp), "%s", root);
		const char *parent = dirname(tmp);
		if (!holds_build_file(parent))
			break;
		snprintf(root, sizeof(root), "%s", parent);
	}
	size_t n = strcmp(root, "/") ? strlen(root) : 0;
	return strdup(abs + n + 1);
}

int mpp_rewrite_file(const char *path, const char *display,
		     const char *name_file, const char *app, const char *hdir,
		     const char *const *args, int nargs,
		     struct mpp_rewrite *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct mpp_source src;
	if (mpp_source_read(&src, path, err, errlen) < 0)
		return -1;
	struct mpp_tu tu;
	struct mpp_plan plan = {0};
	struct mpp_lean lean = {0};
	char *body = NULL, *body0 = NULL;
	size_t bodylen = 0;
	FILE *f;
	int rc =
	    mpp_tu_parse(&tu, &src, path, args, nargs, &out->diag, err, errlen);
	if (rc != 0)
		goto done;
	rc = -1;

	plan.name_file = name_file;
	/* A lean build (lean.h): the list is read for every file, so a build
	 * needs nothing but the variable. */
	const char *lean_path = getenv("MPIPREDICT_LEAN");
	if (lean_path && *lean_path) {
		if (mpp_lean_read(&lean, lean_path, err, errlen) < 0)
			goto done;
		plan.lean = &lean;
	}
	char abs[PATH_MAX], id[17];
	if (!realpath(path, abs))
		snprintf(abs, sizeof(abs), "%s", path);
	mpp_unit_id(abs, id);
	if (mpp_visit(&tu, &src, id, display, &plan) < 0 ||
	    mpp_edits_apply(&plan.edits, src.text, src.len, &body, &bodylen) <
		0)
		goto oom;
	plan.ext_inline = !plan.cxx && ext_inline_defined(&tu);
	if (hdir) {
		/* The project headers it includes, and the directives
		 * pointing at their copies; the build id keeps covering the
		 * text without the copies' paths. */
		body0 = body;
		body = NULL;
		plan.id_text = body0;
		plan.id_len = bodylen;
		if (mpp_headers_rewrite(&tu, &src, abs, plan.cxx, plan.lean,
					hdir, &plan.edits, &out->headers, err,
					errlen) < 0) {
			rc = -1;
			goto done;
		}
		if (mpp_edits_apply(&plan.edits, src.text, src.len, &body,
				    &bodylen) < 0)
			goto oom;
	}
	if (!(f = open_memstream(&out->text, &out->len)))
		goto oom;
	int w = mpp_codegen_write(f, &plan, id, display, app, body, bodylen);
	int c = fclose(f);
	if (w < 0 || c != 0 ||
	    !(f = open_memstream(&out->features, &out->flen)))
		goto oom;
	w = mpp_codegen_features(f, &plan, name_file);
	c = fclose(f);
	if (w < 0 || c != 0)
		goto oom;
	out->notes = plan.notes;
	out->nnotes = plan.nnotes;
	plan.notes = NULL;
	plan.nnotes = 0;
	out->ncounters = plan.ncounters;
	out->nsites = plan.nsites;
	rc = 0;
	goto done;
oom:
	snprintf(err, errlen, "%s: out of memory", path);
done:
	free(body);
	free(body0);
	mpp_plan_free(&plan);
	mpp_lean_free(&lean);
	mpp_tu_free(&tu);
	mpp_source_free(&src);
	return rc;
}

void mpp_rewrite_free(struct mpp_rewrite *r)
{
	free(r->text);
	free(r->features);
	for (size_t i = 0; i < r->nnotes; i++)
		free(r->notes[i]);
	free(r->notes);
	free(r->diag);
	mpp_headers_free(&r->headers);
	memset(r, 0, sizeof(*r));
}
