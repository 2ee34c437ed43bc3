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

static int count(mpp_jobcomp_get get, void *ctx, const char *key, double *out,
		 char *err, size_t errlen)
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
	*out = (double)c;
	return MPP_OK;
}

static const char *text_or_null(mpp_jobcomp_get get, void *ctx, const char *key)
{
	const char *v = get(ctx, key);
	return v && *v ? v : NULL;
}

int mpp_jobcomp_parse(mpp_jobcomp_get get, void *ctx, mpp_jobcomp *out,
		      char *err, size_t errlen)
{
	mpp_job_rec *r = &out->rec;
	const char *id = get(ctx, "JOBID"), *state = get(ctx, "JOBSTATE");
	const char *uid = get(ctx, "UID"), *name = get(ctx, "USERNAME");
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
	if (name && *name && strlen(name) < 256)
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
		rc = count(get, ctx, "PROCS", &r->ntasks, err, errlen);
	if (rc == MPP_OK)
		rc = count(get, ctx, "NODECNT", &r->nodes, err, errlen);
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
	r->partition = text_or_null(get, ctx, "PARTITION");
	r->account = text_or_null(get, ctx, "ACCOUNT");
	r->name = text_or_null(get, ctx, "JOBNAME");
	return MPP_OK;
}
