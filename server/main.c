/*
 * main.c: mpipredictd, the prediction daemon (docs/design.md, "REST API").
 *
 * Reads the options, opens the store and loads the active models (keeper),
 * starts the HTTP side, then waits for SIGTERM or SIGINT: it stops taking
 * requests, lets the ones in flight finish, writes the queued audit
 * records and exits 0. Only this file prints to stdout or exits.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "server/api.h"
#include "server/audit.h"
#include "server/cache.h"
#include "server/conf.h"
#include "server/extend.h"
#include "server/http.h"
#include "history/history.h"
#include "history/nag.h"
#include "server/hist.h"
#include "server/keeper.h"
#include "server/log.h"
#include "server/retrain.h"
#include "server/ui.h"

/* Read when --config is not given (and it exists); the environment
 * variable names another, so that tests never read /etc. */
#define DEFAULT_CONF "/etc/mpipredict/mpipredictd.conf"
#define CONF_ENV     "MPIPREDICT_DAEMON_CONF"
/* --history auto: not a history.h method, the choice among them. */
#define HISTORY_AUTO 100

/* `name` in the folder of this program (installed side by side), from
 * /proc/self/exe; `name` alone (looked up in PATH) when that is unknown. */
static const char *beside_me(const char *name)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof path - 1);
	if (n <= 0)
		return name;
	path[n] = '\0';
	char *slash = strrchr(path, '/');
	if (slash == NULL ||
	    (size_t)(slash + 1 - path) + strlen(name) + 1 > sizeof path)
		return name;
	strcpy(slash + 1, name);
	return path;
}

static const char usage[] =
    "usage: mpipredictd --db FILE [options]\n"
    "Answers runtime predictions over HTTP from the models in FILE.\n"
    "\n"
    "  --config FILE          read these settings from FILE, an INI file:\n"
    "                         [mpipredictd], then key = value lines, the\n"
    "                         keys being the long options below (db =\n"
    "                         /var/lib/mpipredict/models.db); options given\n"
    "                         here win (default: " DEFAULT_CONF "\n"
    "                         when it exists, or the file\n"
    "                         $" CONF_ENV " names; none: no file)\n"
    "  --db FILE              the SQLite store (created when missing)\n"
    "  --listen HOST:PORT     where to listen (default 127.0.0.1:8470;\n"
    "                         port 0 picks a free one)\n"
    "  --port-file FILE       write the port listened on to FILE\n"
    "  --token-file FILE      bearer token for POST /v1/runs (without it,\n"
    "                         writes are refused)\n"
    "  --threads N            event-loop threads (default: CPUs)\n"
    "  --max-body BYTES       request body limit (default 1048576)\n"
    "  --max-connections N    open connections (default 1024)\n"
    "  --max-connections-per-ip N\n"
    "                         open connections from one address (default\n"
    "                         0: no cap)\n"
    "  --write-rate N         writes (POST /v1/runs, /v1/jobs, /v1/progress)\n"
    "                         a minute with the token, in bursts of as\n"
    "                         many; more: 429 (default 600; 0: no limit)\n"
    "  --max-features N       features in one request (default 4096)\n"
    "  --idle-timeout S       close a silent connection (default 15)\n"
    "  --request-timeout S    time to send a whole request (default 10)\n"
    "  --start-timeout S      time to send a request line, on a new\n"
    "                         connection or between requests (default 2)\n"
    "  --audit-interval MS    write prediction records every MS (default "
    "100)\n"
    "  --audit-batch N        ... or once N are queued (default 512)\n"
    "  --audit-queue N        records held before dropping (default "
    "100000)\n"
    "  --audit-keep-rows N    keep the newest N audit records (default\n"
    "                         1000000; 0: all)\n"
    "  --audit-keep-days D    delete audit records older than D days\n"
    "                         (default 0: whatever their age)\n"
    "  --reload-interval MS   look for new models every MS (default 50)\n"
    "  --retrain-rows N       retrain an app once N runs came since its\n"
    "                         last training (default 20; 0: never by count)\n"
    "  --retrain-interval S   ... or S seconds after its last training,\n"
    "                         with a new run (default 86400; 0: never by\n"
    "                         time)\n"
    "  --retrain-trainer PATH the trainer (default: mpipredict-train in\n"
    "                         mpipredictd's folder)\n"
    "  --retrain-margin PCT   a retrained model goes live when its error on\n"
    "                         held-back runs is at most PCT points above\n"
    "                         the active model's (0 to 100, default 2)\n"
    "  --history METHOD       answer jobs without a model from the user's\n"
    "                         finished jobs: ours, tsafrir, learned, online,\n"
    "                         auto (chosen from the jobs table by replaying\n"
    "                         each) or off (default ours)\n"
    "  --history-procs N      with --history auto: the machine's processors\n"
    "                         (default: the most ntasks running at once in\n"
    "                         the jobs table)\n"
    "  --history-every N      with --history auto: choose again after N new\n"
    "                         finished jobs (default 1000)\n"
    "  --history-guard on|off learned and online answer with Tsafrir's rule\n"
    "                         while their error over their last 64 jobs is\n"
    "                         above Tsafrir's (default on)\n"
    "  --history-loss SPEC    with --history online: its loss, OVER/UNDER/\n"
    "                         THRESHOLD[/WEIGHT] as in mpipredict-replay\n"
    "                         (default the SC'15 study's square:100/abs:1/60)\n"
    "  --history-max-keys N   rebuild the history from the store past N\n"
    "                         users and finer keys (default 262144)\n"
    "  --ui-users yes|no      user names on the staff page (GET /) without\n"
    "                         the token (default: yes when listening on\n"
    "                         loopback only)\n"
    "  --ui-refresh MS        rebuild the page's data when the store\n"
    "                         changed, checked every MS (default 1000)\n"
    "  --extend on|off        extend a running job's Slurm limit when its\n"
    "                         progress predicts it outlives it by at most\n"
    "                         the cap, through scontrol (default off)\n"
    "  --extend-cap-pct PCT   the cap: at most PCT %% of the job's limit\n"
    "                         (default 20) ...\n"
    "  --extend-cap-s S       ... and at most S seconds (default 7200)\n"
    "  --scontrol PATH        the scontrol to run (default: scontrol in\n"
    "                         PATH)\n"
    "  --scontrol-timeout S   kill a scontrol call after S seconds\n"
    "                         (default 10)\n"
    "  --log-level L          error, warn, notice (start, stop, retraining),\n"
    "                         info (a line per request) or debug (default\n"
    "                         notice)\n"
    "  -h, --help, --version\n";

struct options {
	const char *db, *listen, *port_file, *token_file;
	const char *config; /* the file read; NULL: none */
	unsigned long threads, max_body, max_connections, max_features;
	unsigned long idle_timeout, request_timeout, start_timeout;
	unsigned long max_per_ip, keep_rows, keep_days, write_rate;
	unsigned long audit_interval, audit_batch, audit_queue;
	unsigned long reload_interval, ui_refresh;
	int log_level;
	int history; /* history.h method, -1 off, HISTORY_AUTO */
	unsigned long history_procs, history_every;
	int history_guard_off;
	unsigned long history_max_keys;
	mpp_nag_loss history_loss; /* --history-loss */
	int has_history_loss;
	int ui_users; /* -1: by the listen address */
	/* wired in retrain.c */
	unsigned long retrain_rows, retrain_interval;
	const char *retrain_trainer;
	double retrain_margin;
	/* wired in extend.c */
	int extend;
	double extend_cap_pct;
	unsigned long extend_cap_s, scontrol_timeout;
	const char *scontrol;
};

enum {
	O_DB = 256,
	O_LISTEN,
	O_PORT_FILE,
	O_TOKEN_FILE,
	O_THREADS,
	O_MAX_BODY,
	O_MAX_CONN,
	O_MAX_FEATURES,
	O_IDLE,
	O_REQUEST,
	O_AUDIT_INTERVAL,
	O_AUDIT_BATCH,
	O_AUDIT_QUEUE,
	O_RELOAD,
	O_LOG_LEVEL,
	O_START,
	O_PER_IP,
	O_WRITE_RATE,
	O_KEEP_ROWS,
	O_KEEP_DAYS,
	O_HISTORY,
	O_HISTORY_KEYS,
	O_HISTORY_LOSS,
	O_HISTORY_PROCS,
	O_HISTORY_EVERY,
	O_HISTORY_GUARD,
	O_UI_USERS,
	O_UI_REFRESH,
	O_RETRAIN_ROWS,
	O_RETRAIN_INTERVAL,
	O_RETRAIN_TRAINER,
	O_RETRAIN_MARGIN,
	O_EXTEND,
	O_EXTEND_CAP_PCT,
	O_EXTEND_CAP_S,
	O_SCONTROL,
	O_SCONTROL_TIMEOUT,
	O_CONFIG,
	O_HELP,
	O_VERSION,
	O_END
};

/* The command line's options; those with a value are also the keys of the
 * configuration file. */
static const struct option longopts[] = {
    {"db", required_argument, NULL, O_DB},
    {"listen", required_argument, NULL, O_LISTEN},
    {"port-file", required_argument, NULL, O_PORT_FILE},
    {"token-file", required_argument, NULL, O_TOKEN_FILE},
    {"threads", required_argument, NULL, O_THREADS},
    {"max-body", required_argument, NULL, O_MAX_BODY},
    {"max-connections", required_argument, NULL, O_MAX_CONN},
    {"max-features", required_argument, NULL, O_MAX_FEATURES},
    {"idle-timeout", required_argument, NULL, O_IDLE},
    {"request-timeout", required_argument, NULL, O_REQUEST},
    {"audit-interval", required_argument, NULL, O_AUDIT_INTERVAL},
    {"audit-batch", required_argument, NULL, O_AUDIT_BATCH},
    {"audit-queue", required_argument, NULL, O_AUDIT_QUEUE},
    {"reload-interval", required_argument, NULL, O_RELOAD},
    {"log-level", required_argument, NULL, O_LOG_LEVEL},
    {"start-timeout", required_argument, NULL, O_START},
    {"max-connections-per-ip", required_argument, NULL, O_PER_IP},
    {"write-rate", required_argument, NULL, O_WRITE_RATE},
    {"audit-keep-rows", required_argument, NULL, O_KEEP_ROWS},
    {"audit-keep-days", required_argument, NULL, O_KEEP_DAYS},
    {"history", required_argument, NULL, O_HISTORY},
    {"history-max-keys", required_argument, NULL, O_HISTORY_KEYS},
    {"history-loss", required_argument, NULL, O_HISTORY_LOSS},
    {"history-procs", required_argument, NULL, O_HISTORY_PROCS},
    {"history-every", required_argument, NULL, O_HISTORY_EVERY},
    {"history-guard", required_argument, NULL, O_HISTORY_GUARD},
    {"ui-users", required_argument, NULL, O_UI_USERS},
    {"ui-refresh", required_argument, NULL, O_UI_REFRESH},
    {"retrain-rows", required_argument, NULL, O_RETRAIN_ROWS},
    {"retrain-interval", required_argument, NULL, O_RETRAIN_INTERVAL},
    {"retrain-trainer", required_argument, NULL, O_RETRAIN_TRAINER},
    {"retrain-margin", required_argument, NULL, O_RETRAIN_MARGIN},
    {"extend", required_argument, NULL, O_EXTEND},
    {"extend-cap-pct", required_argument, NULL, O_EXTEND_CAP_PCT},
    {"extend-cap-s", required_argument, NULL, O_EXTEND_CAP_S},
    {"scontrol", required_argument, NULL, O_SCONTROL},
    {"scontrol-timeout", required_argument, NULL, O_SCONTROL_TIMEOUT},
    {"config", required_argument, NULL, O_CONFIG},
    {"help", no_argument, NULL, O_HELP},
    {"version", no_argument, NULL, O_VERSION},
    {NULL, 0, NULL, 0},
};

static const char *option_name(int id)
{
	for (const struct option *p = longopts; p->name; p++)
		if (p->val == id)
			return p->name;
	return "?";
}

/* A whole number in [lo, hi] into *out; else -1 with why. */
static int number(const char *v, unsigned long lo, unsigned long hi,
		  unsigned long *out, char *why, size_t whylen)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(v, &end, 10);
	if (*v == '\0' || *end != '\0' || errno || v[0] == '-' || n < lo ||
	    n > hi) {
		snprintf(why, whylen,
			 "expected a number from %lu to %lu, got '%s'", lo, hi,
			 v);
		return -1;
	}
	*out = n;
	return 0;
}

/* One setting, from the command line or the configuration file (the same
 * checks for both). `v` must outlive o. Returns 0, or -1 with why. */
static int set_option(struct options *o, int id, const char *v, char *why,
		      size_t whylen)
{
	switch (id) {
	case O_DB:
	case O_LISTEN:
	case O_PORT_FILE:
	case O_TOKEN_FILE:
	case O_RETRAIN_TRAINER:
	case O_SCONTROL:
		if (*v == '\0') {
			snprintf(why, whylen, "expected a value, got none");
			return -1;
		}
		*(id == O_DB           ? &o->db
		  : id == O_LISTEN     ? &o->listen
		  : id == O_PORT_FILE  ? &o->port_file
		  : id == O_TOKEN_FILE ? &o->token_file
		  : id == O_SCONTROL   ? &o->scontrol
				       : &o->retrain_trainer) = v;
		return 0;
	case O_THREADS:
		return number(v, 1, 256, &o->threads, why, whylen);
	case O_MAX_BODY:
		return number(v, 1, 1UL << 30, &o->max_body, why, whylen);
	case O_MAX_CONN:
		return number(v, 1, 1000000, &o->max_connections, why, whylen);
	case O_MAX_FEATURES:
		return number(v, 1, 10000000, &o->max_features, why, whylen);
	case O_IDLE:
		return number(v, 1, 86400, &o->idle_timeout, why, whylen);
	case O_REQUEST:
		return number(v, 1, 86400, &o->request_timeout, why, whylen);
	case O_START:
		return number(v, 1, 86400, &o->start_timeout, why, whylen);
	case O_PER_IP:
		return number(v, 0, 1000000, &o->max_per_ip, why, whylen);
	case O_WRITE_RATE:
		return number(v, 0, 100000000, &o->write_rate, why, whylen);
	case O_KEEP_ROWS:
		return number(v, 0, 1000000000000UL, &o->keep_rows, why,
			      whylen);
	case O_KEEP_DAYS:
		return number(v, 0, 100000, &o->keep_days, why, whylen);
	case O_AUDIT_INTERVAL:
		return number(v, 1, 3600000, &o->audit_interval, why, whylen);
	case O_AUDIT_BATCH:
		return number(v, 1, 100000, &o->audit_batch, why, whylen);
	case O_AUDIT_QUEUE:
		return number(v, 1, 100000000, &o->audit_queue, why, whylen);
	case O_RELOAD:
		return number(v, 1, 60000, &o->reload_interval, why, whylen);
	case O_HISTORY_PROCS:
		return number(v, 1, 1000000000, &o->history_procs, why, whylen);
	case O_HISTORY_EVERY:
		return number(v, 1, 1000000000, &o->history_every, why, whylen);
	case O_EXTEND:
		if (strcmp(v, "on") && strcmp(v, "off")) {
			snprintf(why, whylen, "expected on or off, got '%s'",
				 v);
			return -1;
		}
		o->extend = strcmp(v, "on") == 0;
		return 0;
	case O_EXTEND_CAP_S:
		return number(v, 1, 31536000, &o->extend_cap_s, why, whylen);
	case O_SCONTROL_TIMEOUT:
		return number(v, 1, 3600, &o->scontrol_timeout, why, whylen);
	case O_EXTEND_CAP_PCT: {
		char *end;
		errno = 0;
		double m = strtod(v, &end);
		if (*v == '\0' || *end != '\0' || errno || !(m > 0) ||
		    m > 1000) {
			snprintf(why, whylen,
				 "expected a percentage above 0, at most 1000 "
				 "(e.g. 20), got '%s'",
				 v);
			return -1;
		}
		o->extend_cap_pct = m;
		return 0;
	}
	case O_HISTORY_GUARD:
		if (strcmp(v, "on") && strcmp(v, "off")) {
			snprintf(why, whylen, "expected on or off, got '%s'",
				 v);
			return -1;
		}
		o->history_guard_off = strcmp(v, "off") == 0;
		return 0;
	case O_HISTORY_KEYS:
		return number(v, 1, 100000000, &o->history_max_keys, why,
			      whylen);
	case O_UI_REFRESH:
		return number(v, 10, 3600000, &o->ui_refresh, why, whylen);
	case O_RETRAIN_ROWS:
		return number(v, 0, 1000000000, &o->retrain_rows, why, whylen);
	case O_RETRAIN_INTERVAL:
		/* Ten years: past that, 0 says "never" better. */
		return number(v, 0, 315360000, &o->retrain_interval, why,
			      whylen);
	case O_RETRAIN_MARGIN: {
		char *end;
		errno = 0;
		double m = strtod(v, &end);
		if (*v == '\0' || *end != '\0' || errno || !(m >= 0) ||
		    m > 100) {
			snprintf(why, whylen,
				 "expected percentage points from 0 to 100 "
				 "(e.g. 2 or 0.5), got '%s'",
				 v);
			return -1;
		}
		o->retrain_margin = m;
		return 0;
	}
	case O_HISTORY_LOSS:
		if (mpp_nag_loss_parse(v, &o->history_loss, why, whylen))
			return -1;
		o->has_history_loss = 1;
		return 0;
	case O_HISTORY:
		if (strcmp(v, "off") == 0)
			o->history = -1;
		else if (strcmp(v, "auto") == 0)
			o->history = HISTORY_AUTO;
		else if (mpp_hist_method_parse(v, &o->history)) {
			snprintf(why, whylen,
				 "expected ours, learned, online, tsafrir, "
				 "auto or off, got '%s'",
				 v);
			return -1;
		}
		return 0;
	case O_LOG_LEVEL:
		o->log_level = mpp_log_parse_level(v);
		if (o->log_level < 0) {
			snprintf(why, whylen,
				 "expected error, warn, notice, info or debug, "
				 "got '%s'",
				 v);
			return -1;
		}
		return 0;
	case O_UI_USERS:
		if (strcmp(v, "yes") && strcmp(v, "no")) {
			snprintf(why, whylen, "expected yes or no, got '%s'",
				 v);
			return -1;
		}
		o->ui_users = strcmp(v, "yes") == 0;
		return 0;
	}
	snprintf(why, whylen, "not a setting");
	return -1;
}

/* The configuration file's values, kept for the whole run (a static root,
 * so they are not leaks); one per option: a key given twice is refused. */
static char *conf_values[O_END - O_DB];

/* conf.h's callback: a key is a long option that takes a value. */
static int conf_set(void *ctx, const char *key, const char *value, char *why,
		    size_t whylen)
{
	const struct option *p = longopts;
	while (p->name &&
	       (strcmp(p->name, key) != 0 || p->has_arg != required_argument ||
		p->val == O_CONFIG))
		p++;
	if (p->name == NULL) {
		snprintf(why, whylen,
			 "unknown key '%s' (the keys are the long options of "
			 "mpipredictd --help)",
			 key);
		return -1;
	}
	char *v = strdup(value);
	if (v == NULL) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	free(conf_values[p->val - O_DB]);
	conf_values[p->val - O_DB] = v;
	char msg[384];
	if (set_option(ctx, p->val, v, msg, sizeof msg) != 0) {
		snprintf(why, whylen, "%s: %s", key, msg);
		return -1;
	}
	return 0;
}

/* The configuration file: --config's (none: no file), else the default's
 * when it exists. Exits 1 for a mistake in it. */
static void read_config(struct options *o, const char *given)
{
	const char *path = given;
	if (path == NULL) {
		const char *env = getenv(CONF_ENV);
		path = env && *env ? env : DEFAULT_CONF;
	}
	if (strcmp(path, "none") == 0)
		return;
	char err[1024];
	int rc =
	    mpp_conf_read(path, "mpipredictd", conf_set, o, err, sizeof err);
	if (rc == MPP_ENOTFOUND && given == NULL)
		return;
	if (rc != MPP_OK) {
		/* err is "FILE:LINE: what" or "FILE: why it cannot be read". */
		fprintf(stderr, "mpipredictd: %s%s\n",
			rc == MPP_EINVAL ? "" : "configuration file ", err);
		exit(1);
	}
	o->config = path;
}

static void parse_options(int argc, char **argv, struct options *o)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	*o = (struct options){
	    .listen = "127.0.0.1:8470",
	    .threads = cpus > 0 ? (unsigned long)cpus : 1,
	    .max_body = 1 << 20,
	    .max_connections = 1024,
	    .max_features = 4096,
	    .idle_timeout = 15,
	    .request_timeout = 10,
	    .start_timeout = 2,
	    .keep_rows = 1000000,
	    .audit_interval = 100,
	    .audit_batch = 512,
	    .audit_queue = 100000,
	    .reload_interval = 50,
	    .log_level = MPP_LOG_DEFAULT,
	    .history = MPP_HIST_OURS,
	    .history_max_keys = 1 << 18,
	    .ui_refresh = 1000,
	    .ui_users = -1,
	    .retrain_rows = 20,
	    .retrain_interval = 86400,
	    .retrain_margin = 2,
	    .write_rate = 600,
	    .extend_cap_pct = 20,
	    .extend_cap_s = 7200,
	    .scontrol = "scontrol",
	    .scontrol_timeout = 10,
	};
	/* Two passes: the first finds --config (and usage mistakes), then
	 * the file is read, then the second pass applies the command line's
	 * values over the file's. */
	const char *config = NULL;
	opterr = 0;
	for (int pass = 0; pass < 2; pass++) {
		optind = 0; /* GNU: start over, reinitialised */
		int c;
		while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) !=
		       -1) {
			char why[384];
			switch (c) {
			case O_CONFIG:
				config = optarg;
				break;
			case 'h':
			case O_HELP:
				fputs(usage, stdout);
				exit(0);
			case O_VERSION:
				printf("mpipredictd " MPP_VERSION "\n");
				exit(0);
			case ':':
				fprintf(stderr,
					"mpipredictd: option '%s' needs a "
					"value (see --help)\n",
					argv[optind - 1]);
				exit(1);
			case '?':
				if (optopt != 0 && optopt < 256)
					fprintf(stderr,
						"mpipredictd: unknown option "
						"'-%c' (see --help)\n",
						optopt);
				else
					fprintf(stderr,
						"mpipredictd: unknown option "
						"'%s' (see --help)\n",
						argv[optind - 1]);
				exit(1);
			default:
				if (pass == 1 &&
				    set_option(o, c, optarg, why, sizeof why)) {
					fprintf(stderr,
						"mpipredictd: --%s: %s\n",
						option_name(c), why);
					exit(1);
				}
			}
		}
		if (optind < argc) {
			fprintf(stderr,
				"mpipredictd: unexpected argument '%s' (see "
				"--help)\n",
				argv[optind]);
			exit(1);
		}
		if (pass == 0)
			read_config(o, config);
	}
	if (o->db == NULL) {
		fprintf(stderr, "mpipredictd: --db FILE is required (or db = "
				"FILE in the configuration file)\n");
		exit(1);
	}
	if (o->has_history_loss && o->history != MPP_HIST_ONLINE) {
		fprintf(stderr, "mpipredictd: --history-loss: only with "
				"--history online\n");
		exit(1);
	}
	if (o->retrain_trainer == NULL)
		o->retrain_trainer = beside_me("mpipredict-train");
}

/* The token: the file's first line without surrounding blanks. */
static char *read_token(const char *path)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "mpipredictd: %s: %s\n", path, strerror(errno));
		exit(2);
	}
	char line[4096];
	char *got = fgets(line, sizeof line, f);
	fclose(f);
	char *p = got ? line + strspn(line, " \t") : line;
	size_t n = got ? strcspn(p, "\r\n") : 0;
	while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	if (n == 0) {
		fprintf(stderr, "mpipredictd: %s: line 1: empty token\n", path);
		exit(2);
	}
	return strndup(p, n);
}

/* Enough descriptors for the connection limit (root may raise the hard
 * limit too). */
static void raise_fd_limit(unsigned long conns)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		return;
	rlim_t want = (rlim_t)conns + 64;
	if (rl.rlim_cur >= want)
		return;
	if (rl.rlim_max < want) {
		struct rlimit more = {want, want};
		if (setrlimit(RLIMIT_NOFILE, &more) == 0)
			return;
		want = rl.rlim_max;
	}
	rl.rlim_cur = want;
	if (setrlimit(RLIMIT_NOFILE, &rl) != 0 ||
	    rl.rlim_cur < (rlim_t)conns + 64)
		mpp_log(MPP_LOG_WARN,
			"only %llu file descriptors for %lu connections",
			(unsigned long long)rl.rlim_cur, conns);
}

/* Whether --listen names a loopback address only (127.0.0.0/8, ::1,
 * localhost): then only local users can read the page. */
static int loopback(const char *listen)
{
	return strncmp(listen, "127.", 4) == 0 ||
	       strncmp(listen, "localhost:", 10) == 0 ||
	       strncmp(listen, "[::1]:", 6) == 0;
}

/* The store and its -wal and -shm hold user names, uids and job ids: a
 * file that other users can read or write gets a warning with the command
 * that fixes it. (SQLite gives -wal and -shm the store's own mode.) */
static void check_store_modes(const char *db)
{
	static const char *const suffix[] = {"", "-wal", "-shm"};
	for (size_t i = 0; i < sizeof suffix / sizeof *suffix; i++) {
		char path[PATH_MAX];
		struct stat st;
		snprintf(path, sizeof path, "%s%s", db, suffix[i]);
		if (stat(path, &st) != 0 || (st.st_mode & 0007) == 0)
			continue;
		mpp_log(MPP_LOG_WARN,
			"store file %s is open to other users (mode %04o): "
			"any local user can read its user names and job ids; "
			"run: chmod o-rwx %s",
			path, (unsigned)(st.st_mode & 07777), path);
	}
}

/* A token file every local user can read lets any of them write rows; its
 * group may read it (users' jobs send rows through their group). */
static void check_token_mode(const char *path)
{
	struct stat st;
	if (stat(path, &st) != 0 || (st.st_mode & 0004) == 0)
		return;
	mpp_log(MPP_LOG_WARN,
		"token file %s is readable by every local user (mode %04o), "
		"so any of them can add rows to the store; run: chmod o-rwx "
		"%s (and give the users' jobs its group)",
		path, (unsigned)(st.st_mode & 07777), path);
}

/* The address actually listened on: --listen with the port the system
 * picked for port 0. */
static void listen_address(const char *listen, unsigned port, char *out,
			   size_t outlen)
{
	const char *colon = strrchr(listen, ':');
	int host = colon ? (int)(colon - listen) : (int)strlen(listen);
	snprintf(out, outlen, "%.*s:%u", host, listen, port);
}

static int write_port_file(const char *path, unsigned port)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "%u\n", port);
	if (fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

int main(int argc, char **argv)
{
	struct options o;
	parse_options(argc, argv, &o);
	mpp_log_set_level(o.log_level);
	/* At least 027 before anything is created: the store (and its -wal
	 * and -shm, which take its mode) is not for other users. */
	mode_t mask = umask(0);
	umask(mask | 027);
	char *token = o.token_file ? read_token(o.token_file) : NULL;
	if (token)
		check_token_mode(o.token_file);

	/* Every thread started from here on inherits this mask, so only
	 * sigwait() below sees SIGTERM and SIGINT. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	/* Past a file size limit (ulimit -f), a write must fail with EFBIG
	 * (a failing store: retried, /healthz says so), not kill the
	 * daemon. */
	signal(SIGXFSZ, SIG_IGN);
	raise_fd_limit(o.max_connections);

	char err[512];
	int status = 0;
	mpp_http *http = NULL;
	mpp_keeper *keeper = NULL;
	mpp_retrain *retrain = NULL;
	mpp_histsvc *history = NULL;
	mpp_ui ui = {0};
	mpp_cache cache;
	mpp_audit *audit = mpp_audit_new(o.audit_queue, o.audit_batch);
	if (audit == NULL) {
		fprintf(stderr, "mpipredictd: out of memory\n");
		status = 2;
		goto out;
	}
	check_store_modes(o.db);
	if (mpp_keeper_start(o.db, (int)o.audit_interval,
			     (int)o.reload_interval, o.audit_batch, audit,
			     &cache, &keeper, err, sizeof err) != MPP_OK) {
		/* The store's messages do not always name the file. */
		if (strstr(err, o.db) != NULL)
			fprintf(stderr, "mpipredictd: %s\n", err);
		else
			fprintf(stderr, "mpipredictd: %s: %s\n", o.db, err);
		status = 2;
		goto out;
	}
	mpp_keeper_set_retention(keeper, (double)o.keep_days * 86400.0,
				 (long long)o.keep_rows);
	/* After the keeper: it created or migrated the store. */
	mpp_histsvc_guard(!o.history_guard_off);
	mpp_histsvc_auto hauto = {.procs = (int)o.history_procs,
				  .margin = -1,
				  .every = o.history_every};
	if (o.history == HISTORY_AUTO &&
	    mpp_histsvc_open_auto(o.db, &hauto, o.history_max_keys, &history,
				  err, sizeof err)) {
		fprintf(stderr, "mpipredictd: %s: history: %s\n", o.db, err);
		status = 2;
		goto out;
	}
	if (o.history >= 0 && o.history != HISTORY_AUTO &&
	    mpp_histsvc_open(o.db, o.history,
			     o.has_history_loss ? &o.history_loss : NULL,
			     o.history_max_keys, &history, err, sizeof err)) {
		fprintf(stderr, "mpipredictd: %s: history: %s\n", o.db, err);
		status = 2;
		goto out;
	}
	if (history)
		mpp_keeper_set_history(keeper, history);
	/* After the keeper, which creates the store: the page reads it. */
	if (mpp_ui_store_start(o.db, (int)o.ui_refresh, &ui.store, err,
			       sizeof err) != 0) {
		fprintf(stderr, "mpipredictd: page: %s\n", err);
		status = 2;
		goto out;
	}
	ui.users_shown = o.ui_users >= 0 ? o.ui_users : loopback(o.listen);
	mpp_api api = {
	    .ui = &ui,
	    .cache = &cache,
	    .audit = audit,
	    .db_path = o.db,
	    .token = token,
	    .max_features = o.max_features,
	    .history = history,
	    .keeper = keeper,
	};
	mpp_http_config hc = {
	    .listen = o.listen,
	    .threads = (unsigned)o.threads,
	    .max_connections = (unsigned)o.max_connections,
	    .idle_timeout_s = (unsigned)o.idle_timeout,
	    .request_timeout_s = (unsigned)o.request_timeout,
	    .start_timeout_s = (unsigned)o.start_timeout,
	    .max_per_ip = (unsigned)o.max_per_ip,
	    .write_rate = (unsigned)o.write_rate,
	    .max_body = o.max_body,
	};
	int rc = mpp_http_start(&hc, &api, &http, err, sizeof err);
	if (rc != 0) {
		fprintf(stderr, "mpipredictd: %s\n", err);
		/* A malformed --listen is a usage error; a busy port is not. */
		status = rc == MPP_EINVAL ? 1 : 2;
		http = NULL;
		goto out;
	}
	if (o.port_file &&
	    write_port_file(o.port_file, mpp_http_port(http)) != 0) {
		fprintf(stderr, "mpipredictd: %s: %s\n", o.port_file,
			strerror(errno));
		status = 2;
		goto out;
	}
	/* After the keeper, which created the store the trainer reads. */
	mpp_retrain_config rc_conf = {
	    .db_path = o.db,
	    .trainer = o.retrain_trainer,
	    .rows = o.retrain_rows,
	    .interval_s = o.retrain_interval,
	    .margin = o.retrain_margin,
	    .poll_ms = 1000,
	};
	if (mpp_retrain_start(&rc_conf, &retrain, err, sizeof err) != 0) {
		fprintf(stderr, "mpipredictd: %s\n", err);
		status = 2;
		goto out;
	}
	if (o.extend) {
		mpp_extend_config ec = {
		    .db_path = o.db,
		    .scontrol = o.scontrol,
		    .cap_pct = o.extend_cap_pct,
		    .cap_s = (double)o.extend_cap_s,
		    .timeout_s = (double)o.scontrol_timeout,
		};
		if (mpp_extend_start(&ec, err, sizeof err) != 0) {
			fprintf(stderr, "mpipredictd: %s\n", err);
			status = 2;
			goto out;
		}
		mpp_log(MPP_LOG_NOTICE,
			"extend: on: a running job predicted to outlive its "
			"limit by at most %g %% of it and %lu s is extended "
			"through %s",
			o.extend_cap_pct, o.extend_cap_s, o.scontrol);
	}
	char retraining[128];
	if (retrain == NULL)
		snprintf(retraining, sizeof retraining, "retraining off");
	else
		snprintf(retraining, sizeof retraining,
			 "retraining after %lu new runs or %lu s",
			 o.retrain_rows, o.retrain_interval);
	/* The one line at the default level that says what runs: enough
	 * for an admin to see which store, schema and file were taken. */
	char addr[300], store_path[PATH_MAX];
	listen_address(o.listen, mpp_http_port(http), addr, sizeof addr);
	mpp_snapshot *snap = mpp_cache_acquire(&cache);
	size_t nmodels = mpp_snapshot_count(snap);
	mpp_snapshot_release(snap);
	mpp_log(MPP_LOG_NOTICE,
		"mpipredictd " MPP_VERSION ": store %s (schema %d), %zu active "
		"model%s, listening on %s (%lu thread%s), %s, config %s",
		realpath(o.db, store_path) ? store_path : o.db,
		mpp_keeper_schema(keeper), nmodels, nmodels == 1 ? "" : "s",
		addr, o.threads, o.threads == 1 ? "" : "s", retraining,
		o.config ? o.config : "none");

	int sig;
	sigwait(&stop, &sig);
	mpp_log(MPP_LOG_NOTICE, "mpipredictd " MPP_VERSION ": %s, stopping",
		strsignal(sig));
out:
	/* Requests first, then the audit writer (which flushes), then the
	 * models nobody can use any more. */
	if (http)
		mpp_http_stop(http);
	mpp_retrain_stop(retrain);
	mpp_extend_stop();
	mpp_ui_store_stop(ui.store);
	if (keeper && mpp_keeper_stop(keeper) != 0) {
		/* The store thread is stuck in SQLite and still uses the queue
		 * and the cache: leave them to the exit. */
		free(token);
		return status;
	}
	if (keeper)
		mpp_cache_destroy(&cache);
	mpp_histsvc_free(history);
	mpp_audit_free(audit);
	free(token);
	return status;
}
