/*
 * jobcomp.c: a jobcomp/script record checked and turned into a jobs row
 * (jobcomp.h). Numbers are read with strtoll and checked whole; nothing is
 * guessed: a field that is there and malformed rejects the record.
 */
#include "history/jobcomp.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "common/text.h"

static int integer(const char *s, long long lo, long long *out)
{
	char *end;

	if (!s || !*s || isspace((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoll(s, &end, 10);
	return *end || errno || *out < lo ? -1 : 0;
}

int mpp_jobcomp_limit(const char *s, double *seconds)
{
	long long part[4];
	int n = 0;
	long long days = 0;
	const char *p = s;

	if (!s || !*s)
		return -1;
	if (strcmp(s, "UNLIMITED") == 0 || strcmp(s, "INFINITE") == 0) {
		*seconds = NAN;
		return 0;
	}
	if (!strchr(s, ':') && !strchr(s, '-')) {
		if (integer(s, 0, &part[0]))
			return -1;
		*seconds = 60.0 * (double)part[0];
		return 0;
	}
	const char *dash = strchr(s, '-');
	if (dash) {
		char *end;
		errno = 0;
		days = strtoll(s, &end, 10);
		if (end != dash || errno || days < 0 || dash == s)
			return -1;
		p = dash + 1;
	}
	while (n < 3) {
		char *end;
		if (!isdigit((unsigned char)*p))
			return -1;
		errno = 0;
		part[n++] = strtoll(p, &end, 10);
		if (errno)
			return -1;
		if (*end == '\0')
			break;
		if (*end != ':')
			return -1;
		p = end + 1;
	}
	if (p[strspn(p, "0123456789")] != '\0')
		return -1;
	if (n == 3)
		*seconds = (double)(part[0] * 3600 + part[1] * 60 + part[2]);
	else if (n == 2)
		*seconds = (double)(part[0] * 60 + part[1]);
	else
		return -1;
	*seconds += 86400.0 * (double)days;
	return 0;
}

/* A time stamp field (seconds since the epoch). */
static int stamp(mpp_jobcomp_get get, void *ctx, const char *key, double *out,
		 char *err, size_t errlen)
{
	const char *v = get(ctx, key);
	long long t;

	if (!v) {
		snprintf(err, errlen, "%s: missing", key);
		return MPP_EINVAL;
	}
	if (integer(v, 0, &t)) {
		snprintf(err, errlen, "%s: not a time in seconds (got '%.40s')",
			 key, v);
		return MPP_EINVAL;
	}
	*out = (double)t;
	return MPP_OK;
}

/* A count > 0. Slurm may report 0 CPUs and nodes for a job cancelled
 * before it started: that 0 means "none allocated", stored as unknown; a
 * job that ran had at least one of each. */
static int count(mpp_jobcomp_get get, void *ctx, const char *key, int started,
		 double *out, char *err, size_t errlen)
{
	const char *v = get(ctx, key);
	long long c;

	*out = NAN;
	if (!v || !*v)
		return MPP_OK;
	if (integer(v, 0, &c)) {
		snprintf(err, errlen, "%s: not a count (got '%.40s')", key, v);
		return MPP_EINVAL;
	}
	if (c == 0 && started) {
		snprintf(err, errlen,
			 "%s: 0 for a job that started (a count > 0)", key);
		return MPP_EINVAL;
	}
	if (c > 0)
		*out = (double)c;
	return MPP_OK;
}

/* A label field (common/text.h); NULL when absent or empty. */
static int label(mpp_jobcomp_get get, void *ctx, const char *key,
		 const char **out, char *err, size_t errlen)
{
	const char *v = get(ctx, key);

	*out = NULL;
	if (!v || !*v)
		return MPP_OK;
	if (mpp_text_check(key, v, strlen(v), MPP_TEXT_LABEL, err, errlen))
		return MPP_EINVAL;
	*out = v;
	return MPP_OK;
}

int mpp_jobcomp_split(char *line, size_t len, mpp_jobcomp_line *f, char *err,
		      size_t errlen)
{
	size_t i = 0;

	f->n = 0;
	while (i < len) {
		char *tok = line + i, *tab = memchr(tok, '\t', len - i);
		size_t n = tab ? (size_t)(tab - tok) : len - i;
		i += n + 1;
		if (n == 0)
			continue;
		tok[n] = '\0';
		char *eq = memchr(tok, '=', n);
		if (!eq || eq == tok || memchr(tok, '\0', (size_t)(eq - tok))) {
			snprintf(err, errlen, "field '%.40s' is not KEY=VALUE",
				 tok);
			return MPP_EINVAL;
		}
		*eq = '\0';
		/* A NUL inside a value would cut it silently in C: refused
		 * here, where the field's length is still known. */
		if (memchr(eq + 1, '\0', n - (size_t)(eq + 1 - tok))) {
			snprintf(err, errlen, "%.40s: contains a NUL byte",
				 tok);
			return MPP_EINVAL;
		}
		if (f->n == 64) {
			snprintf(err, errlen, "more than 64 fields");
			return MPP_EINVAL;
		}
		f->key[f->n] = tok;
		f->val[f->n++] = eq + 1;
	}
	return MPP_OK;
}

const char *mpp_jobcomp_line_get(void *ctx, const char *key)
{
	const mpp_jobcomp_line *f = ctx;

	for (int i = 0; i < f->n; i++)
		if (strcmp(f->key[i], key) == 0)
			return f->val[i];
	return NULL;
}

int mpp_jobcomp_parse(mpp_jobcomp_get get, void *ctx, mpp_jobcomp *out,
		      char *err, size_t errlen)
{
	mpp_job_rec *r = &out->rec;
	const char *id = get(ctx, "JOBID"), *state = get(ctx, "JOBSTATE");
	const char *uid = get(ctx, "UID"), *name;
	const char *limit = get(ctx, "LIMIT");
	long long u;
	int rc;

	memset(out, 0, sizeof(*out));
	r->uid = -1;
	if (!id || !*id || strspn(id, "0123456789_+") != strlen(id)) {
		snprintf(err, errlen, "JOBID: %s",
			 id ? "not a job id" : "missing");
		return MPP_EINVAL;
	}
	if (mpp_text_check("JOBID", id, strlen(id), MPP_TEXT_LABEL, err,
			   errlen))
		return MPP_EINVAL;
	if (!state || !*state ||
	    strspn(state, "ABCDEFGHIJKLMNOPQRSTUVWXYZ_") != strlen(state)) {
		snprintf(err, errlen, "JOBSTATE: %s",
			 state ? "not a job state" : "missing");
		return MPP_EINVAL;
	}
	if (!uid || integer(uid, 0, &u)) {
		snprintf(err, errlen, "UID: %s",
			 uid ? "not a user id" : "missing");
		return MPP_EINVAL;
	}
	r->job_id = id;
	r->state = state;
	r->uid = u;
	if (label(get, ctx, "USERNAME", &name, err, errlen))
		return MPP_EINVAL;
	if (name)
		r->user = name;
	else {
		snprintf(out->user, sizeof(out->user), "uid:%lld", u);
		r->user = out->user;
	}
	rc = stamp(get, ctx, "SUBMIT", &r->submit_at, err, errlen);
	if (rc == MPP_OK)
		rc = stamp(get, ctx, "START", &r->start_at, err, errlen);
	if (rc == MPP_OK)
		rc = stamp(get, ctx, "END", &r->end_at, err, errlen);
	if (rc == MPP_OK)
		rc = count(get, ctx, "PROCS", r->start_at > 0, &r->ntasks, err,
			   errlen);
	if (rc == MPP_OK)
		rc = count(get, ctx, "NODECNT", r->start_at > 0, &r->nodes, err,
			   errlen);
	if (rc == MPP_OK)
		rc = label(get, ctx, "PARTITION", &r->partition, err, errlen);
	if (rc == MPP_OK)
		rc = label(get, ctx, "ACCOUNT", &r->account, err, errlen);
	if (rc == MPP_OK)
		rc = label(get, ctx, "JOBNAME", &r->name, err, errlen);
	if (rc)
		return rc;
	r->time_limit_s = NAN;
	if (limit && *limit && mpp_jobcomp_limit(limit, &r->time_limit_s)) {
		snprintf(err, errlen, "LIMIT: not a time limit (got '%.40s')",
			 limit);
		return MPP_EINVAL;
	}
	if (r->start_at > 0 && r->end_at < r->start_at) {
		snprintf(err, errlen, "END: %.0f before START %.0f", r->end_at,
			 r->start_at);
		return MPP_EINVAL;
	}
	r->runtime_s = r->start_at > 0 ? r->end_at - r->start_at : 0;
	return MPP_OK;
}
