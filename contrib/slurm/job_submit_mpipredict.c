/*
 * job_submit_mpipredict.c: Slurm job_submit plugin that asks mpipredictd how
 * long a submitted job will run and writes the answer into the job.
 *
 * At every submission it sends what the job carries (the batch script as
 * written, argv, the submit line, task and node counts, uid, partition,
 * time limit, name, work dir) to POST <url>/v1/predict within one hard time
 * budget. It does not read the script itself: the daemon finds the
 * application and its arguments (its script reader, or argv for srun and
 * salloc jobs) and names the app in its answer. The answer is applied as
 * mpipredict.conf says (see contrib/slurm/mpipredict.conf):
 *   annotate  append "mpipredict: 812s [770,861] jacobi@3" to the comment,
 *             if the comment stays within what slurmctld accepts;
 *   time_min  also set --time-min to ceil(upper * safety / 60) minutes, but
 *             only if that is within the user's time limit;
 *   fill      also set the time limit to that value when the user gave none
 *             (or lower the user's limit to it with lower_user_limit = yes),
 *             never below the job's own time_min.
 *
 * It fails open: whatever goes wrong (no config, bad config, daemon down,
 * hung, slow, garbage, 5xx, no model), the job is submitted exactly as the
 * user asked and slurmctld logs one line. With several urls, a url that
 * fails moves on to the next at once, and one that has not answered after
 * hedge_ms is joined by the next in parallel (first good answer wins), all
 * within timeout_ms. After breaker_failures failures in a row it stops
 * calling for breaker_seconds (circuit breaker); a url that fails or stays
 * silent that often is asked last for that long.
 *
 * It runs inside slurmctld, under the controller's locks: it never exits,
 * forks or touches signals (libcurl runs with CURLOPT_NOSIGNAL), it makes no
 * user-database lookup at submission (opt_out_users are resolved to uids in
 * init()), every string it hands to Slurm comes from Slurm's allocator
 * (slurm_xstrdup), and the only shared mutable state (the breaker) is behind
 * a mutex. It is not linked with libslurm: the few Slurm functions it calls
 * are resolved in slurmctld, at load time (-Wl,-z,now), so a mismatch fails
 * at startup, not at a job.
 *
 * Not for: re-predicting on job updates (job_modify accepts every update
 * unchanged), parsing batch scripts (the daemon does), or learning from
 * finished jobs (the collector does that).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <pwd.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <jansson.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

/* Provided by slurmctld (libslurmfull); declared here because Slurm does not
 * ship these headers. Strings Slurm frees must come from slurm_xstrdup. */
extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **ptr);
extern char *slurm_get_extra_conf_path(char *conf_name);
extern void slurm_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
extern void slurm_info(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
extern void slurm_debug(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

const char plugin_name[] = "job_submit mpipredict: runtime predictions";
const char plugin_type[] = "job_submit/mpipredict";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

#define PFX        "job_submit/mpipredict: "
#define MAX_URLS   8
#define MAX_LIST   64
#define MAX_ANSWER 65536
/* slurmctld 22.05 refuses a job whose comment is longer than this many
 * bytes ("Pathname of a file, directory or other parameter too long",
 * ESLURM_PATHNAME_TOO_LONG), and checks it after job_submit plugins ran:
 * sbatch --comment of 1024 bytes is accepted, 1025 refused (measured, see
 * contrib/slurm/README.md). */
#define COMMENT_MAX 1024

enum mode { MODE_ANNOTATE, MODE_TIME_MIN, MODE_FILL };

/* Configuration: written once by init(), read-only afterwards. */
static struct {
	bool enabled;
	char *urls[MAX_URLS]; /* full endpoint: <url>/v1/predict */
	int nurls;
	long timeout_ms;
	long hedge_ms; /* 0: timeout_ms / 4 */
	long max_body;
	enum mode mode;
	double safety;
	long min_minutes, max_minutes; /* max 0: no clamp */
	bool lower_user_limit;
	char *apps[MAX_LIST]; /* allow-list; empty: every app */
	int napps;
	uid_t opt_out[MAX_LIST];
	int nopt_out;
	struct {
		char *name;
		long minutes;
	} parts[MAX_LIST]; /* partition_max_minutes */
	int nparts;
	long breaker_failures; /* 0: never open */
	long breaker_seconds;
} cfg;

/* Circuit breaker, shared by every thread that submits jobs, and the same
 * per url: a url that failed or stayed silent breaker_failures times in a
 * row is asked last for breaker_seconds, so that a hung first daemon does
 * not cost every job hedge_ms while a second one answers. */
static pthread_mutex_t breaker_lock = PTHREAD_MUTEX_INITIALIZER;
static long breaker_fails;
static double breaker_open_until; /* monotonic seconds; 0: closed */
static long url_fails[MAX_URLS];
static double url_last_until[MAX_URLS]; /* asked last until then */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---------------------------------------------------------------------- */
/* Configuration                                                          */

static void cfg_clear(void)
{
	for (int i = 0; i < cfg.nurls; i++)
		free(cfg.urls[i]);
	for (int i = 0; i < cfg.napps; i++)
		free(cfg.apps[i]);
	for (int i = 0; i < cfg.nparts; i++)
		free(cfg.parts[i].name);
	memset(&cfg, 0, sizeof(cfg));
}

static void cfg_defaults(void)
{
	cfg_clear();
	cfg.timeout_ms = 200;
	cfg.max_body = 1048576;
	cfg.mode = MODE_ANNOTATE;
	cfg.safety = 1.0;
	cfg.min_minutes = 1;
	cfg.max_minutes = 0;
	cfg.breaker_failures = 3;
	cfg.breaker_seconds = 30;
}

/* List items are added by these; where is "path:line" for a warning. */
static int add_url(const char *u, const char *where, char *err, size_t errlen)
{
	size_t n = strlen(u);

	(void)where;
	if (cfg.nurls == MAX_URLS) {
		snprintf(err, errlen, "more than %d urls", MAX_URLS);
		return -1;
	}
	if (strncmp(u, "http://", 7) && strncmp(u, "https://", 8)) {
		snprintf(err, errlen, "url '%s' is not http:// or https://", u);
		return -1;
	}
	while (n > 0 && u[n - 1] == '/')
		n--;
	if (asprintf(&cfg.urls[cfg.nurls], "%.*s/v1/predict", (int)n, u) < 0) {
		cfg.urls[cfg.nurls] = NULL;
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cfg.nurls++;
	return 0;
}

static int add_app(const char *a, const char *where, char *err, size_t errlen)
{
	(void)where;
	if (cfg.napps == MAX_LIST) {
		snprintf(err, errlen, "more than %d apps", MAX_LIST);
		return -1;
	}
	if (!(cfg.apps[cfg.napps] = strdup(a))) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cfg.napps++;
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

	if (cfg.nopt_out == MAX_LIST) {
		snprintf(err, errlen, "more than %d opt_out_users", MAX_LIST);
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
		cfg.opt_out[cfg.nopt_out++] = res->pw_uid;
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
	if (cfg.nparts == MAX_LIST) {
		snprintf(err, errlen, "more than %d partition_max_minutes",
			 MAX_LIST);
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
	cfg.parts[cfg.nparts].name = strndup(item, colon - item);
	if (!cfg.parts[cfg.nparts].name) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cfg.parts[cfg.nparts++].minutes = m;
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
	    {"timeout_ms", &cfg.timeout_ms, 1, 60000},
	    {"hedge_ms", &cfg.hedge_ms, 1, 60000},
	    {"max_body", &cfg.max_body, 4096, 1L << 30},
	    {"min_minutes", &cfg.min_minutes, 1, 525600},
	    {"max_minutes", &cfg.max_minutes, 0, 525600},
	    {"breaker_failures", &cfg.breaker_failures, 0, 1000000},
	    {"breaker_seconds", &cfg.breaker_seconds, 1, 86400},
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
		cfg.safety = strtod(val, &end);
		if (errno || end == val || *end || !isfinite(cfg.safety) ||
		    cfg.safety < 1.0 || cfg.safety > 100.0) {
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
			cfg.mode = MODE_ANNOTATE;
		else if (!strcmp(val, "time_min"))
			cfg.mode = MODE_TIME_MIN;
		else if (!strcmp(val, "fill"))
			cfg.mode = MODE_FILL;
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
			cfg.lower_user_limit = true;
		else if (!strcmp(val, "no"))
			cfg.lower_user_limit = false;
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
static int cfg_load(const char *path, char *err, size_t errlen)
{
	char line[4096], why[512], where[600];
	FILE *f = fopen(path, "re");
	int lineno = 0, rc = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	cfg_defaults();
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
	if (!rc && !cfg.nurls) {
		snprintf(err, errlen, "%s: no url given", path);
		rc = -1;
	}
	if (!rc && cfg.mode == MODE_FILL && !cfg.max_minutes) {
		snprintf(err, errlen,
			 "%s: mode fill needs max_minutes (at most the "
			 "smallest partition MaxTime)",
			 path);
		rc = -1;
	}
	if (!rc && cfg.max_minutes && cfg.max_minutes < cfg.min_minutes) {
		snprintf(err, errlen, "%s: max_minutes is below min_minutes",
			 path);
		rc = -1;
	}
	if (!rc && !cfg.hedge_ms)
		cfg.hedge_ms = cfg.timeout_ms / 4 > 0 ? cfg.timeout_ms / 4 : 1;
	return rc;
}

/* ---------------------------------------------------------------------- */
/* The request                                                            */

/* True when a line of the script is "#MPIPREDICT" followed by words one of
 * which is "off" (the user opted this job out). A line match, the same
 * directive syntax the daemon reads; the script is not parsed here. */
static bool script_opts_out(const char *s)
{
	for (const char *p = s; p; p = strchr(p, '\n'), p = p ? p + 1 : p) {
		const char *q = p + strspn(p, " \t");

		if (strncmp(q, "#MPIPREDICT", 11) ||
		    (q[11] != ' ' && q[11] != '\t'))
			continue;
		for (q += 11;;) {
			size_t n;

			q += strspn(q, " \t");
			n = strcspn(q, " \t\r\n");
			if (!n)
				break;
			if (n == 3 && !strncmp(q, "off", 3))
				return true;
			q += n;
		}
	}
	return false;
}

/* Length of the valid UTF-8 sequence at s, 0 if the byte there does not
 * start one (s is NUL-terminated, so no read goes past its end). */
static int utf8_len(const unsigned char *s)
{
	unsigned lo = 0x80, hi = 0xbf;
	int n;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3, lo = s[0] == 0xe0 ? 0xa0 : lo,
		hi = s[0] == 0xed ? 0x9f : hi;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4, lo = s[0] == 0xf0 ? 0x90 : lo,
		hi = s[0] == 0xf4 ? 0x8f : hi;
	else
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int k = 2; k < n; k++)
		if ((s[k] & 0xc0) != 0x80)
			return 0;
	return n;
}

/* A JSON string of s. JSON text must be UTF-8 and jansson refuses anything
 * else: bytes that are not (a Latin-1 comment in a script) become '?', so
 * that the script is still sent and no argv element goes missing. */
static json_t *text(const char *s)
{
	json_t *j = json_string(s);
	char *copy;

	if (j || !s || !(copy = strdup(s)))
		return j;
	for (size_t i = 0; copy[i];) {
		int n = utf8_len((const unsigned char *)copy + i);

		if (n)
			i += n;
		else
			copy[i++] = '?';
	}
	j = json_string(copy);
	free(copy);
	return j;
}

static void put_str(json_t *o, const char *key, const char *val)
{
	if (val)
		json_object_set_new(o, key, text(val));
}

static void put_num(json_t *o, const char *key, uint64_t val, uint64_t unset)
{
	if (val != unset)
		json_object_set_new(o, key, json_integer((json_int_t)val));
}

/* The body for the daemon (DESIGN.md, POST /v1/predict): no app and no
 * args, the daemon finds both in the script, or in argv when there is none.
 * NULL with why filled when it cannot be built or is longer than max_body
 * (the daemon would refuse it with 413; JSON escapes can make a script up
 * to six times longer, so the encoded body is what is measured). */
static char *build_request(const job_desc_msg_t *job, char *why, size_t whylen)
{
	json_t *o = json_object(), *argv = json_array();
	char *body = NULL;
	size_t len;

	if (job->script && (len = strlen(job->script)) > (size_t)cfg.max_body) {
		snprintf(why, whylen,
			 "script of %zu bytes is over max_body (%ld)", len,
			 cfg.max_body);
		goto out;
	}
	if (!o || !argv) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (uint32_t i = 0; job->argv && i < job->argc; i++)
		json_array_append_new(argv,
				      text(job->argv[i] ? job->argv[i] : ""));
	json_object_set(o, "argv", argv);
	put_str(o, "script", job->script);
	put_str(o, "submit_line", job->submit_line);
	put_str(o, "job_name", job->name);
	put_str(o, "work_dir", job->work_dir);
	put_str(o, "partition", job->partition);
	put_num(o, "uid", job->user_id, NO_VAL);
	put_num(o, "ntasks", job->num_tasks, NO_VAL);
	put_num(o, "nodes", job->min_nodes, NO_VAL);
	put_num(o, "max_nodes", job->max_nodes, NO_VAL);
	put_num(o, "ntasks_per_node", job->ntasks_per_node, NO_VAL16);
	put_num(o, "cpus_per_task", job->cpus_per_task, NO_VAL16);
	if (job->time_limit != NO_VAL && job->time_limit != INFINITE)
		put_num(o, "time_limit_s", (uint64_t)job->time_limit * 60,
			NO_VAL64);
	if (!(body = json_dumps(o, JSON_COMPACT)))
		snprintf(why, whylen, "out of memory");
	else if ((len = strlen(body)) > (size_t)cfg.max_body) {
		snprintf(why, whylen,
			 "request of %zu bytes (the script JSON-escaped) is "
			 "over max_body (%ld)",
			 len, cfg.max_body);
		free(body);
		body = NULL;
	}
out:
	json_decref(argv);
	json_decref(o);
	return body;
}

/* ---------------------------------------------------------------------- */
/* Circuit breaker                                                        */

/* True when the daemon may be called now. While open, nothing is called
 * until breaker_seconds have passed; then one call is let through. */
static bool breaker_allows(void)
{
	bool ok;

	pthread_mutex_lock(&breaker_lock);
	ok = breaker_open_until == 0 || now_s() >= breaker_open_until;
	pthread_mutex_unlock(&breaker_lock);
	return ok;
}

/* The urls in the order to ask them: config order, those asked last for
 * now at the end. */
static void url_order(int *order)
{
	double t = now_s();
	int n = 0;

	pthread_mutex_lock(&breaker_lock);
	for (int i = 0; i < cfg.nurls; i++)
		if (url_last_until[i] <= t)
			order[n++] = i;
	for (int i = 0; i < cfg.nurls; i++)
		if (url_last_until[i] > t)
			order[n++] = i;
	pthread_mutex_unlock(&breaker_lock);
}

static void url_record(int u, bool failed)
{
	pthread_mutex_lock(&breaker_lock);
	if (!failed) {
		url_fails[u] = 0;
		url_last_until[u] = 0;
	} else if (cfg.breaker_failures &&
		   ++url_fails[u] >= cfg.breaker_failures) {
		if (url_fails[u] == cfg.breaker_failures && cfg.nurls > 1)
			slurm_info(PFX "%s: %ld failures or silences in a row; "
				       "asking it last for %ld s",
				   cfg.urls[u], url_fails[u],
				   cfg.breaker_seconds);
		url_last_until[u] = now_s() + cfg.breaker_seconds;
	}
	pthread_mutex_unlock(&breaker_lock);
}

static void breaker_record(bool failed)
{
	pthread_mutex_lock(&breaker_lock);
	if (!failed) {
		if (breaker_open_until != 0)
			slurm_info(PFX "daemon answers again; calling it");
		breaker_fails = 0;
		breaker_open_until = 0;
	} else if (cfg.breaker_failures &&
		   ++breaker_fails >= cfg.breaker_failures) {
		if (breaker_fails == cfg.breaker_failures ||
		    breaker_open_until != 0)
			slurm_info(PFX "%ld failures in a row; not calling the "
				       "daemon for %ld s",
				   breaker_fails, cfg.breaker_seconds);
		breaker_open_until = now_s() + cfg.breaker_seconds;
	}
	pthread_mutex_unlock(&breaker_lock);
}

/* ---------------------------------------------------------------------- */
/* Asking the daemons                                                     */

struct answer {
	char buf[MAX_ANSWER];
	size_t len;
	bool too_big;
};

static size_t on_data(char *data, size_t size, size_t n, void *ctx)
{
	struct answer *a = ctx;
	size_t len = size * n;

	if (a->len + len >= sizeof(a->buf)) {
		a->too_big = true;
		return 0;
	}
	memcpy(a->buf + a->len, data, len);
	a->len += len;
	return len;
}

struct prediction {
	double runtime_s, lower_s, upper_s;
	char app[256];
	json_int_t version; /* -1: not given */
};

/* Reads the daemon's 200 answer; false when it is not what DESIGN.md says. */
static bool parse_answer(const struct answer *a, struct prediction *p,
			 char *why, size_t whylen)
{
	json_error_t jerr;
	json_t *root = json_loadb(a->buf, a->len, 0, &jerr);
	json_t *model = NULL, *version = NULL;
	const char *app = NULL;
	bool ok = false;

	if (!root) {
		snprintf(why, whylen, "answer is not JSON (%s)", jerr.text);
		return false;
	}
	if (json_unpack_ex(root, &jerr, 0, "{s:s, s:F, s:F, s:F, s?o}", "app",
			   &app, "runtime_s", &p->runtime_s, "lower_s",
			   &p->lower_s, "upper_s", &p->upper_s, "model",
			   &model)) {
		snprintf(why, whylen, "unexpected answer (%s)", jerr.text);
		goto out;
	}
	if (!isfinite(p->runtime_s) || !isfinite(p->upper_s) ||
	    !isfinite(p->lower_s) || p->lower_s < 0 ||
	    p->runtime_s < p->lower_s || p->upper_s < p->runtime_s ||
	    p->upper_s > 1e9) {
		snprintf(why, whylen, "answer has an impossible interval");
		goto out;
	}
	if (!app[0] || strlen(app) >= sizeof(p->app)) {
		snprintf(why, whylen, "answer has an empty or overlong app");
		goto out;
	}
	version =
	    json_is_object(model) ? json_object_get(model, "version") : NULL;
	p->version =
	    json_is_integer(version) ? json_integer_value(version) : -1;
	snprintf(p->app, sizeof(p->app), "%s", app);
	ok = true;
out:
	json_decref(root);
	return ok;
}

/* ASK_REFUSED: the daemon works but will not predict this job (404: no
 * model for the app; another 4xx: it rejects the request, e.g. a script
 * without a launcher line). Only ASK_FAILED counts towards the circuit
 * breaker. */
enum outcome { ASK_OK, ASK_REFUSED, ASK_FAILED };

/* One url being asked. */
struct attempt {
	CURL *h;
	struct answer *a;
};

/* Appends "; text" (or text) to why. */
static void why_add(char *why, size_t whylen, const char *url, const char *what)
{
	size_t n = strlen(why);

	if (n + 1 < whylen)
		snprintf(why + n, whylen - n, "%s%s: %s", n ? "; " : "", url,
			 what);
}

/* Starts asking url i, with what is left of the budget as curl's own
 * limit. False (and why filled) when it cannot be started. */
static bool launch(CURLM *m, struct attempt *at, int i, const char *body,
		   struct curl_slist *hdr, double deadline, char *why,
		   size_t whylen)
{
	long left = (long)ceil((deadline - now_s()) * 1000.0);

	if (left < 1)
		left = 1;
	at->a = malloc(sizeof(*at->a));
	at->h = at->a ? curl_easy_init() : NULL;
	if (!at->h) {
		free(at->a);
		at->a = NULL;
		why_add(why, whylen, cfg.urls[i], "out of memory");
		return false;
	}
	at->a->len = 0;
	at->a->too_big = false;
	curl_easy_setopt(at->h, CURLOPT_URL, cfg.urls[i]);
	curl_easy_setopt(at->h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(at->h, CURLOPT_TIMEOUT_MS, left);
	curl_easy_setopt(at->h, CURLOPT_CONNECTTIMEOUT_MS, left);
	curl_easy_setopt(at->h, CURLOPT_PROXY, "");
	curl_easy_setopt(at->h, CURLOPT_HTTPHEADER, hdr);
	curl_easy_setopt(at->h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(at->h, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(at->h, CURLOPT_WRITEDATA, at->a);
	if (curl_multi_add_handle(m, at->h) != CURLM_OK) {
		curl_easy_cleanup(at->h);
		free(at->a);
		at->h = NULL;
		at->a = NULL;
		why_add(why, whylen, cfg.urls[i], "cannot start a transfer");
		return false;
	}
	return true;
}

static void drop(CURLM *m, struct attempt *at)
{
	if (at->h) {
		curl_multi_remove_handle(m, at->h);
		curl_easy_cleanup(at->h);
	}
	free(at->a);
	at->h = NULL;
	at->a = NULL;
}

/* What one finished transfer says. Only ASK_OK fills p. A refusal's why
 * replaces the failures before it; a failure's is appended. */
static enum outcome judge(struct attempt *at, const char *url, CURLcode cc,
			  struct prediction *p, char *why, size_t whylen)
{
	char what[300];
	long status = 0;

	if (cc != CURLE_OK) {
		why_add(why, whylen, url,
			at->a->too_big ? "answer over 64 KiB"
				       : curl_easy_strerror(cc));
		return ASK_FAILED;
	}
	curl_easy_getinfo(at->h, CURLINFO_RESPONSE_CODE, &status);
	if (status >= 400 && status < 500) {
		json_t *e = json_loadb(at->a->buf, at->a->len, 0, NULL);
		const char *msg =
		    json_string_value(json_object_get(e, "error"));

		snprintf(what, sizeof(what), "%s (HTTP %ld: %.200s)",
			 status == 404 ? "no model" : "request refused", status,
			 msg ? msg : "no reason given");
		json_decref(e);
		why[0] = '\0';
		why_add(why, whylen, url, what);
		return ASK_REFUSED;
	}
	if (status != 200) {
		snprintf(what, sizeof(what), "HTTP status %ld", status);
		why_add(why, whylen, url, what);
		return ASK_FAILED;
	}
	if (!parse_answer(at->a, p, what, sizeof(what))) {
		why_add(why, whylen, url, what);
		return ASK_FAILED;
	}
	return ASK_OK;
}

/* POST the body to the urls, all within the deadline. In config order,
 * those asked last for now after the rest; a url that fails (refused, 5xx,
 * garbage) hands over to the next at once, and one that has not answered
 * after hedge_ms is joined by the next in parallel, so that a hung daemon
 * cannot use up the budget of a healthy one. The first answer (a
 * prediction or a refusal) wins. at[k] asks url order[k]. */
static enum outcome ask(const char *body, double deadline, struct prediction *p,
			char *why, size_t whylen)
{
	struct attempt at[MAX_URLS] = {{0}};
	struct curl_slist *hdr = NULL, *h2;
	enum outcome res = ASK_FAILED;
	CURLM *m = curl_multi_init();
	int next = 0, active = 0, win = MAX_URLS, order[MAX_URLS];
	double hedge_at = 0;

	url_order(order);

	why[0] = '\0';
	hdr = curl_slist_append(NULL, "Content-Type: application/json");
	/* Else curl waits up to 1 s for "100 Continue" on big bodies. */
	h2 = hdr ? curl_slist_append(hdr, "Expect:") : NULL;
	if (!m || !h2) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (;;) {
		CURLMsg *msg;
		int left, still;
		double t = now_s(), wait;

		if (t >= deadline) {
			for (int k = 0; k < next; k++)
				if (at[k].h)
					why_add(why, whylen, cfg.urls[order[k]],
						"no answer in time");
			if (!why[0])
				snprintf(why, whylen, "no url asked in time");
			break;
		}
		/* Ask the next url when nothing is under way, or when the
		 * last one asked has had hedge_ms, or one has just failed. */
		if (next < cfg.nurls && (!active || t >= hedge_at)) {
			if (launch(m, &at[next], order[next], body, hdr,
				   deadline, why, whylen))
				active++;
			next++;
			hedge_at = t + cfg.hedge_ms / 1000.0;
			continue;
		}
		if (!active)
			break;
		if (curl_multi_perform(m, &still) != CURLM_OK) {
			snprintf(why, whylen, "libcurl multi interface failed");
			break;
		}
		while ((msg = curl_multi_info_read(m, &left))) {
			int k = 0;

			if (msg->msg != CURLMSG_DONE)
				continue;
			while (k < next && at[k].h != msg->easy_handle)
				k++;
			if (k == next)
				continue;
			res = judge(&at[k], cfg.urls[order[k]],
				    msg->data.result, p, why, whylen);
			drop(m, &at[k]);
			active--;
			url_record(order[k], res == ASK_FAILED);
			if (res != ASK_FAILED) {
				win = k;
				goto out;
			}
			hedge_at = 0;
		}
		t = now_s();
		wait = deadline - t;
		if (next < cfg.nurls && hedge_at - t < wait)
			wait = hedge_at - t;
		if (active && wait > 0)
			curl_multi_poll(m, NULL, 0, (int)ceil(wait * 1000.0),
					NULL);
	}
out:
	/* Still silent: a failure if asked before the url that answered
	 * (it had hedge_ms at least), else not judged. */
	for (int k = 0; k < next; k++) {
		if (at[k].h && k < win)
			url_record(order[k], true);
		drop(m, &at[k]);
	}
	curl_multi_cleanup(m);
	curl_slist_free_all(hdr);
	return res;
}

/* ---------------------------------------------------------------------- */
/* Applying the answer                                                    */

static bool app_allowed(const char *app)
{
	if (!cfg.napps)
		return true;
	for (int i = 0; i < cfg.napps; i++)
		if (!strcmp(cfg.apps[i], app))
			return true;
	return false;
}

static bool user_opted_out(uid_t uid)
{
	for (int i = 0; i < cfg.nopt_out; i++)
		if (cfg.opt_out[i] == uid)
			return true;
	return false;
}

/* The prediction's upper bound times the safety factor, in whole minutes,
 * at least min_minutes. */
static uint32_t predicted_minutes(const struct prediction *p)
{
	double m = ceil(p->upper_s * cfg.safety / 60.0);

	if (m < cfg.min_minutes)
		m = cfg.min_minutes;
	return m > 525600 ? 525600 : (uint32_t)m;
}

/* The longest limit the plugin may give the job: max_minutes, or less for
 * a partition it asked for (a comma-separated list: the smallest) named in
 * partition_max_minutes. A limit over the partition's MaxTime would leave
 * the job pending for ever (reason PartitionTimeLimit). 0: no cap. */
static uint32_t cap_minutes(const job_desc_msg_t *job)
{
	uint32_t cap = cfg.max_minutes;
	const char *p = job->partition;

	while (p && *p) {
		size_t n = strcspn(p, ",");

		for (int i = 0; i < cfg.nparts; i++)
			if (strlen(cfg.parts[i].name) == n &&
			    !strncmp(cfg.parts[i].name, p, n) &&
			    (!cap || cfg.parts[i].minutes < cap))
				cap = cfg.parts[i].minutes;
		p += n + (p[n] == ',');
	}
	return cap;
}

/* Appends the prediction to the user's comment, which is kept whole: the
 * full note if the result fits in COMMENT_MAX bytes, else the runtime
 * alone, else nothing (a longer comment gets the job refused). */
static void append_comment(job_desc_msg_t *job, const struct prediction *p)
{
	char full[400], brief[64], text[COMMENT_MAX + 1];
	const char *notes[] = {full, brief};
	const char *mine = job->comment ? job->comment : "";
	size_t have = strlen(mine);

	if (p->version >= 0)
		snprintf(full, sizeof(full),
			 "mpipredict: %.0fs [%.0f,%.0f] %s@%lld", p->runtime_s,
			 p->lower_s, p->upper_s, p->app, (long long)p->version);
	else
		snprintf(full, sizeof(full), "mpipredict: %.0fs [%.0f,%.0f] %s",
			 p->runtime_s, p->lower_s, p->upper_s, p->app);
	snprintf(brief, sizeof(brief), "mpipredict: %.0fs", p->runtime_s);
	for (int i = 0; i < 2; i++) {
		if (have + (have ? 2 : 0) + strlen(notes[i]) > COMMENT_MAX)
			continue;
		snprintf(text, sizeof(text), "%s%s%s", mine, have ? "; " : "",
			 notes[i]);
		slurm_xfree((void **)&job->comment);
		job->comment = slurm_xstrdup(text);
		return;
	}
	slurm_debug(PFX "comment of %zu bytes leaves no room for the "
			"prediction; comment kept as it is",
		    have);
}

static void apply(job_desc_msg_t *job, const struct prediction *p)
{
	uint32_t m = predicted_minutes(p), cap = cap_minutes(job);
	bool user_limit =
	    job->time_limit != NO_VAL && job->time_limit != INFINITE;
	uint32_t tmin =
	    job->time_min != NO_VAL && job->time_min != 0 ? job->time_min : 0;

	append_comment(job, p);
	if (cfg.mode == MODE_TIME_MIN) {
		/* Backfill may shorten the job down to time_min: never set
		 * it below the prediction (so never clamped down), above the
		 * user's limit, or over the user's own time_min. Without a
		 * user's limit the job gets the partition's DefaultTime,
		 * which the plugin cannot see; a time_min over it makes
		 * slurmctld reject the job, so then nothing is set. */
		if (tmin)
			return;
		if (!user_limit || m > job->time_limit || (cap && m > cap))
			return;
		job->time_min = m;
	} else if (cfg.mode == MODE_FILL) {
		/* A limit below the job's time_min makes slurmctld reject
		 * it (ESLURM_INVALID_TIME_MIN_LIMIT): raise it to time_min,
		 * and set nothing when that is over the cap. */
		if (cap && m > cap)
			m = cap;
		if (m < tmin)
			m = tmin;
		if (cap && m > cap)
			return;
		if (job->time_limit == NO_VAL)
			job->time_limit = m;
		else if (cfg.lower_user_limit && user_limit &&
			 m < job->time_limit)
			job->time_limit = m;
	}
}

/* ---------------------------------------------------------------------- */
/* Slurm's entry points                                                   */

int init(void)
{
	char err[1024], *path = NULL;
	const char *env = getenv("MPIPREDICT_CONF");

	cfg_defaults();
	pthread_mutex_lock(&breaker_lock);
	breaker_fails = 0;
	breaker_open_until = 0;
	memset(url_fails, 0, sizeof(url_fails));
	memset(url_last_until, 0, sizeof(url_last_until));
	pthread_mutex_unlock(&breaker_lock);
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		slurm_error(PFX "libcurl did not initialise; disabled, jobs "
				"are submitted unchanged");
		return SLURM_SUCCESS;
	}
	if (!env || !*env)
		path = slurm_get_extra_conf_path("mpipredict.conf");
	if (!(env && *env) && !path) {
		slurm_error(PFX "no path for mpipredict.conf; disabled, jobs "
				"are submitted unchanged");
	} else if (cfg_load(env && *env ? env : path, err, sizeof(err))) {
		cfg_defaults();
		slurm_error(PFX "%s; disabled, jobs are submitted unchanged",
			    err);
	} else {
		cfg.enabled = true;
		slurm_info(PFX "%d url(s), timeout %ld ms, hedge %ld ms, mode "
			       "%s",
			   cfg.nurls, cfg.timeout_ms, cfg.hedge_ms,
			   cfg.mode == MODE_ANNOTATE   ? "annotate"
			   : cfg.mode == MODE_TIME_MIN ? "time_min"
						       : "fill");
	}
	slurm_xfree((void **)&path);
	return SLURM_SUCCESS;
}

int fini(void)
{
	cfg_clear();
	curl_global_cleanup();
	return SLURM_SUCCESS;
}

int job_submit(job_desc_msg_t *job, uint32_t submit_uid, char **err_msg)
{
	double t0 = now_s(), ms;
	struct prediction p = {0};
	const char *name = job->name ? job->name : "";
	char why[1024];
	enum outcome res;
	char *body;

	(void)submit_uid;
	(void)err_msg;
	if (!cfg.enabled || user_opted_out(job->user_id) ||
	    (job->script && script_opts_out(job->script)) || !breaker_allows())
		return SLURM_SUCCESS;
	if (!(body = build_request(job, why, sizeof(why)))) {
		slurm_info(PFX
			   "job '%s' of uid %u: %s; job submitted unchanged",
			   name, job->user_id, why);
		return SLURM_SUCCESS;
	}
	res = ask(body, t0 + cfg.timeout_ms / 1000.0, &p, why, sizeof(why));
	free(body);
	ms = (now_s() - t0) * 1000.0;
	if (res != ASK_OK) {
		breaker_record(res == ASK_FAILED);
		slurm_info(PFX "job '%s' of uid %u: %s after %.1f ms; job "
			       "submitted unchanged",
			   name, job->user_id, why, ms);
		return SLURM_SUCCESS;
	}
	breaker_record(false);
	if (!app_allowed(p.app)) {
		slurm_debug(PFX "job '%s' of uid %u: app %s is not in apps, in "
				"%.2f ms; job submitted unchanged",
			    name, job->user_id, p.app, ms);
		return SLURM_SUCCESS;
	}
	apply(job, &p);
	slurm_debug(PFX "job '%s' of uid %u: app %s %.0fs [%.0f,%.0f] in "
			"%.2f ms",
		    name, job->user_id, p.app, p.runtime_s, p.lower_s,
		    p.upper_s, ms);
	return SLURM_SUCCESS;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
int job_modify(job_desc_msg_t *job, void *job_ptr, uint32_t submit_uid,
	       char **err_msg)
{
	(void)err_msg;
#else
int job_modify(job_desc_msg_t *job, void *job_ptr, uint32_t submit_uid)
{
#endif
	(void)job;
	(void)job_ptr;
	(void)submit_uid;
	return SLURM_SUCCESS;
}
