/*
 * job_submit_mpipredict.c: Slurm job_submit plugin that asks mpipredictd how
 * long a submitted job will run and writes the answer into the job.
 *
 * At every submission it finds the application (a "#MPIPREDICT app=NAME"
 * line, else the executable of the first srun/mpirun/mpiexec line of the
 * batch script, else argv[0] for srun/salloc), sends the job's parameters to
 * POST <url>/v1/predict with a hard time budget, and applies the answer as
 * mpipredict.conf says (see contrib/slurm/mpipredict.conf):
 *   annotate  append "mpipredict: 812s [770,861] jacobi@3" to the comment;
 *   time_min  also set --time-min to ceil(upper * safety / 60) minutes, but
 *             only if that is within the user's time limit;
 *   fill      also set the time limit to that value when the user gave none
 *             (or lower the user's limit to it with lower_user_limit = yes).
 *
 * It fails open: whatever goes wrong (no config, bad config, daemon down,
 * hung, slow, garbage, 5xx, no model), the job is submitted exactly as the
 * user asked and slurmctld logs one line. After breaker_failures failures in
 * a row it stops calling for breaker_seconds (circuit breaker).
 *
 * It runs inside slurmctld, under the controller's locks: it never exits,
 * forks or touches signals (libcurl runs with CURLOPT_NOSIGNAL), every string
 * it hands to Slurm comes from Slurm's allocator (slurm_xstrdup), and the only
 * shared mutable state (the breaker) is behind a mutex. It is not linked with
 * libslurm: the few Slurm functions it calls are resolved in slurmctld, at
 * load time (-Wl,-z,now), so a mismatch fails at startup, not at a job.
 *
 * Not for: re-predicting on job updates (job_modify accepts every update
 * unchanged), or learning from finished jobs (the collector does that).
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
#define MAX_ARGS   256
#define MAX_SCRIPT 262144 /* longer scripts are not sent, only their args */

enum mode { MODE_ANNOTATE, MODE_TIME_MIN, MODE_FILL };

/* Configuration: written once by init(), read-only afterwards. */
static struct {
	bool enabled;
	char *urls[MAX_URLS]; /* full endpoint: <url>/v1/predict */
	int nurls;
	long timeout_ms;
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

/* Circuit breaker, shared by every thread that submits jobs. */
static pthread_mutex_t breaker_lock = PTHREAD_MUTEX_INITIALIZER;
static long breaker_fails;
static double breaker_open_until; /* monotonic seconds; 0: closed */

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
	cfg.mode = MODE_ANNOTATE;
	cfg.safety = 1.0;
	cfg.min_minutes = 1;
	cfg.max_minutes = 0;
	cfg.breaker_failures = 3;
	cfg.breaker_seconds = 30;
}

static int add_url(const char *u, char *err, size_t errlen)
{
	size_t n = strlen(u);

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

static int add_app(const char *a, char *err, size_t errlen)
{
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
 * waits on the user database for this. */
static int add_opt_out(const char *user, char *err, size_t errlen)
{
	struct passwd pw, *res = NULL;
	char buf[4096];

	if (cfg.nopt_out == MAX_LIST) {
		snprintf(err, errlen, "more than %d opt_out_users", MAX_LIST);
		return -1;
	}
	if (getpwnam_r(user, &pw, buf, sizeof(buf), &res) || !res) {
		snprintf(err, errlen, "opt_out_users: no such user '%s'", user);
		return -1;
	}
	cfg.opt_out[cfg.nopt_out++] = res->pw_uid;
	return 0;
}

/* "NAME:MINUTES", the MaxTime of a partition. */
static int add_part(const char *item, char *err, size_t errlen)
{
	const char *colon = strchr(item, ':');
	char *end;
	long m;

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
static int cfg_set(const char *key, char *val, char *err, size_t errlen)
{
	static const struct {
		const char *key;
		long *dst, lo, hi;
	} nums[] = {
	    {"timeout_ms", &cfg.timeout_ms, 1, 60000},
	    {"min_minutes", &cfg.min_minutes, 1, 525600},
	    {"max_minutes", &cfg.max_minutes, 0, 525600},
	    {"breaker_failures", &cfg.breaker_failures, 0, 1000000},
	    {"breaker_seconds", &cfg.breaker_seconds, 1, 86400},
	};
	int (*add)(const char *, char *, size_t) = NULL;
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
			if (add(t, err, errlen))
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
	char line[4096], why[512];
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
		if (cfg_set(trim(s), trim(eq + 1), why, sizeof(why))) {
			snprintf(err, errlen, "%s:%d: %s", path, lineno, why);
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
	return rc;
}

/* ---------------------------------------------------------------------- */
/* What the batch script says                                             */

/* What a job's script tells us: the application and its arguments (from the
 * launcher line), and whether the user opted out. Strings point into
 * words, a private copy of one script line. */
struct script_info {
	bool opt_out;
	char app[256];
	char *words;
	char *args[MAX_ARGS];
	int nargs;
};

static bool is_launcher(const char *w)
{
	const char *b = strrchr(w, '/');

	b = b ? b + 1 : w;
	return !strcmp(b, "srun") || !strcmp(b, "mpirun") ||
	       !strcmp(b, "mpiexec") || !strcmp(b, "mpiexec.hydra");
}

/* Launcher options (srun, Open MPI's mpirun, MPICH's mpiexec) that take the
 * next word as their value; "--opt=value" and "-n4" need no entry. */
static int option_values(const char *w)
{
	static const char *const one[] = {
	    "-n",
	    "-np",
	    "-N",
	    "-c",
	    "-p",
	    "-t",
	    "-J",
	    "-o",
	    "-e",
	    "-i",
	    "-w",
	    "-x",
	    "-m",
	    "-B",
	    "-H",
	    "-f",
	    "-ppn",
	    "-wdir",
	    "-env",
	    "--ntasks",
	    "--nodes",
	    "--cpus-per-task",
	    "--partition",
	    "--time",
	    "--job-name",
	    "--output",
	    "--error",
	    "--input",
	    "--nodelist",
	    "--exclude",
	    "--distribution",
	    "--mpi",
	    "--cpu-bind",
	    "--mem",
	    "--ntasks-per-node",
	    "--export",
	    "--host",
	    "--hostfile",
	    "-hostfile",
	    "--machinefile",
	    "-machinefile",
	    "--map-by",
	    "-map-by",
	    "--bind-to",
	    "-bind-to",
	    "--rank-by",
	    "--wdir",
	    "--prefix",
	    "-configfile",
	    "--account",
	    "-A",
	    "--gres",
	    "--constraint",
	    "-C",
	    "--qos",
	    "-q",
	};
	static const char *const two[] = {"--mca", "-mca", "-gmca", "-genv"};

	for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++)
		if (!strcmp(w, two[i]))
			return 2;
	for (size_t i = 0; i < sizeof(one) / sizeof(one[0]); i++)
		if (!strcmp(w, one[i]))
			return 1;
	return 0;
}

static void set_app(struct script_info *si, const char *path)
{
	const char *b = strrchr(path, '/');

	snprintf(si->app, sizeof(si->app), "%s", b ? b + 1 : path);
}

/* Split one logical line into words at spaces; quotes are removed and a
 * quoted string stays one word. The first unquoted shell operator (; & |
 * < >) ends the command: what follows is not the program's arguments (a
 * file descriptor number before a redirection is dropped too). Returns the
 * number of words. */
static int split_words(char *line, char **w, int max)
{
	int n = 0;
	char *r = line, *o = line;

	while (*r && n < max) {
		char q = 0, c, *word;

		while (isspace((unsigned char)*r))
			r++;
		if (!*r || strchr(";&|<>", *r))
			break;
		word = o;
		while (*r && (q || !isspace((unsigned char)*r))) {
			if (!q && strchr(";&|<>", *r))
				break;
			if (!q && (*r == '\'' || *r == '"'))
				q = *r++;
			else if (q && *r == q)
				q = 0, r++;
			else
				*o++ = *r++;
		}
		/* o may have caught up with r: read the stop char first. */
		c = *r;
		*o++ = '\0';
		if (c && strchr(";&|<>", c)) {
			if (!strchr("<>", c) ||
			    word[strspn(word, "0123456789")])
				w[n++] = word;
			break;
		}
		w[n++] = word;
		if (c)
			r++;
	}
	return n;
}

/* Look at a "#MPIPREDICT ..." directive or at a command line. Returns true
 * when the line was the launcher line (the scan can stop). */
static bool scan_line(struct script_info *si, const char *start, size_t len)
{
	char *w[MAX_ARGS + 8];
	char *line = strndup(start, len);
	int n, i;

	if (!line)
		return false;
	for (char *p = line; (p = strstr(p, "\\\n"));)
		p[0] = p[1] = ' ';
	n = split_words(line, w, MAX_ARGS + 8);
	if (n >= 1 && !strcmp(w[0], "#MPIPREDICT")) {
		for (i = 1; i < n; i++) {
			if (!strcmp(w[i], "off"))
				si->opt_out = true;
			else if (!strncmp(w[i], "app=", 4) && w[i][4])
				set_app(si, w[i] + 4);
		}
		free(line);
		return false;
	}
	if (n == 0 || w[0][0] == '#') {
		free(line);
		return false;
	}
	for (i = 0; i < n && !is_launcher(w[i]); i++)
		;
	if (i == n) {
		free(line);
		return false;
	}
	/* Skip the launcher's options to its executable. */
	for (i++; i < n && w[i][0] == '-'; i++)
		i += option_values(w[i]);
	if (i >= n) {
		free(line);
		return false;
	}
	if (!si->app[0])
		set_app(si, w[i]);
	for (i++; i < n && si->nargs < MAX_ARGS; i++)
		si->args[si->nargs++] = w[i];
	si->words = line;
	return true;
}

/* Scan the script line by line (backslash-newline continues a line) for
 * directives and the first launcher line. Directives after the launcher
 * line still count, so that "#MPIPREDICT off" works anywhere. */
static void scan_script(struct script_info *si, const char *script)
{
	const char *p = script;
	bool found = false;

	while (*p) {
		const char *e = p;

		while (*e && (*e != '\n' || (e > p && e[-1] == '\\')))
			e++;
		if (!found)
			found = scan_line(si, p, e - p);
		else if (!strncmp(p, "#MPIPREDICT", 11))
			scan_line(si, p, e - p);
		p = *e ? e + 1 : e;
	}
}

/* ---------------------------------------------------------------------- */
/* Asking the daemon                                                      */

/* Adds a string member unless it is NULL or not valid UTF-8. */
static void put_str(json_t *o, const char *key, const char *val)
{
	if (val)
		json_object_set_new(o, key, json_string(val));
}

static void put_num(json_t *o, const char *key, uint64_t val, uint64_t unset)
{
	if (val != unset)
		json_object_set_new(o, key, json_integer((json_int_t)val));
}

static char *build_request(const job_desc_msg_t *job,
			   const struct script_info *si)
{
	json_t *o = json_object(), *args = json_array(), *argv = json_array();
	struct passwd pw, *res = NULL;
	char buf[4096];
	char *body = NULL;

	if (!o || !args || !argv)
		goto out;
	put_str(o, "app", si->app);
	for (int i = 0; i < si->nargs; i++)
		json_array_append_new(args, json_string(si->args[i]));
	json_object_set(o, "args", args);
	for (uint32_t i = 0; job->argv && i < job->argc; i++)
		if (job->argv[i])
			json_array_append_new(argv, json_string(job->argv[i]));
	json_object_set(o, "argv", argv);
	if (job->script && strlen(job->script) <= MAX_SCRIPT)
		put_str(o, "script", job->script);
	put_str(o, "submit_line", job->submit_line);
	put_str(o, "job_name", job->name);
	put_str(o, "work_dir", job->work_dir);
	put_str(o, "partition", job->partition);
	if (!getpwuid_r(job->user_id, &pw, buf, sizeof(buf), &res) && res)
		put_str(o, "user", res->pw_name);
	put_num(o, "uid", job->user_id, NO_VAL);
	put_num(o, "ntasks", job->num_tasks, NO_VAL);
	put_num(o, "nodes", job->min_nodes, NO_VAL);
	put_num(o, "max_nodes", job->max_nodes, NO_VAL);
	put_num(o, "ntasks_per_node", job->ntasks_per_node, NO_VAL16);
	put_num(o, "cpus_per_task", job->cpus_per_task, NO_VAL16);
	if (job->time_limit != NO_VAL && job->time_limit != INFINITE)
		put_num(o, "time_limit_s", (uint64_t)job->time_limit * 60,
			NO_VAL64);
	body = json_dumps(o, JSON_COMPACT);
out:
	json_decref(args);
	json_decref(argv);
	json_decref(o);
	return body;
}

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
	if (json_unpack_ex(root, &jerr, 0, "{s?s, s:F, s:F, s:F, s?o}", "app",
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
	version =
	    json_is_object(model) ? json_object_get(model, "version") : NULL;
	p->version =
	    json_is_integer(version) ? json_integer_value(version) : -1;
	if (app)
		snprintf(p->app, sizeof(p->app), "%s", app);
	ok = true;
out:
	json_decref(root);
	return ok;
}

/* ASK_REFUSED: the daemon works but will not predict this job (404: no
 * model for the app; another 4xx: it rejects the request). Only
 * ASK_FAILED counts towards the circuit breaker. */
enum outcome { ASK_OK, ASK_REFUSED, ASK_FAILED };

/* POST the body to each url in turn until one answers, all of them within
 * timeout_ms. A refused connection moves on to the next url at once. */
static enum outcome ask(const char *body, struct prediction *p, char *why,
			size_t whylen)
{
	double deadline = now_s() + cfg.timeout_ms / 1000.0;
	struct curl_slist *hdr = NULL;
	enum outcome res = ASK_FAILED;
	struct answer *a = malloc(sizeof(*a));
	CURL *c = curl_easy_init();

	snprintf(why, whylen, "no url tried");
	hdr = curl_slist_append(hdr, "Content-Type: application/json");
	/* Else curl waits up to 1 s for "100 Continue" on big bodies. */
	hdr = hdr ? curl_slist_append(hdr, "Expect:") : NULL;
	if (!a || !c || !hdr) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	for (int i = 0; i < cfg.nurls; i++) {
		long left = (long)((deadline - now_s()) * 1000.0), status = 0;
		CURLcode cc;

		if (left < 1) {
			snprintf(why, whylen, "timed out after %ld ms",
				 cfg.timeout_ms);
			break;
		}
		a->len = 0;
		a->too_big = false;
		curl_easy_reset(c);
		curl_easy_setopt(c, CURLOPT_URL, cfg.urls[i]);
		curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
		curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, left);
		curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, left);
		curl_easy_setopt(c, CURLOPT_PROXY, "");
		curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdr);
		curl_easy_setopt(c, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, on_data);
		curl_easy_setopt(c, CURLOPT_WRITEDATA, a);
		cc = curl_easy_perform(c);
		if (cc != CURLE_OK) {
			snprintf(why, whylen, "%s: %s", cfg.urls[i],
				 a->too_big ? "answer too big"
					    : curl_easy_strerror(cc));
			if (cc == CURLE_OPERATION_TIMEDOUT)
				break;
			continue;
		}
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
		if (status >= 400 && status < 500) {
			if (status == 404)
				snprintf(why, whylen, "%s: no model",
					 cfg.urls[i]);
			else
				snprintf(why, whylen,
					 "%s: request refused, HTTP status %ld",
					 cfg.urls[i], status);
			res = ASK_REFUSED;
			break;
		}
		if (status != 200) {
			snprintf(why, whylen, "%s: HTTP status %ld",
				 cfg.urls[i], status);
			continue;
		}
		if (parse_answer(a, p, why, whylen))
			res = ASK_OK;
		break;
	}
out:
	curl_slist_free_all(hdr);
	curl_easy_cleanup(c);
	free(a);
	return res;
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

static void append_comment(job_desc_msg_t *job, const struct prediction *p,
			   const char *app)
{
	char note[512], *text = NULL;
	int n;

	if (p->version >= 0)
		snprintf(note, sizeof(note),
			 "mpipredict: %.0fs [%.0f,%.0f] %s@%lld", p->runtime_s,
			 p->lower_s, p->upper_s, app, (long long)p->version);
	else
		snprintf(note, sizeof(note), "mpipredict: %.0fs [%.0f,%.0f] %s",
			 p->runtime_s, p->lower_s, p->upper_s, app);
	if (job->comment && job->comment[0])
		n = asprintf(&text, "%s; %s", job->comment, note);
	else
		n = asprintf(&text, "%s", note);
	if (n < 0)
		return;
	slurm_xfree((void **)&job->comment);
	job->comment = slurm_xstrdup(text);
	free(text);
}

static void apply(job_desc_msg_t *job, const struct prediction *p,
		  const char *app)
{
	uint32_t m = predicted_minutes(p), cap = cap_minutes(job);
	bool user_limit =
	    job->time_limit != NO_VAL && job->time_limit != INFINITE;

	append_comment(job, p, app);
	if (cfg.mode == MODE_TIME_MIN) {
		/* Backfill may shorten the job down to time_min: never set
		 * it below the prediction (so never clamped down), above the
		 * user's limit, or over the user's own time_min. Without a
		 * user's limit the job gets the partition's DefaultTime,
		 * which the plugin cannot see; a time_min over it makes
		 * slurmctld reject the job, so then nothing is set. */
		if (job->time_min != NO_VAL && job->time_min != 0)
			return;
		if (!user_limit || m > job->time_limit || (cap && m > cap))
			return;
		job->time_min = m;
	} else if (cfg.mode == MODE_FILL) {
		if (cap && m > cap)
			m = cap;
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
		slurm_info(PFX "%d url(s), timeout %ld ms, mode %s", cfg.nurls,
			   cfg.timeout_ms,
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
	struct script_info si = {0};
	struct prediction p = {0};
	char why[512];
	char *body;
	enum outcome res;
	double t0, ms;

	(void)submit_uid;
	(void)err_msg;
	if (!cfg.enabled || user_opted_out(job->user_id))
		return SLURM_SUCCESS;
	if (job->script)
		scan_script(&si, job->script);
	else if (job->argc > 0 && job->argv && job->argv[0])
		set_app(&si, job->argv[0]);
	if (si.opt_out || !si.app[0] || !app_allowed(si.app) ||
	    !breaker_allows())
		goto out;
	t0 = now_s();
	if (!(body = build_request(job, &si))) {
		slurm_error(PFX "out of memory; job submitted unchanged");
		goto out;
	}
	res = ask(body, &p, why, sizeof(why));
	ms = (now_s() - t0) * 1000.0;
	free(body);
	if (res == ASK_OK) {
		breaker_record(false);
		apply(job, &p, si.app);
		slurm_debug(PFX "app %s: %.0fs [%.0f,%.0f] in %.2f ms", si.app,
			    p.runtime_s, p.lower_s, p.upper_s, ms);
	} else {
		breaker_record(res == ASK_FAILED);
		slurm_info(PFX
			   "app %s: %s after %.1f ms; job submitted unchanged",
			   si.app, why, ms);
	}
out:
	free(si.words);
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
