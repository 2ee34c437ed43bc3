/*
 * config.c: reads mpipredict.conf into mpp_cfg, once, when the plugin loads.
 *
 * Every line is blank, a "#" comment, or "key = value"; list values (url,
 * apps, opt_out_users, partition_max_minutes) are separated by spaces or
 * commas and may be spread over several lines. The first bad line stops the
 * load with "path:line: why". opt_out_users are resolved to uids here, so
 * that no submission waits on the user database.
 *
 * Not for: anything done per job, and nothing that could block for long
 * (url host names are resolved by pin.c).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contrib/slurm/config.h"
#include "contrib/slurm/slurm_api.h"

struct mpp_cfg mpp_cfg;

void mpp_cfg_clear(void)
{
	for (int i = 0; i < mpp_cfg.nurls; i++)
		free(mpp_cfg.urls[i]);
	for (int i = 0; i < mpp_cfg.napps; i++)
		free(mpp_cfg.apps[i]);
	for (int i = 0; i < mpp_cfg.nparts; i++)
		free(mpp_cfg.parts[i].name);
	memset(&mpp_cfg, 0, sizeof(mpp_cfg));
}

void mpp_cfg_defaults(void)
{
	mpp_cfg_clear();
	mpp_cfg.timeout_ms = 200;
	mpp_cfg.max_body = 1048576;
	mpp_cfg.mode = MPP_MODE_ANNOTATE;
	mpp_cfg.safety = 1.0;
	mpp_cfg.min_minutes = 1;
	mpp_cfg.max_minutes = 0;
	mpp_cfg.breaker_failures = 3;
	mpp_cfg.breaker_seconds = 30;
	mpp_cfg.resolve_seconds = 60;
}

/* List items are added by these; where is "path:line" for a warning. */
static int add_url(const char *u, const char *where, char *err, size_t errlen)
{
	size_t n = strlen(u);

	(void)where;
	if (mpp_cfg.nurls == MPP_MAX_URLS) {
		snprintf(err, errlen, "more than %d urls", MPP_MAX_URLS);
		return -1;
	}
	if (strncmp(u, "http://", 7) && strncmp(u, "https://", 8)) {
		snprintf(err, errlen, "url '%s' is not http:// or https://", u);
		return -1;
	}
	while (n > 0 && u[n - 1] == '/')
		n--;
	if (asprintf(&mpp_cfg.urls[mpp_cfg.nurls], "%.*s/v1/predict", (int)n,
		     u) < 0) {
		mpp_cfg.urls[mpp_cfg.nurls] = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	mpp_cfg.nurls++;
	return 0;
}

static int add_app(const char *a, const char *where, char *err, size_t errlen)
{
	(void)where;
	if (mpp_cfg.napps == MPP_MAX_LIST) {
		snprintf(err, errlen, "more than %d apps", MPP_MAX_LIST);
		return -1;
	}
	if (!(mpp_cfg.apps[mpp_cfg.napps] = strdup(a))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	mpp_cfg.napps++;
	return 0;
}

/* User names are resolved to uids here, once, so that a submission never
 * waits on the user database. A name the database does not know (or cannot
 * answer for now) is logged and left out: one stale name must not switch
 * predictions off for everybody. */
static int add_opt_out(const char *user, const char *where, char *err,
		       size_t errlen)
{
	struct passwd pw, *res = NULL;
	size_t len = 4096;
	char *buf = NULL;
	int rc;

	if (mpp_cfg.nopt_out == MPP_MAX_LIST) {
		snprintf(err, errlen, "more than %d opt_out_users",
			 MPP_MAX_LIST);
		return -1;
	}
	do {
		char *b = realloc(buf, len);

		if (!b) {
			free(buf);
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		buf = b;
		rc = getpwnam_r(user, &pw, buf, len, &res);
		len *= 2;
	} while (rc == ERANGE && len <= (1 << 20));
	if (rc || !res)
		slurm_error(PFX "%s: opt_out_users: %s '%s'; ignored", where,
			    rc ? strerror(rc) : "no such user", user);
	else
		mpp_cfg.opt_out[mpp_cfg.nopt_out++] = res->pw_uid;
	free(buf);
	return 0;
}

/* "NAME:MINUTES", the MaxTime of a partition. */
static int add_part(const char *item, const char *where, char *err,
		    size_t errlen)
{
	const char *colon = strchr(item, ':');
	char *end;
	long m;

	(void)where;
	if (mpp_cfg.nparts == MPP_MAX_LIST) {
		snprintf(err, errlen, "more than %d partition_max_minutes",
			 MPP_MAX_LIST);
		return -1;
	}
	errno = 0;
	m = colon ? strtol(colon + 1, &end, 10) : 0;
	if (!colon || colon == item || errno || end == colon + 1 || *end ||
	    m < 1 || m > 525600) {
		snprintf(err, errlen,
			 "partition_max_minutes: expected NAME:MINUTES, got "
			 "'%s'",
			 item);
		return -1;
	}
	mpp_cfg.parts[mpp_cfg.nparts].name = strndup(item, colon - item);
	if (!mpp_cfg.parts[mpp_cfg.nparts].name) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	mpp_cfg.parts[mpp_cfg.nparts++].minutes = m;
	return 0;
}

/* One "key = value" setting. List values (url, apps, opt_out_users) are
 * separated by spaces or commas and may also be spread over several lines.
 * Fills err (without the file and line) on a bad key or value. */
static int cfg_set(const char *key, char *val, const char *where, char *err,
		   size_t errlen)
{
	static const struct {
		const char *key;
		long *dst, lo, hi;
	} nums[] = {
	    {"timeout_ms", &mpp_cfg.timeout_ms, 1, 60000},
	    {"hedge_ms", &mpp_cfg.hedge_ms, 1, 60000},
	    {"max_body", &mpp_cfg.max_body, 4096, 1L << 30},
	    {"min_minutes", &mpp_cfg.min_minutes, 1, 525600},
	    {"max_minutes", &mpp_cfg.max_minutes, 0, 525600},
	    {"breaker_failures", &mpp_cfg.breaker_failures, 0, 1000000},
	    {"breaker_seconds", &mpp_cfg.breaker_seconds, 1, 86400},
	    {"resolve_seconds", &mpp_cfg.resolve_seconds, 1, 86400},
	};
	int (*add)(const char *, const char *, char *, size_t) = NULL;
	char *save = NULL, *end;

	if (!strcmp(key, "url"))
		add = add_url;
	else if (!strcmp(key, "apps"))
		add = add_app;
	else if (!strcmp(key, "opt_out_users"))
		add = add_opt_out;
	else if (!strcmp(key, "partition_max_minutes"))
		add = add_part;
	if (add) {
		for (char *t = strtok_r(val, " \t,", &save); t;
		     t = strtok_r(NULL, " \t,", &save))
			if (add(t, where, err, errlen))
				return -1;
		return 0;
	}
	for (size_t i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		if (strcmp(key, nums[i].key))
			continue;
		errno = 0;
		long x = strtol(val, &end, 10);
		if (errno || end == val || *end || x < nums[i].lo ||
		    x > nums[i].hi) {
			snprintf(
			    err, errlen,
			    "%s: expected an integer in [%ld,%ld], got '%s'",
			    key, nums[i].lo, nums[i].hi, val);
			return -1;
		}
		*nums[i].dst = x;
		return 0;
	}
	if (!strcmp(key, "safety")) {
		errno = 0;
		mpp_cfg.safety = strtod(val, &end);
		if (errno || end == val || *end || !isfinite(mpp_cfg.safety) ||
		    mpp_cfg.safety < 1.0 || mpp_cfg.safety > 100.0) {
			snprintf(
			    err, errlen,
			    "safety: expected a factor in [1,100], got '%s'",
			    val);
			return -1;
		}
		return 0;
	}
	if (!strcmp(key, "mode")) {
		if (!strcmp(val, "annotate"))
			mpp_cfg.mode = MPP_MODE_ANNOTATE;
		else if (!strcmp(val, "time_min"))
			mpp_cfg.mode = MPP_MODE_TIME_MIN;
		else if (!strcmp(val, "fill"))
			mpp_cfg.mode = MPP_MODE_FILL;
		else {
			snprintf(err, errlen,
				 "mode: expected annotate, time_min or fill, "
				 "got '%s'",
				 val);
			return -1;
		}
		return 0;
	}
	if (!strcmp(key, "lower_user_limit")) {
		if (!strcmp(val, "yes"))
			mpp_cfg.lower_user_limit = true;
		else if (!strcmp(val, "no"))
			mpp_cfg.lower_user_limit = false;
		else {
			snprintf(
			    err, errlen,
			    "lower_user_limit: expected yes or no, got '%s'",
			    val);
			return -1;
		}
		return 0;
	}
	snprintf(err, errlen, "unknown setting '%s'", key);
	return -1;
}

static char *trim(char *s)
{
	char *e = s + strlen(s);

	while (isspace((unsigned char)*s))
		s++;
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Read the whole file; every line is blank, a "#" comment, or key = value.
 * Fills err with "path:line: why" on the first problem. */
int mpp_cfg_load(const char *path, char *err, size_t errlen)
{
	char line[4096], why[512], where[600];
	FILE *f = fopen(path, "re");
	int lineno = 0, rc = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	mpp_cfg_defaults();
	while (!rc && fgets(line, sizeof(line), f)) {
		char *s, *eq;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen, "%s:%d: line too long", path,
				 lineno);
			rc = -1;
			break;
		}
		s = trim(line);
		if (!*s || *s == '#')
			continue;
		if (!(eq = strchr(s, '='))) {
			snprintf(err, errlen, "%s:%d: expected key = value",
				 path, lineno);
			rc = -1;
			break;
		}
		*eq = '\0';
		snprintf(where, sizeof(where), "%s:%d", path, lineno);
		if (cfg_set(trim(s), trim(eq + 1), where, why, sizeof(why))) {
			snprintf(err, errlen, "%.500s: %.500s", where, why);
			rc = -1;
		}
	}
	if (!rc && ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		rc = -1;
	}
	fclose(f);
	if (!rc && !mpp_cfg.nurls) {
		snprintf(err, errlen, "%s: no url given", path);
		rc = -1;
	}
	if (!rc && mpp_cfg.mode == MPP_MODE_FILL && !mpp_cfg.max_minutes) {
		snprintf(err, errlen,
			 "%s: mode fill needs max_minutes (at most the "
			 "smallest partition MaxTime)",
			 path);
		rc = -1;
	}
	if (!rc && mpp_cfg.max_minutes &&
	    mpp_cfg.max_minutes < mpp_cfg.min_minutes) {
		snprintf(err, errlen, "%s: max_minutes is below min_minutes",
			 path);
		rc = -1;
	}
	if (!rc && !mpp_cfg.hedge_ms)
		mpp_cfg.hedge_ms =
		    mpp_cfg.timeout_ms / 4 > 0 ? mpp_cfg.timeout_ms / 4 : 1;
	return rc;
}

const char *mpp_mode_name(enum mpp_mode m)
{
	return m == MPP_MODE_ANNOTATE   ? "annotate"
	       : m == MPP_MODE_TIME_MIN ? "time_min"
					: "fill";
}
