/*
 * rewrite.c: one file through parse, visit, edits and codegen (see
 * rewrite.h).
 */
#include "instrument/rewrite.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/codegen.h"
#include "instrument/plan.h"
#include "instrument/source.h"
#include "instrument/tu.h"
#include "instrument/visit.h"

int mpp_rewrite_file(const char *path, const char *display, const char *app,
		     const char *const *args, int nargs,
		     struct mpp_rewrite *out, char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	struct mpp_source src;
	if (mpp_source_read(&src, path, err, errlen) < 0)
		return -1;
	struct mpp_tu tu;
	struct mpp_plan plan = {0};
	char *body = NULL;
	size_t bodylen = 0;
	FILE *f;
	int rc =
	    mpp_tu_parse(&tu, &src, path, args, nargs, &out->diag, err, errlen);
	if (rc != 0)
		goto done;
	rc = -1;

	char abs[PATH_MAX], id[17];
	mpp_unit_id(realpath(path, abs) ? abs : path, id);
	if (mpp_visit(&tu, &src, id, display, &plan) < 0 ||
	    mpp_edits_apply(&plan.edits, src.text, src.len, &body, &bodylen) <
		0)
		goto oom;
	if (!(f = open_memstream(&out->text, &out->len)))
		goto oom;
	int w = mpp_codegen_write(f, &plan, id, display, app, body, bodylen);
	int c = fclose(f);
	if (w < 0 || c != 0 ||
	    !(f = open_memstream(&out->features, &out->flen)))
		goto oom;
	w = mpp_codegen_features(f, &plan, display);
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
	mpp_plan_free(&plan);
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
	memset(r, 0, sizeof(*r));
}
