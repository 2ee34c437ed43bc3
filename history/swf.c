/*
 * swf.c: the Standard Workload Format reader (swf.h).
 *
 * The cleaning is the SC'15 study's, so that a trace replays as its
 * simulator replayed it. Its filter (predictsim's
 * experiments/data_manipulation/strong_filter_all_swf) drops jobs with a
 * run time, or both processor counts, unknown or not positive, a negative
 * submit time, or no requested time (-1 or 0: the request is what EASY
 * schedules with, and inventing one, such as the run time, would hand the
 * scheduler a perfect request); it cuts a run time above the request to
 * the request. Its simulator (pyss's _job_input_to_job) takes the
 * requested processors (field 8, else the allocated, field 5), clamps a
 * job wider than the machine to the machine, and raises run times and
 * requests below 1 s to 1 s. Values are checked before any is converted,
 * so that nothing out of range reaches an int or a long. Not for writing
 * traces.
 */
#include "history/swf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

enum { NFIELDS = 18 };

/* The fields the replay uses (0-based), what they hold, and so how they
 * are checked. */
enum kind { K_UNUSED = 0, K_TIME, K_COUNT, K_IDENT };

static const enum kind kinds[NFIELDS] = {
    [0] = K_IDENT, [1] = K_TIME, [3] = K_TIME,   [4] = K_COUNT,
    [7] = K_COUNT, [8] = K_TIME, [11] = K_IDENT, [13] = K_IDENT,
};

static int parse_line(char *line, const char *name, size_t lineno, double *v,
		      char *err, size_t errlen)
{
	char *p = line, *end;

	for (int i = 0; i < NFIELDS; i++) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == '\0' || *p == '\n' || *p == '\r') {
			snprintf(err, errlen,
				 "%s:%zu: field %d: missing (a job line has "
				 "18 fields)",
				 name, lineno, i + 1);
			return MPP_EINVAL;
		}
		errno = 0;
		v[i] = strtod(p, &end);
		if (end == p || (*end && *end != ' ' && *end != '\t' &&
				 *end != '\n' && *end != '\r')) {
			snprintf(err, errlen, "%s:%zu: field %d: not a number",
				 name, lineno, i + 1);
			return MPP_EINVAL;
		}
		/* nan and inf parse; an overflow is inf with ERANGE. An
		 * underflow (1e-400) is 0 or a denormal, harmless. */
		if (!isfinite(v[i])) {
			snprintf(err, errlen,
				 "%s:%zu: field %d: '%.*s' is not a finite "
				 "number (fix or remove the line)",
				 name, lineno, i + 1,
				 (int)(end - p < 40 ? end - p : 40), p);
			return MPP_EINVAL;
		}
		p = end;
	}
	while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
		p++;
	if (*p) {
		snprintf(err, errlen, "%s:%zu: more than 18 fields", name,
			 lineno);
		return MPP_EINVAL;
	}
	return MPP_OK;
}

/* The used fields in range: -1 (unknown) or at least 0, whole where they
 * count or name something, and not so large that no real trace holds them
 * (the limits keep every conversion below defined). */
static int check_fields(const double *v, const char *name, size_t lineno,
			char *err, size_t errlen)
{
	for (int i = 0; i < NFIELDS; i++) {
		enum kind k = kinds[i];
		double max = k == K_TIME ? 1e12 : k == K_COUNT ? 1e9 : 1e15;
		const char *what = k == K_TIME    ? "seconds"
				   : k == K_COUNT ? "processors"
						  : "an identifier";

		if (k == K_UNUSED)
			continue;
		if (v[i] < 0 && v[i] != -1) {
			snprintf(err, errlen,
				 "%s:%zu: field %d: %g is negative and not -1 "
				 "(unknown)",
				 name, lineno, i + 1, v[i]);
			return MPP_EINVAL;
		}
		if (k != K_TIME && v[i] != floor(v[i])) {
			snprintf(err, errlen,
				 "%s:%zu: field %d: %g is not a whole number "
				 "(of %s)",
				 name, lineno, i + 1, v[i],
				 k == K_COUNT ? "processors" : "an identifier");
			return MPP_EINVAL;
		}
		if (v[i] > max) {
			snprintf(err, errlen,
				 "%s:%zu: field %d: %g is too large for %s "
				 "(at most %g)",
				 name, lineno, i + 1, v[i], what, max);
			return MPP_EINVAL;
		}
	}
	return MPP_OK;
}

/* A "; MaxProcs: N" header line sets *machine to N; -1 (unknown) leaves
 * it. Other comment lines are ignored. */
static int header_procs(const char *p, const char *name, size_t lineno,
			int *machine, int *from_header, char *err,
			size_t errlen)
{
	char *end;
	long v;

	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncmp(p, "MaxProcs:", 9))
		return MPP_OK;
	p += 9;
	errno = 0;
	v = strtol(p, &end, 10);
	while (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')
		end++;
	if (v == -1 && end > p && !*end)
		return MPP_OK;
	if (end == p || *end || errno || v < 1 || v > 1000000000) {
		snprintf(err, errlen,
			 "%s:%zu: MaxProcs: not a processor count (fix the "
			 "header, or give the machine size: --procs N)",
			 name, lineno);
		return MPP_EINVAL;
	}
	*machine = (int)v;
	*from_header = 1;
	return MPP_OK;
}

int mpp_swf_read(FILE *f, const char *name, const mpp_swf_opts *o,
		 mpp_swf_job **jobs, size_t *n, mpp_swf_counts *counts,
		 char *err, size_t errlen)
{
	static const mpp_swf_opts defaults = {0};
	mpp_swf_job *js = NULL;
	size_t count = 0, cap = 0, lineno = 0;
	char *line = NULL;
	size_t linecap = 0;
	int rc = MPP_OK;

	if (!o)
		o = &defaults;
	*jobs = NULL;
	*n = 0;
	memset(counts, 0, sizeof(*counts));
	counts->machine = o->machine;
	while (getline(&line, &linecap, f) > 0) {
		double v[NFIELDS];
		char *p = line;
		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ';' && o->machine_from_header && !count &&
		    !counts->skipped) {
			rc = header_procs(p, name, lineno, &counts->machine,
					  &counts->machine_header, err, errlen);
			if (rc)
				break;
		}
		if (*p == ';' || *p == '\n' || *p == '\r' || *p == '\0')
			continue;
		rc = parse_line(p, name, lineno, v, err, errlen);
		if (!rc)
			rc = check_fields(v, name, lineno, err, errlen);
		if (rc)
			break;
		double alloc = v[4], reqp = v[7], procs;
		if (o->procs_from == MPP_SWF_PROCS_ALLOCATED)
			procs = alloc > 0 ? alloc : reqp;
		else
			procs = reqp > 0 ? reqp : alloc;
		if (v[3] <= 0 || procs <= 0 || v[1] < 0) {
			counts->skipped++;
			continue;
		}
		if (v[8] <= 0) {
			counts->skipped++;
			counts->no_request++;
			continue;
		}
		if (count && v[1] < js[count - 1].submit_s) {
			snprintf(err, errlen,
				 "%s:%zu: field 2: submit time %.0f before "
				 "the previous job's %.0f (sort the trace by "
				 "submit time)",
				 name, lineno, v[1], js[count - 1].submit_s);
			rc = MPP_EINVAL;
			break;
		}
		if (counts->machine > 0 && procs > counts->machine) {
			if (o->refuse_oversize) {
				snprintf(
				    err, errlen,
				    "%s:%zu: field %d: job %.0f needs %.0f "
				    "processors, the machine has %d "
				    "(--oversize clamp replays it on the "
				    "whole machine)",
				    name, lineno, procs == reqp ? 8 : 5, v[0],
				    procs, counts->machine);
				rc = MPP_EINVAL;
				break;
			}
			procs = counts->machine;
			counts->clamped++;
		}
		if (alloc > 0 && reqp > 0 && alloc != reqp)
			counts->procs_differ++;
		if (count == cap) {
			size_t nc = cap ? cap * 2 : 1024;
			mpp_swf_job *g = realloc(js, nc * sizeof(*g));
			if (!g) {
				rc = MPP_ENOMEM;
				snprintf(err, errlen, "out of memory");
				break;
			}
			js = g;
			cap = nc;
		}
		mpp_swf_job *j = &js[count++];
		j->id = (long)v[0];
		j->submit_s = v[1];
		j->req_s = v[8] < 1 ? 1 : v[8];
		j->run_s = v[3] < 1 ? 1 : v[3];
		if (j->run_s > j->req_s) {
			j->run_s = j->req_s;
			counts->run_cut++;
		}
		j->procs = (int)procs;
		j->user = (long)v[11];
		j->app = (long)v[13];
	}
	free(line);
	if (rc == MPP_OK && ferror(f)) {
		snprintf(err, errlen, "%s: read error", name);
		rc = MPP_EIO;
	}
	if (rc) {
		free(js);
		return rc;
	}
	*jobs = js;
	*n = count;
	return MPP_OK;
}
