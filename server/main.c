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
#include <unistd.h>

#include "server/api.h"
#include "server/audit.h"
#include "server/cache.h"
#include "server/http.h"
#include "history/history.h"
#include "history/nag.h"
#include "server/hist.h"
#include "server/keeper.h"
#include "server/log.h"
#include "server/ui.h"

static const char usage[] =
    "usage: mpipredictd --db FILE [options]\n"
    "Answers runtime predictions over HTTP from the models in FILE.\n"
    "\n"
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
    "  --history METHOD       answer jobs without a model from the user's\n"
    "                         finished jobs: ours, tsafrir, learned, online\n"
    "                         or off\n"
    "                         (default ours)\n"
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
    "  --log-level L          error, warn, info (a line per request) or\n"
    "                         debug (default warn)\n"
    "  --help, --version\n";

struct options {
	const char *db, *listen, *port_file, *token_file;
	unsigned long threads, max_body, max_connections, max_features;
	unsigned long idle_timeout, request_timeout, start_timeout;
	unsigned long max_per_ip, keep_rows, keep_days;
	unsigned long audit_interval, audit_batch, audit_queue;
	unsigned long reload_interval, ui_refresh;
	int log_level;
	int history; /* history.h method, -1 off */
	unsigned long history_max_keys;
	mpp_nag_loss history_loss; /* --history-loss */
	int has_history_loss;
	int ui_users; /* -1: by the listen address */
};

/* A whole number in [lo, hi] for option `name`; exits 1 otherwise. */
static unsigned long number(const char *name, const char *v, unsigned long lo,
			    unsigned long hi)
{
	char *end;
	errno = 0;
	unsigned long n = strtoul(v, &end, 10);
	if (*v == '\0' || *end != '\0' || errno || v[0] == '-' || n < lo ||
	    n > hi) {
		fprintf(stderr,
			"mpipredictd: --%s: expected a number from %lu to %lu, "
			"got '%s'\n",
			name, lo, hi, v);
		exit(1);
	}
	return n;
}

static void parse_options(int argc, char **argv, struct options *o)
{
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
		O_KEEP_ROWS,
		O_KEEP_DAYS,
		O_HISTORY,
		O_HISTORY_KEYS,
		O_HISTORY_LOSS,
		O_UI_USERS,
		O_UI_REFRESH,
		O_HELP,
		O_VERSION
	};
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
	    {"audit-keep-rows", required_argument, NULL, O_KEEP_ROWS},
	    {"audit-keep-days", required_argument, NULL, O_KEEP_DAYS},
	    {"history", required_argument, NULL, O_HISTORY},
	    {"history-max-keys", required_argument, NULL, O_HISTORY_KEYS},
	    {"history-loss", required_argument, NULL, O_HISTORY_LOSS},
	    {"ui-users", required_argument, NULL, O_UI_USERS},
	    {"ui-refresh", required_argument, NULL, O_UI_REFRESH},
	    {"help", no_argument, NULL, O_HELP},
	    {"version", no_argument, NULL, O_VERSION},
	    {NULL, 0, NULL, 0},
	};
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
	    .log_level = MPP_LOG_WARN,
	    .history = MPP_HIST_OURS,
	    .history_max_keys = 1 << 18,
	    .ui_refresh = 1000,
	    .ui_users = -1,
	};
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case O_DB:
			o->db = optarg;
			break;
		case O_LISTEN:
			o->listen = optarg;
			break;
		case O_PORT_FILE:
			o->port_file = optarg;
			break;
		case O_TOKEN_FILE:
			o->token_file = optarg;
			break;
		case O_THREADS:
			o->threads = number("threads", optarg, 1, 256);
			break;
		case O_MAX_BODY:
			o->max_body = number("max-body", optarg, 1, 1UL << 30);
			break;
		case O_MAX_CONN:
			o->max_connections =
			    number("max-connections", optarg, 1, 1000000);
			break;
		case O_MAX_FEATURES:
			o->max_features =
			    number("max-features", optarg, 1, 10000000);
			break;
		case O_IDLE:
			o->idle_timeout =
			    number("idle-timeout", optarg, 1, 86400);
			break;
		case O_REQUEST:
			o->request_timeout =
			    number("request-timeout", optarg, 1, 86400);
			break;
		case O_START:
			o->start_timeout =
			    number("start-timeout", optarg, 1, 86400);
			break;
		case O_PER_IP:
			o->max_per_ip = number("max-connections-per-ip", optarg,
					       0, 1000000);
			break;
		case O_KEEP_ROWS:
			o->keep_rows = number("audit-keep-rows", optarg, 0,
					      1000000000000UL);
			break;
		case O_KEEP_DAYS:
			o->keep_days =
			    number("audit-keep-days", optarg, 0, 100000);
			break;
		case O_AUDIT_INTERVAL:
			o->audit_interval =
			    number("audit-interval", optarg, 1, 3600000);
			break;
		case O_AUDIT_BATCH:
			o->audit_batch =
			    number("audit-batch", optarg, 1, 100000);
			break;
		case O_AUDIT_QUEUE:
			o->audit_queue =
			    number("audit-queue", optarg, 1, 100000000);
			break;
		case O_RELOAD:
			o->reload_interval =
			    number("reload-interval", optarg, 1, 60000);
			break;
		case O_HISTORY_KEYS:
			o->history_max_keys =
			    number("history-max-keys", optarg, 1, 100000000);
			break;
		case O_HISTORY_LOSS: {
			char why[256];
			if (mpp_nag_loss_parse(optarg, &o->history_loss, why,
					       sizeof(why))) {
				fprintf(stderr,
					"mpipredictd: --history-loss: %s\n",
					why);
				exit(1);
			}
			o->has_history_loss = 1;
			break;
		}
		case O_HISTORY:
			if (strcmp(optarg, "off") == 0)
				o->history = -1;
			else if (mpp_hist_method_parse(optarg, &o->history)) {
				fprintf(stderr,
					"mpipredictd: --history: expected "
					"ours, learned, online, "
					"tsafrir or off, got '%s'\n",
					optarg);
				exit(1);
			}
			break;
		case O_LOG_LEVEL:
			o->log_level = mpp_log_parse_level(optarg);
			if (o->log_level < 0) {
				fprintf(stderr,
					"mpipredictd: --log-level: expected "
					"error, warn, info or debug, got "
					"'%s'\n",
					optarg);
				exit(1);
			}
			break;
		case O_UI_USERS:
			if (strcmp(optarg, "yes") && strcmp(optarg, "no")) {
				fprintf(stderr,
					"mpipredictd: --ui-users: expected yes "
					"or no, got '%s'\n",
					optarg);
				exit(1);
			}
			o->ui_users = strcmp(optarg, "yes") == 0;
			break;
		case O_UI_REFRESH:
			o->ui_refresh =
			    number("ui-refresh", optarg, 10, 3600000);
			break;
		case O_HELP:
			fputs(usage, stdout);
			exit(0);
		case O_VERSION:
			printf("mpipredictd " MPP_VERSION "\n");
			exit(0);
		case ':':
			fprintf(stderr,
				"mpipredictd: option '%s' needs a value\n",
				argv[optind - 1]);
			exit(1);
		default:
			if (optopt != 0 && optopt < 256)
				fprintf(stderr,
					"mpipredictd: unknown option '-%c'\n",
					optopt);
			else
				fprintf(stderr,
					"mpipredictd: unknown option '%s'\n",
					argv[optind - 1]);
			exit(1);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "mpipredictd: unexpected argument '%s'\n",
			argv[optind]);
		exit(1);
	}
	if (o->db == NULL) {
		fprintf(stderr, "mpipredictd: --db FILE is required\n");
		exit(1);
	}
	if (o->has_history_loss && o->history != MPP_HIST_ONLINE) {
		fprintf(stderr, "mpipredictd: --history-loss: only with "
				"--history online\n");
		exit(1);
	}
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
	char *token = o.token_file ? read_token(o.token_file) : NULL;

	/* Every thread started from here on inherits this mask, so only
	 * sigwait() below sees SIGTERM and SIGINT. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	signal(SIGPIPE, SIG_IGN);
	raise_fd_limit(o.max_connections);

	char err[512];
	int status = 0;
	mpp_http *http = NULL;
	mpp_keeper *keeper = NULL;
	mpp_histsvc *history = NULL;
	mpp_ui ui = {0};
	mpp_cache cache;
	mpp_audit *audit = mpp_audit_new(o.audit_queue, o.audit_batch);
	if (audit == NULL) {
		fprintf(stderr, "mpipredictd: out of memory\n");
		status = 2;
		goto out;
	}
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
	if (o.history >= 0 &&
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
	};
	mpp_http_config hc = {
	    .listen = o.listen,
	    .threads = (unsigned)o.threads,
	    .max_connections = (unsigned)o.max_connections,
	    .idle_timeout_s = (unsigned)o.idle_timeout,
	    .request_timeout_s = (unsigned)o.request_timeout,
	    .start_timeout_s = (unsigned)o.start_timeout,
	    .max_per_ip = (unsigned)o.max_per_ip,
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
	mpp_log(MPP_LOG_INFO, "listening on %s (port %u), %lu threads",
		o.listen, mpp_http_port(http), o.threads);

	int sig;
	sigwait(&stop, &sig);
	mpp_log(MPP_LOG_INFO, "%s: shutting down", strsignal(sig));
out:
	/* Requests first, then the audit writer (which flushes), then the
	 * models nobody can use any more. */
	if (http)
		mpp_http_stop(http);
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
