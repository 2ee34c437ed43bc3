/*
 * fake-predictd.c: a stand-in for mpipredictd that misbehaves on purpose, for
 * the job_submit plugin's tests and benchmark (failure injection).
 *
 *   fake-predictd --mode MODE --port-file F [--log F] [--answer R,L,U]
 *                 [--apps A,B,...] [--delay-ms MS]
 *
 * Listens on 127.0.0.1 (a free port, written to --port-file once ready) and
 * answers every POST /v1/predict according to MODE:
 *   ok        after MS milliseconds (default 0), 200 with runtime R,
 *             interval [L,U], model version 7, for the apps listed (default
 *             jacobi); 404 for any other app, 400 when none is found
 *   hang      accepts, reads the request, and never answers
 *   garbage   200 with a body that is not JSON
 *   error     500
 *   refuse    400 (the daemon rejects the request)
 * The app is found as mpipredictd finds it: the request's "app", else what
 * the daemon's own batch-script reader (server/script.c, linked in) finds in
 * "script". For a job without a script (srun, salloc) it is what the same
 * reader finds in "submit_line" (Slurm 22.05 gives job_submit only argv[0]
 * of an srun and no argv at all for salloc: the whole command is in the
 * submit line), else the basename of argv[0].
 * Each request's body is appended to --log as one line, so a test can count
 * calls and check what the plugin sent. Runs until SIGTERM or SIGINT.
 *
 * Not for: anything but tests; it has no model at all.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <jansson.h>
#include <microhttpd.h>

#include "server/script.h"

enum mode { OK, HANG, GARBAGE, ERROR, REFUSE };

static enum mode mode;
static FILE *log_file;
static double answer[3] = {300, 280, 330};
static const char *apps = "jacobi";
static long delay_ms;

struct request {
	char *body;
	size_t len;
};

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status,
			     const char *text)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    strlen(text), (void *)text, MHD_RESPMEM_MUST_COPY);
	enum MHD_Result ret;

	MHD_add_response_header(r, "Content-Type", "application/json");
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

/* True when app is one of the comma-separated apps. */
static int known_app(const char *app)
{
	size_t n = strlen(app);

	for (const char *p = apps; *p;) {
		size_t k = strcspn(p, ",");

		if (k == n && !strncmp(p, app, n))
			return 1;
		p += k + (p[k] == ',');
	}
	return 0;
}

/* The answer for a well-formed request in mode ok, built with jansson. */
static enum MHD_Result answer_ok(struct MHD_Connection *conn,
				 const struct request *rq)
{
	json_t *in = json_loadb(rq->body ? rq->body : "", rq->len, 0, NULL);
	json_t *argv0 = json_array_get(json_object_get(in, "argv"), 0);
	const char *app = json_string_value(json_object_get(in, "app"));
	const char *script = json_string_value(json_object_get(in, "script"));
	const char *line =
	    json_string_value(json_object_get(in, "submit_line"));
	mpp_script_job job = {0};
	char err[256], name[256] = "";
	enum MHD_Result ret;
	char *text;
	json_t *out;

	if (!app && script &&
	    !mpp_script_parse(script, strlen(script), &job, err, sizeof(err)))
		app = job.app ? job.app : job.exe;
	if (!app && !script && line &&
	    !mpp_script_parse(line, strlen(line), &job, err, sizeof(err)))
		app = job.exe;
	if (!app && !script)
		app = json_string_value(argv0);
	if (app)
		snprintf(name, sizeof(name), "%s",
			 strrchr(app, '/') ? strrchr(app, '/') + 1 : app);
	mpp_script_job_free(&job);
	json_decref(in);
	if (!name[0])
		return reply(conn, 400, "{\"error\":\"app: missing\"}");
	if (!known_app(name))
		return reply(conn, 404, "{\"error\":\"app: no model\"}");
	if (delay_ms)
		usleep(delay_ms * 1000);
	out = json_pack("{s:s, s:{s:i, s:i}, s:f, s:f, s:f, s:s}", "app", name,
			"model", "id", 1, "version", 7, "runtime_s", answer[0],
			"lower_s", answer[1], "upper_s", answer[2], "basis",
			"parameters");
	text = json_dumps(out, JSON_COMPACT);
	ret = reply(conn, 200, text);
	free(text);
	json_decref(out);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct request *rq = *state;

	(void)cls;
	(void)version;
	if (!rq) {
		*state = rq = calloc(1, sizeof(*rq));
		return rq ? MHD_YES : MHD_NO;
	}
	if (*upload_size) {
		char *b = realloc(rq->body, rq->len + *upload_size + 1);

		if (!b)
			return MHD_NO;
		memcpy(b + rq->len, upload, *upload_size);
		rq->body = b;
		rq->len += *upload_size;
		rq->body[rq->len] = '\0';
		*upload_size = 0;
		return MHD_YES;
	}
	if (log_file) {
		fprintf(log_file, "%s\n", rq->body ? rq->body : "");
		fflush(log_file);
	}
	if (strcmp(method, "POST") || strcmp(url, "/v1/predict"))
		return reply(conn, 404, "{\"error\":\"no such path\"}");
	switch (mode) {
	case HANG:
		/* This connection's own thread; it ends with the process. */
		for (;;)
			sleep(3600);
	case GARBAGE:
		return reply(conn, 200, "<html>this is not json {");
	case ERROR:
		return reply(conn, 500, "{\"error\":\"injected\"}");
	case REFUSE:
		return reply(conn, 400, "{\"error\":\"ntasks: injected\"}");
	case OK:
		break;
	}
	return answer_ok(conn, rq);
}

static void done(void *cls, struct MHD_Connection *conn, void **state,
		 enum MHD_RequestTerminationCode why)
{
	struct request *rq = *state;

	(void)cls;
	(void)conn;
	(void)why;
	if (rq)
		free(rq->body);
	free(rq);
	*state = NULL;
}

static int usage(FILE *f, int rc)
{
	fprintf(f, "usage: fake-predictd --mode ok|hang|garbage|error|refuse "
		   "--port-file FILE [--log FILE] [--answer R,L,U] "
		   "[--apps A,B,...] [--delay-ms MS]\n");
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"mode", required_argument, NULL, 'm'},
	    {"port-file", required_argument, NULL, 'p'},
	    {"log", required_argument, NULL, 'l'},
	    {"answer", required_argument, NULL, 'a'},
	    {"apps", required_argument, NULL, 'A'},
	    {"delay-ms", required_argument, NULL, 'd'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *port_file = NULL, *modes = "ok";
	char tmp[4096];
	struct sockaddr_in sa = {.sin_family = AF_INET};
	const union MHD_DaemonInfo *info;
	struct MHD_Daemon *d;
	sigset_t set;
	FILE *pf;
	int c, sig;

	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			modes = optarg;
			break;
		case 'p':
			port_file = optarg;
			break;
		case 'l':
			if (!(log_file = fopen(optarg, "a"))) {
				perror(optarg);
				return 2;
			}
			break;
		case 'a':
			if (sscanf(optarg, "%lf,%lf,%lf", &answer[0],
				   &answer[1], &answer[2]) != 3)
				return usage(stderr, 1);
			break;
		case 'A':
			apps = optarg;
			break;
		case 'd':
			delay_ms = atol(optarg);
			break;
		case 'h':
			return usage(stdout, 0);
		default:
			return usage(stderr, 1);
		}
	}
	if (!strcmp(modes, "ok"))
		mode = OK;
	else if (!strcmp(modes, "hang"))
		mode = HANG;
	else if (!strcmp(modes, "garbage"))
		mode = GARBAGE;
	else if (!strcmp(modes, "error"))
		mode = ERROR;
	else if (!strcmp(modes, "refuse"))
		mode = REFUSE;
	else
		return usage(stderr, 1);
	if (!port_file || optind != argc)
		return usage(stderr, 1);

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD |
				 MHD_USE_THREAD_PER_CONNECTION,
			     0, NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR,
			     &sa, MHD_OPTION_NOTIFY_COMPLETED, done, NULL,
			     MHD_OPTION_CONNECTION_TIMEOUT, 0u, MHD_OPTION_END);
	if (!d) {
		fprintf(stderr, "fake-predictd: cannot listen\n");
		return 2;
	}
	info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
	/* Written whole, then renamed: a poller never reads half. */
	snprintf(tmp, sizeof(tmp), "%s.tmp", port_file);
	if (!info || !(pf = fopen(tmp, "w")) ||
	    fprintf(pf, "%u\n", (unsigned)info->port) < 0 || fclose(pf) ||
	    rename(tmp, port_file)) {
		fprintf(stderr, "fake-predictd: cannot write %s\n", port_file);
		_exit(2);
	}
	sigwait(&set, &sig);
	/* Hung connections' threads (mode hang) end with the process. */
	_exit(0);
}
