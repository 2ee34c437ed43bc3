/*
 * swf.c: the Standard Workload Format reader (swf.h).
 *
 * Cleaning, as the pyss simulator of the SC'15 study does: a requested time
 * below the run time is raised to it; run times and requests below 1 s
 * become 1 s. Not for writing traces.
 */
#include "history/swf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

enum { NFIELDS = 18 };

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
		if (end == p || errno ||
		    (*end && *end != ' ' && *end != '\t' && *end != '\n' &&
		     *end != '\r')) {
			snprintf(err, errlen, "%s:%zu: field %d: not a number",
				 name, lineno, i + 1);
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

int mpp_swf_read(FILE *f, const char *name, mpp_swf_job **jobs, size_t *n,
		 size_t *skipped, char *err, size_t errlen)
{
	mpp_swf_job *js = NULL;
	size_t count = 0, cap = 0, lineno = 0;
	char *line = NULL;
	size_t linecap = 0;
	int rc = MPP_OK;

	*jobs = NULL;
	*n = 0;
	*skipped = 0;
	while (getline(&line, &linecap, f) > 0) {
		double v[NFIELDS];
		char *p = line;
		lineno++;
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p == ';' || *p == '\n' || *p == '\r' || *p == '\0')
			continue;
		rc = parse_line(p, name, lineno, v, err, errlen);
		if (rc)
			break;
		double procs = v[4] > 0 ? v[4] : v[7];
		if (v[3] <= 0 || procs <= 0 || v[1] < 0) {
			(*skipped)++;
			continue;
		}
		if (count && v[1] < js[count - 1].submit_s) {
			snprintf(err, errlen,
				 "%s:%zu: field 2: submit time %.0f before "
				 "the previous job's %.0f",
				 name, lineno, v[1], js[count - 1].submit_s);
			rc = MPP_EINVAL;
			break;
		}
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
		j->run_s = v[3] < 1 ? 1 : v[3];
		j->req_s = v[8] < j->run_s ? j->run_s : v[8];
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
