/*
 * http.c: libmicrohttpd glue for mpipredictd (see http.h).
 *
 * MHD calls on_request() once when a request's headers are in, then once per
 * chunk of body, then once more at the end. Everything that can be decided
 * from the headers (unknown path 404, wrong method 405, missing or wrong
 * token 401/403, Content-Length over the limit 413) is answered at the
 * first call, before MHD reads a byte of the body or sends
 * "100 Continue". A body without a length (chunked) is counted as it
 * streams; MHD cannot answer in the middle of a body, so when it passes the
 * limit the connection is closed at once (counted as a 413).
 *
 * MHD's own timeout is an idle timeout, which a client sending one byte a
 * second never hits. So each connection is registered with a deadline: a
 * short one (--start-timeout) until its request line is in (MHD's URI
 * callback), so that connections that send nothing cannot hold the
 * connection slots for long, then --request-timeout for the whole request,
 * and the short one again between requests. A reaper thread shuts down the
 * socket of any connection past its deadline, and MHD then closes it in
 * its own thread.
 * The registry's lock is held while MHD reports a connection closed, which
 * it does before closing the socket, so the reaper never touches a socket
 * number that was reused.
 *
 * POST /v1/runs and /v1/jobs write to the store, which can wait for SQLite's
 * busy timeout: its connection is suspended and the body handed to the ingest
 * thread (ingest.h), which resumes the connection with the answer ready.
 * The connection is suspended before the job is submitted, so a resume
 * can never come first.
 */
#include "server/http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <linux/tcp.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "server/ingest.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/progress.h"
#include "server/ui.h"

/* Where a connection is, for the reaper: waiting for a request's first
 * byte (the start deadline), or inside a request (the request deadline). */
enum { CONN_IDLE, CONN_REQUEST };

struct conn {
	struct conn *prev, *next;
	int fd;
	_Atomic int64_t deadline_ns; /* 0: none (answering) */
	atomic_int phase;            /* CONN_IDLE or CONN_REQUEST */
	/* The kernel's count of bytes received on the socket when the
	 * connection went idle: more since means a request has begun,
	 * whether or not the event loop has read it yet. */
	_Atomic uint64_t rx_base;
	atomic_int waived; /* the start deadline waived once (in flight) */
	atomic_int reaped; /* shut down by the reaper: not client_closed */
	atomic_int ui;     /* its last request was the staff page */
	struct req *req;   /* its request between the request line and
			      on_completed; freed at close if MHD never
			      completes it (a request line it cannot parse) */
};

struct mpp_http {
	struct MHD_Daemon *d;
	const mpp_api *api;
	mpp_ingest *ingest;
	mpp_http_config cfg;
	struct sockaddr_storage addr;
	unsigned port;

	/* The listening socket is ours, accepted from by a thread of ours
	 * and handed to MHD (MHD_add_connection): MHD 0.9.75's poll(2) loop
	 * accepts one connection per turn, so 1,024 clients arriving at
	 * once waited hundreds of turns in the backlog, their first
	 * requests with them. */
	int lfd;
	pthread_t acceptor;
	int acceptor_started;
	atomic_int accept_stop;
	pthread_mutex_t open_lock;
	pthread_cond_t open_cond;
	unsigned open; /* handed to MHD and not closed yet */
	int bare;      /* the bench baseline: no deadlines, routes, metrics */

	pthread_mutex_t conns_lock;
	struct conn *conns;
	pthread_t reaper;
	int reaper_started;
	pthread_mutex_t stop_lock;
	pthread_cond_t stop_cond;
	int stopping;
	/* POST /v1/runs requests handed to the ingest thread and not yet
	 * completed: waited for at shutdown, so that they get their answer
	 * (the 503 of a body still waiting), not a bare close. */
	atomic_int runs_open;
	/* The writers' token bucket (cfg.write_rate): a flood of rows from
	 * one token (a job array ending at once, a runaway script) is told
	 * to come back (429) instead of taking the store's write lock from
	 * the audit and the trainer. Forwarders keep what gets a 429. */
	pthread_mutex_t bucket_lock;
	double bucket, bucket_at;
};

/* One request's state, from its request line to its answer. */
struct req {
	int ep;
	int started;    /* on_request has seen it */
	int nul_in_uri; /* "%00" in the request line: refused */
	int answered, status;
	int64_t start_ns;
	char method[8];
	char path[128];
	char *body;
	size_t len, cap;
	/* POST /v1/runs: answered by the ingest thread. */
	struct MHD_Connection *conn;
	int submitted;
	atomic_int ready;
	mpp_reply reply;
};

/* More query parameters than this, or a request line longer than this,
 * are answered 414 at the request line: the daemon reads none of them,
 * and libmicrohttpd 0.9.75 stalls (no answer, the connection held until
 * the deadline) or closes the connection without an answer when the
 * parameters' records overflow its per-connection memory pool (CONN_POOL:
 * about 300 short ones did in 32 KiB; 100 of 10 KiB in all in 16 KiB). */
#define MAX_QUERY_PARAMS 100
#define MAX_URI          8192

/* Each connection's memory pool (MHD's default: 32 KiB), which holds a
 * request's headers and MHD's buffers. MHD 0.9.75 zeroes the whole pool
 * after every request: 32 KiB a request, and with 1,024 connections 32 MiB
 * of pools, as much as the L3 cache, went through the cache. 16 KiB still
 * holds headers of about 15 KiB (a larger header block gets 431). */
#define CONN_POOL (16 * 1024)

static int64_t secs_ns(unsigned s)
{
	return (int64_t)s * 1000000000;
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* The bytes the kernel has received on a TCP socket since it opened
 * (TCP_INFO, Linux 4.1), read or not; 0 when it cannot tell. */
static uint64_t rx_bytes(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof ti;
	memset(&ti, 0, sizeof ti);
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len) != 0 ||
	    len < offsetof(struct tcp_info, tcpi_bytes_received) +
		      sizeof ti.tcpi_bytes_received)
		return 0;
	return ti.tcpi_bytes_received;
}

/* Whether an idle connection has a request in flight: bytes waiting
 * unread in the socket (the event loop is behind), or received since it
 * went idle (read by MHD, the request line not whole yet). A connection
 * like that is not idle, whatever its deadline says. */
static int request_begun(struct conn *k)
{
	int unread = 0;
	if (ioctl(k->fd, FIONREAD, &unread) == 0 && unread > 0)
		return 1;
	uint64_t rx = rx_bytes(k->fd);
	return rx > atomic_load_explicit(&k->rx_base, memory_order_relaxed);
}

/* ---- listen address --------------------------------------------------- */

static int parse_listen(const char *spec, struct sockaddr_storage *ss,
			char *err, size_t errlen)
{
	char host[256];
	const char *port;
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (close == NULL || close[1] != ':' ||
		    (size_t)(close - spec - 1) >= sizeof host)
			goto bad;
		memcpy(host, spec + 1, (size_t)(close - spec - 1));
		host[close - spec - 1] = '\0';
		port = close + 2;
	} else {
		const char *colon = strrchr(spec, ':');
		if (colon == NULL || (size_t)(colon - spec) >= sizeof host)
			goto bad;
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
		port = colon + 1;
	}
	char *end;
	unsigned long p = strtoul(port, &end, 10);
	if (*port == '\0' || *end != '\0' || p > 65535)
		goto bad;
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
				 .ai_flags = AI_NUMERICSERV};
	struct addrinfo *ai;
	int rc = getaddrinfo(host[0] ? host : "127.0.0.1", port, &hints, &ai);
	if (rc != 0) {
		snprintf(err, errlen, "--listen: %s: %s", spec,
			 gai_strerror(rc));
		return MPP_EINVAL;
	}
	memset(ss, 0, sizeof *ss);
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	return 0;
bad:
	snprintf(err, errlen, "--listen: expected HOST:PORT, got '%s'", spec);
	return MPP_EINVAL;
}

/* ---- answers ------------------------------------------------------------ */

static struct conn *conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return ci ? ci->socket_context : NULL;
}

static void set_deadline(struct MHD_Connection *c, int64_t deadline)
{
	struct conn *k = conn_of(c);
	if (k != NULL)
		atomic_store_explicit(&k->deadline_ns, deadline,
				      memory_order_relaxed);
}

static enum MHD_Result send_reply(struct MHD_Connection *c, struct req *q,
				  mpp_reply *r, const char *allow)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(
	    r->len, r->body, MHD_RESPMEM_MUST_FREE);
	if (resp == NULL) {
		free(r->body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				r->content_type);
	if (allow != NULL)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	if (r->status == 401)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Bearer");
	enum MHD_Result ret = MHD_queue_response(c, (unsigned)r->status, resp);
	MHD_destroy_response(resp);
	q->answered = 1;
	q->status = r->status;
	set_deadline(c, 0);
	return ret;
}

/* Takes one write from the bucket; 0 when there is none, with *wait_s
 * the seconds until the next. */
static int take_write(mpp_http *h, unsigned *wait_s)
{
	if (h->cfg.write_rate == 0)
		return 1;
	double per_s = h->cfg.write_rate / 60.0, now = now_ns() / 1e9;
	pthread_mutex_lock(&h->bucket_lock);
	h->bucket += (now - h->bucket_at) * per_s;
	if (h->bucket > h->cfg.write_rate)
		h->bucket = h->cfg.write_rate;
	h->bucket_at = now;
	int ok = h->bucket >= 1;
	if (ok)
		h->bucket -= 1;
	else
		*wait_s = (unsigned)((1 - h->bucket) / per_s) + 1;
	pthread_mutex_unlock(&h->bucket_lock);
	return ok;
}

__attribute__((format(printf, 4, 5))) static enum MHD_Result
send_error(struct MHD_Connection *c, struct req *q, int status, const char *fmt,
	   ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	mpp_reply r = {0};
	mpp_api_error(&r, status, "%s", msg);
	return send_reply(c, q, &r, NULL);
}

static enum MHD_Result dispatch(mpp_http *h, struct MHD_Connection *c,
				struct req *q, const char *url)
{
	mpp_reply r = {0};
	switch (q->ep) {
	case MPP_EP_HEALTHZ:
		mpp_api_healthz(h->api, &r);
		break;
	case MPP_EP_PREDICT:
		mpp_api_predict(h->api, q->body ? q->body : "", q->len, &r);
		break;
	case MPP_EP_MODELS:
		mpp_api_models(h->api, &r);
		break;
	case MPP_EP_MODEL:
		mpp_api_model(h->api, url + strlen("/v1/models/"), &r);
		break;
	case MPP_EP_JOB:
		mpp_api_job(h->api, url + strlen("/v1/jobs/"), &r);
		break;
	case MPP_EP_UI:
		mpp_ui_answer(
		    h->api->ui, url,
		    MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND,
						"app"),
		    mpp_api_check_token(
			h->api, MHD_lookup_connection_value(
				    c, MHD_HEADER_KIND,
				    MHD_HTTP_HEADER_AUTHORIZATION)) == 0,
		    &r);
		break;
	default:
		mpp_api_metrics(&r);
		break;
	}
	return send_reply(c, q, &r, NULL);
}

/* ---- POST /v1/runs and /v1/jobs, off the event loop --------------------- */

/* On the ingest thread: the answer is in q->reply. */
static void runs_done(void *ctx)
{
	struct req *q = ctx;
	atomic_store(&q->ready, 1);
	MHD_resume_connection(q->conn);
}

static enum MHD_Result runs(mpp_http *h, struct MHD_Connection *c,
			    struct req *q)
{
	if (q->submitted) {
		if (!atomic_load(&q->ready))
			return MHD_YES;
		return send_reply(c, q, &q->reply, NULL);
	}
	q->submitted = 1;
	atomic_fetch_add(&h->runs_open, 1);
	q->conn = c;
	set_deadline(c, 0);
	MHD_suspend_connection(c);
	if (mpp_ingest_submit(h->ingest,
			      q->ep == MPP_EP_JOBS       ? mpp_api_jobs
			      : q->ep == MPP_EP_PROGRESS ? mpp_api_progress
							 : mpp_api_runs,
			      q->body ? q->body : "", q->len, &q->reply,
			      runs_done, q) != 0) {
		mpp_api_error(&q->reply, 503,
			      "body: too many bodies waiting to be written, "
			      "or shutting down; retry later");
		runs_done(q);
	}
	return MHD_YES;
}

/* ---- the request handler ------------------------------------------------ */

static enum MHD_Result count_lengths(void *cls, enum MHD_ValueKind kind,
				     const char *key, const char *value)
{
	(void)kind;
	(void)value;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
		++*(int *)cls;
	return MHD_YES;
}

/* s into buf[size], cut to size - 1 bytes (as snprintf "%s" would). */
static void copy_cut(char *buf, size_t size, const char *s)
{
	size_t n = strnlen(s, size - 1);
	memcpy(buf, s, n);
	buf[n] = '\0';
}

/* Called at a request's headers: decide what can be decided before any
 * body is read. */
static enum MHD_Result on_headers(mpp_http *h, struct MHD_Connection *c,
				  struct req *q, const char *url,
				  const char *method)
{
	int want;
	if (h->api->ui != NULL && mpp_ui_path(url)) {
		q->ep = MPP_EP_UI;
		want = MPP_GET;
	} else
		q->ep = mpp_api_route(url, &want);
	if (q->nul_in_uri)
		return send_error(c, q, 400,
				  "path: contains a NUL byte (%%00)");
	if (q->ep == MPP_EP_OTHER)
		return send_error(c, q, 404, "path: no such endpoint '%s'",
				  q->path);
	int is_get = strcmp(method, MHD_HTTP_METHOD_GET) == 0 ||
		     strcmp(method, MHD_HTTP_METHOD_HEAD) == 0;
	int is_post = strcmp(method, MHD_HTTP_METHOD_POST) == 0;
	if ((want == MPP_GET && !is_get) || (want == MPP_POST && !is_post)) {
		mpp_reply r = {0};
		mpp_api_error(&r, 405, "method: %s takes %s, not %s", q->path,
			      want == MPP_GET ? "GET" : "POST", q->method);
		return send_reply(c, q, &r,
				  want == MPP_GET ? "GET, HEAD" : "POST");
	}
	/* A GET is answered at the next call, once MHD has seen the whole
	 * request; answering now would make it close the connection. */
	if (want == MPP_GET)
		return MHD_YES;
	/* Two lengths: which one frames the body is ambiguous (a proxy in
	 * front may have used the other: request smuggling). */
	int ncl = 0;
	MHD_get_connection_values(c, MHD_HEADER_KIND, count_lengths, &ncl);
	if (ncl > 1)
		return send_error(c, q, 400, "content-length: given %d times",
				  ncl);
	if (q->ep == MPP_EP_RUNS || q->ep == MPP_EP_JOBS ||
	    q->ep == MPP_EP_PROGRESS) {
		/* (A NUL in this header cannot be refused here: MHD 0.9.75
		 * cuts header values at a NUL before any callback sees them,
		 * value and length alike.) */
		int st = mpp_api_check_token(
		    h->api,
		    MHD_lookup_connection_value(c, MHD_HEADER_KIND,
						MHD_HTTP_HEADER_AUTHORIZATION));
		if (st == 401)
			return send_error(c, q, 401,
					  "authorization: a bearer token is "
					  "required");
		if (st != 0)
			return send_error(c, q, 403,
					  "authorization: wrong token");
		unsigned wait_s = 0;
		if (!take_write(h, &wait_s)) {
			mpp_metrics_error(MPP_ERR_WRITE_RATE, 1);
			return send_error(c, q, 429,
					  "write rate: more than %u writes a "
					  "minute with this token; try again "
					  "in %u s (--write-rate)",
					  h->cfg.write_rate, wait_s);
		}
	}
	const char *cl = MHD_lookup_connection_value(
	    c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
	if (cl != NULL) {
		char *end;
		unsigned long long n = strtoull(cl, &end, 10);
		if (n > h->cfg.max_body)
			return send_error(c, q, 413,
					  "body: %llu bytes, more than the "
					  "limit of %zu",
					  n, h->cfg.max_body);
		/* Room for the declared body and its NUL, at once when small:
		 * a client that declares a large body must send it to make the
		 * daemon hold it. */
		if (n > 0) {
			size_t cap = n < 65536 ? (size_t)n + 1 : 65536;
			q->body = malloc(cap);
			if (q->body == NULL)
				return send_error(c, q, 500, "out of memory");
			q->cap = cap;
		}
	}
	return MHD_YES;
}

/* Appends a chunk of body; 0, or an HTTP status to answer with. */
static int append_body(mpp_http *h, struct req *q, const char *data, size_t n)
{
	if (n > h->cfg.max_body - q->len)
		return 413;
	if (q->len + n + 1 > q->cap) {
		size_t cap = q->cap ? q->cap : 4096;
		while (cap < q->len + n + 1)
			cap *= 2;
		if (cap > h->cfg.max_body + 1)
			cap = h->cfg.max_body + 1;
		char *b = realloc(q->body, cap);
		if (b == NULL)
			return 500;
		q->body = b;
		q->cap = cap;
	}
	memcpy(q->body + q->len, data, n);
	q->len += n;
	q->body[q->len] = '\0';
	return 0;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c,
				  const char *url, const char *method,
				  const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	(void)version;
	mpp_http *h = cls;
	struct req *q = *con_cls;
	if (q == NULL) {
		q = calloc(1, sizeof *q);
		if (q == NULL)
			return MHD_NO;
		*con_cls = q;
		q->start_ns = now_ns();
		q->ep = MPP_EP_OTHER;
	}
	if (!q->started) {
		q->started = 1;
		if (q->answered) /* answered at the request line */
			return MHD_NO;
		/* Cut copies for the log line and the metrics; not
		 * snprintf, whose format machinery costs ~600 instructions
		 * a call on every request. */
		copy_cut(q->method, sizeof q->method, method);
		copy_cut(q->path, sizeof q->path, url);
		return on_headers(h, c, q, url, method);
	}
	if (q->answered) {
		/* Answered early; whatever body follows is not ours to read. */
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		int st = append_body(h, q, upload, *upload_size);
		*upload_size = 0;
		if (st != 0) {
			/* MHD (0.9.75) cannot queue an answer in the middle of
			 * a body; closing is the only way not to read the
			 * rest. Only a body sent without Content-Length gets
			 * here: a declared length was checked up front. */
			q->answered = 1;
			q->status = st;
			mpp_log(MPP_LOG_INFO,
				"%s %s: body without length over %zu bytes, "
				"connection closed",
				q->method, q->path, h->cfg.max_body);
			return MHD_NO;
		}
		return MHD_YES;
	}
	if (q->ep == MPP_EP_RUNS || q->ep == MPP_EP_JOBS ||
	    q->ep == MPP_EP_PROGRESS)
		return runs(h, c, q);
	return dispatch(h, c, q, url);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	mpp_http *h = cls;
	struct req *q = *con_cls;
	if (q == NULL)
		return;
	*con_cls = NULL;
	struct conn *k = conn_of(c);
	if (k != NULL && k->req == q)
		k->req = NULL;
	int64_t t = now_ns();
	double secs = (double)(t - q->start_ns) / 1e9;
	int status = q->answered ? q->status : 0;
	if (q->submitted) {
		/* Resumed with its answer, which was never queued when the
		 * client went away first (reset, or MHD stopping). */
		if (!q->answered && atomic_load(&q->ready))
			free(q->reply.body);
		atomic_fetch_sub(&h->runs_open, 1);
	}
	mpp_metrics_request(q->ep, status, secs);
	if (status >= 500)
		mpp_metrics_error(MPP_ERR_INTERNAL, 1);
	if (!q->answered &&
	    (toe == MHD_REQUEST_TERMINATED_CLIENT_ABORT ||
	     toe == MHD_REQUEST_TERMINATED_READ_ERROR) &&
	    (k == NULL || !atomic_load(&k->reaped)))
		mpp_metrics_error(MPP_ERR_CLIENT_CLOSED, 1);
	else if (toe == MHD_REQUEST_TERMINATED_TIMEOUT_REACHED)
		mpp_metrics_error(MPP_ERR_TIMEOUT_IN_FLIGHT, 1);
	int level = status >= 500 || status == 0 ? MPP_LOG_WARN : MPP_LOG_INFO;
	if (mpp_log_enabled(level))
		mpp_log(level, "%s %s %d in=%zu %.3fms%s", q->method, q->path,
			status, q->len, secs * 1e3,
			toe == MHD_REQUEST_TERMINATED_COMPLETED_OK
			    ? ""
			    : " (connection closed early)");
	/* The next request on this connection: its first byte within the
	 * short deadline, like a new connection's. What the kernel has
	 * received so far is this request's (or, pipelined, the next's:
	 * MHD has read those and goes on with them at once). */
	if (k != NULL) {
		atomic_store(&k->ui, q->ep == MPP_EP_UI);
		atomic_store(&k->rx_base, rx_bytes(k->fd));
		atomic_store(&k->waived, 0);
		atomic_store(&k->phase, CONN_IDLE);
	}
	set_deadline(c, t + secs_ns(h->cfg.start_timeout_s));
	free(q->body);
	free(q);
}

/* ---- the request line ------------------------------------------------ */

/* Answers 414 on the socket itself: MHD has not parsed the request yet
 * and cannot queue an answer here. Nothing else was written for this
 * request (MHD reads a request only once the previous answer is out). */
static void answer_raw_414(struct MHD_Connection *c, size_t len)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
	if (ci == NULL)
		return;
	char body[96], msg[256];
	int bn = len > MAX_URI
		     ? snprintf(body, sizeof body,
				"{\"error\":\"path: %zu bytes, longer than the "
				"limit of %d\"}",
				len, MAX_URI)
		     : snprintf(body, sizeof body,
				"{\"error\":\"path: more than %d query "
				"parameters\"}",
				MAX_QUERY_PARAMS);
	int n = snprintf(msg, sizeof msg,
			 "HTTP/1.1 414 URI Too Long\r\nContent-Type: "
			 "application/json\r\nContent-Length: %d\r\n"
			 "Connection: close\r\n\r\n%s",
			 bn, body);
	ssize_t w =
	    send(ci->connect_fd, msg, (size_t)n, MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)w;
	shutdown(ci->connect_fd, SHUT_WR);
}

/* MHD's URI log callback: the request line is in (uri is as sent, with
 * its query). Starts the request's state and its deadline for the rest;
 * what it returns is the request's *con_cls. */
static void *on_uri(void *cls, const char *uri, struct MHD_Connection *c)
{
	mpp_http *h = cls;
	struct req *q = calloc(1, sizeof *q);
	if (q == NULL)
		return NULL; /* on_request tries again */
	q->start_ns = now_ns();
	q->ep = MPP_EP_OTHER;
	struct conn *k = conn_of(c);
	if (k != NULL) {
		k->req = q;
		atomic_store(&k->phase, CONN_REQUEST);
	}
	set_deadline(c, q->start_ns + secs_ns(h->cfg.request_timeout_s));
	size_t nparams = 0;
	const char *query = strchr(uri, '?');
	if (query != NULL)
		for (nparams = 1; *query; query++)
			nparams += *query == '&';
	size_t len = strlen(uri);
	if (nparams > MAX_QUERY_PARAMS || len > MAX_URI) {
		answer_raw_414(c, len);
		q->answered = 1;
		q->status = 414;
		snprintf(q->method, sizeof q->method, "?");
		snprintf(q->path, sizeof q->path, "%.*s",
			 (int)strcspn(uri, "?"), uri);
		/* MHD may stall on these parameters: the reaper closes it. */
		set_deadline(c, q->start_ns + secs_ns(1));
		return q;
	}
	/* MHD decodes %00 into the path, which C then reads cut short
	 * ("/healthz%00x" as "/healthz"): refused instead. */
	for (const char *p = strchr(uri, '%'); p; p = strchr(p + 1, '%'))
		if (p[1] == '0' && p[2] == '0')
			q->nul_in_uri = 1;
	return q;
}

/* ---- connection deadlines ---------------------------------------------- */

static void on_connection(void *cls, struct MHD_Connection *c,
			  void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	mpp_http *h = cls;
	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		struct conn *k = calloc(1, sizeof *k);
		const union MHD_ConnectionInfo *ci = MHD_get_connection_info(
		    c, MHD_CONNECTION_INFO_CONNECTION_FD);
		if (k == NULL || ci == NULL) {
			free(k);
			return;
		}
		k->fd = ci->connect_fd;
		atomic_init(&k->deadline_ns,
			    now_ns() + secs_ns(h->cfg.start_timeout_s));
		pthread_mutex_lock(&h->conns_lock);
		k->next = h->conns;
		if (h->conns)
			h->conns->prev = k;
		h->conns = k;
		pthread_mutex_unlock(&h->conns_lock);
		*socket_context = k;
		return;
	}
	struct conn *k = *socket_context;
	if (k == NULL)
		return;
	if (k->req != NULL) {
		/* A request MHD gave up on at its first line (without
		 * completing it): only ours to free. */
		mpp_metrics_request(k->req->ep, k->req->status, 0);
		if (!k->req->answered && !atomic_load(&k->reaped))
			mpp_metrics_error(MPP_ERR_CLIENT_CLOSED, 1);
		free(k->req->body);
		free(k->req);
	}
	pthread_mutex_lock(&h->conns_lock);
	if (k->prev)
		k->prev->next = k->next;
	else
		h->conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	pthread_mutex_unlock(&h->conns_lock);
	*socket_context = NULL;
	free(k);
}

/* Every connection's start and close, daemon and bare alike: the count
 * the acceptor keeps under --max-connections. */
static void on_notify(void *cls, struct MHD_Connection *c,
		      void **socket_context,
		      enum MHD_ConnectionNotificationCode code)
{
	mpp_http *h = cls;
	if (!h->bare)
		on_connection(cls, c, socket_context, code);
	if (code != MHD_CONNECTION_NOTIFY_CLOSED)
		return;
	pthread_mutex_lock(&h->open_lock);
	if (h->open > 0 && h->open-- == h->cfg.max_connections)
		pthread_cond_signal(&h->open_cond);
	pthread_mutex_unlock(&h->open_lock);
}

static void *reaper(void *arg)
{
	mpp_http *h = arg;
	pthread_mutex_lock(&h->stop_lock);
	while (!h->stopping) {
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += 200 * 1000000L;
		if (until.tv_nsec >= 1000000000L) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&h->stop_cond, &h->stop_lock, &until);
		int64_t t = now_ns();
		unsigned long idle = 0, ui = 0, late = 0, waived = 0;
		pthread_mutex_lock(&h->conns_lock);
		for (struct conn *k = h->conns; k; k = k->next) {
			int64_t d = atomic_load_explicit(&k->deadline_ns,
							 memory_order_relaxed);
			if (d == 0 || t <= d)
				continue;
			int in_flight = atomic_load(&k->phase) == CONN_REQUEST;
			/* Past the start deadline with a request begun: the
			 * event loop, not the client, is late (a burst). Given
			 * the time of a whole request, once. */
			if (!in_flight && request_begun(k)) {
				in_flight = 1;
				if (!atomic_exchange(&k->waived, 1)) {
					int64_t nd =
					    t +
					    secs_ns(h->cfg.request_timeout_s);
					waived +=
					    atomic_compare_exchange_strong(
						&k->deadline_ns, &d, nd);
					continue;
				}
			}
			/* MHD may have moved the connection on meanwhile (a
			 * request line in, an answer queued): then it is not
			 * late. */
			if (!atomic_compare_exchange_strong(&k->deadline_ns, &d,
							    0))
				continue;
			atomic_store(&k->reaped, 1);
			shutdown(k->fd, SHUT_RDWR);
			if (in_flight)
				late++;
			else if (atomic_load(&k->ui))
				ui++;
			else
				idle++;
		}
		pthread_mutex_unlock(&h->conns_lock);
		mpp_metrics_error(MPP_ERR_IDLE_REAPED, idle);
		mpp_metrics_error(MPP_ERR_UI_IDLE_REAPED, ui);
		mpp_metrics_error(MPP_ERR_TIMEOUT_IN_FLIGHT, late);
		if (idle + ui > 0)
			mpp_log(MPP_LOG_INFO,
				"%lu idle connection(s) closed: no request "
				"within %us (--start-timeout)",
				idle + ui, h->cfg.start_timeout_s);
		/* At notice: not a fault, but the daemon is overloaded. */
		if (waived > 0)
			mpp_log(
			    MPP_LOG_NOTICE,
			    "%lu connection(s) past --start-timeout kept: "
			    "a request had begun (the event loop is behind)",
			    waived);
		/* A request dropped is worth a line at the default level:
		 * its client gets no answer. */
		if (late > 0)
			mpp_log(MPP_LOG_WARN,
				"%lu connection(s) closed with a request in "
				"flight: not whole within %us "
				"(--request-timeout; a slow or stuck client)",
				late, h->cfg.request_timeout_s);
	}
	pthread_mutex_unlock(&h->stop_lock);
	return NULL;
}

/* ---- daemon ---------------------------------------------------------- */

/* While MHD starts, its messages (why it cannot bind) go into the error
 * the caller prints, not onto a log line of their own. */
static _Atomic(char *) start_err;
static size_t start_errlen;

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	char msg[512];
	vsnprintf(msg, sizeof msg, fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	char *err = atomic_load(&start_err);
	if (err != NULL)
		snprintf(err, start_errlen, "%s", msg);
	else
		mpp_log(MPP_LOG_WARN, "http: %s", msg);
}

/* Why a bind or listen failed, in words that name the fix, or NULL. */
static const char *bind_fault(int e)
{
	return e == EADDRINUSE      ? "address in use (another mpipredictd? "
				      "choose another with --listen)"
	       : e == EACCES        ? "permission denied (a port below 1024 "
				      "needs privileges: choose another with "
				      "--listen)"
	       : e == EADDRNOTAVAIL ? "no such address on this machine "
				      "(choose another with --listen)"
				    : NULL;
}

/* The listening socket (SO_REUSEADDR, IPv6 only for an IPv6 address, as
 * MHD made it); sets h->port. -1 with err saying why. */
static int open_listener(mpp_http *h, char *err, size_t errlen)
{
	const struct sockaddr_storage *addr = &h->addr;
	int v6 = addr->ss_family == AF_INET6, one = 1;
	int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		snprintf(err, errlen, "cannot listen on %s: %s", h->cfg.listen,
			 strerror(errno));
		return -1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (v6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
	socklen_t len =
	    v6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	/* The backlog holds the clients that wait at --max-connections
	 * (the kernel caps it at net.core.somaxconn). */
	unsigned backlog =
	    h->cfg.max_connections > 1024 ? h->cfg.max_connections : 1024;
	if (bind(fd, (const struct sockaddr *)addr, len) != 0 ||
	    listen(fd, backlog > 65535 ? 65535 : (int)backlog) != 0) {
		int e = errno;
		const char *fault = bind_fault(e);
		if (fault != NULL)
			snprintf(err, errlen, "listen %s: %s", h->cfg.listen,
				 fault);
		else
			snprintf(err, errlen, "cannot listen on %s: %s",
				 h->cfg.listen, strerror(e));
		close(fd);
		return -1;
	}
	struct sockaddr_storage got;
	socklen_t glen = sizeof got;
	if (getsockname(fd, (struct sockaddr *)&got, &glen) == 0)
		h->port = ntohs(v6 ? ((struct sockaddr_in6 *)&got)->sin6_port
				   : ((struct sockaddr_in *)&got)->sin_port);
	return fd;
}

/* Accepts as fast as clients come, as long as fewer than
 * --max-connections are open; at the limit the clients wait in the
 * backlog, as they did with MHD's own listening socket. */
static void *acceptor(void *arg)
{
	mpp_http *h = arg;
	int short_of_fds = 0;
	while (!atomic_load(&h->accept_stop)) {
		pthread_mutex_lock(&h->open_lock);
		while (h->open >= h->cfg.max_connections &&
		       !atomic_load(&h->accept_stop))
			pthread_cond_wait(&h->open_cond, &h->open_lock);
		pthread_mutex_unlock(&h->open_lock);
		struct sockaddr_storage sa;
		socklen_t len = sizeof sa;
		int fd = accept4(h->lfd, (struct sockaddr *)&sa, &len,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			int e = errno;
			if (atomic_load(&h->accept_stop))
				break;
			if (e == EMFILE || e == ENFILE || e == ENOBUFS ||
			    e == ENOMEM) {
				/* The client waits in the backlog until a
				 * descriptor frees; one line per shortage. */
				if (!short_of_fds++)
					mpp_log(MPP_LOG_WARN,
						"accept: %s: new clients wait "
						"(raise ulimit -n, or lower "
						"--max-connections)",
						strerror(e));
				struct timespec ts = {0, 20 * 1000000L};
				nanosleep(&ts, NULL);
			}
			continue;
		}
		short_of_fds = 0;
		pthread_mutex_lock(&h->open_lock);
		h->open++;
		pthread_mutex_unlock(&h->open_lock);
		/* MHD takes it in its own thread at the next turn of its loop.
		 * MHD_NO: MHD closed it at once (the per-address cap) and will
		 * not say so again. (A connection MHD then fails to set up for
		 * want of memory is not told either: one slot lost.) */
		if (MHD_add_connection(h->d, fd, (struct sockaddr *)&sa, len) !=
		    MHD_YES) {
			pthread_mutex_lock(&h->open_lock);
			h->open--;
			pthread_mutex_unlock(&h->open_lock);
		}
	}
	return NULL;
}

/* Starts MHD with the options both the daemon and the bare baseline use,
 * and the acceptor; the daemon adds its callbacks (extra, NULL for
 * none). */
static int start(mpp_http *h, MHD_AccessHandlerCallback handler, void *cls,
		 const struct MHD_OptionItem *extra, char *err, size_t errlen)
{
	const mpp_http_config *cfg = &h->cfg;
	h->lfd = open_listener(h, err, errlen);
	if (h->lfd < 0)
		return MPP_EIO;
	/* poll(2), not epoll: libmicrohttpd 0.9.75's epoll loop (edge
	 * triggered) loses a keep-alive connection's next request when many
	 * connections send back to back (256 x 40 requests, one thread: about
	 * 256 left unread in their sockets until the idle timeout, the bare
	 * handler too); poll(2) answers them all. Its poll(2) loop accepts
	 * one connection a turn, hence no listening socket for MHD: the
	 * acceptor hands it the connections. */
	unsigned flags = MHD_USE_POLL_INTERNAL_THREAD | MHD_USE_TURBO |
			 MHD_USE_ERROR_LOG | MHD_ALLOW_SUSPEND_RESUME |
			 MHD_USE_NO_LISTEN_SOCKET;
	/* The acceptor keeps --max-connections. MHD's own limit is looser:
	 * it frees a slot a turn after it reports the close, and a
	 * connection it refused would be closed, not left in the backlog. */
	unsigned limit = cfg->max_connections < UINT_MAX / 2
			     ? 2 * cfg->max_connections
			     : UINT_MAX;
	struct MHD_OptionItem opts[9] = {
	    {MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, NULL},
	    {MHD_OPTION_CONNECTION_LIMIT, limit, NULL},
	    {MHD_OPTION_CONNECTION_TIMEOUT, cfg->idle_timeout_s, NULL},
	    {MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_notify, h},
	    {MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONN_POOL, NULL},
	};
	size_t n = 5;
	if (cfg->max_per_ip > 0)
		opts[n++] = (struct MHD_OptionItem){
		    MHD_OPTION_PER_IP_CONNECTION_LIMIT, cfg->max_per_ip, NULL};
	if (cfg->threads > 1)
		opts[n++] = (struct MHD_OptionItem){MHD_OPTION_THREAD_POOL_SIZE,
						    cfg->threads, NULL};
	if (extra != NULL)
		opts[n++] =
		    (struct MHD_OptionItem){MHD_OPTION_ARRAY, 0, (void *)extra};
	opts[n] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
	char why[256] = "";
	start_errlen = sizeof why;
	atomic_store(&start_err, why);
	h->d = MHD_start_daemon(flags, 0, NULL, NULL, handler, cls,
				MHD_OPTION_ARRAY, opts, MHD_OPTION_END);
	atomic_store(&start_err, NULL);
	if (h->d == NULL) {
		snprintf(err, errlen, "cannot start libmicrohttpd on %s%s%s",
			 cfg->listen, why[0] ? ": " : "", why);
		return MPP_EIO;
	}
	h->acceptor_started =
	    pthread_create(&h->acceptor, NULL, acceptor, h) == 0;
	if (!h->acceptor_started) {
		snprintf(err, errlen, "cannot start a thread");
		return MPP_ENOMEM;
	}
	pthread_setname_np(h->acceptor, "mpp-accept");
	return 0;
}

/* What the daemon and the bare baseline share, before start(). */
static mpp_http *http_new(const mpp_http_config *cfg, char *err, size_t errlen,
			  int *rc)
{
	mpp_http *h = calloc(1, sizeof *h);
	*rc = MPP_ENOMEM;
	if (h == NULL)
		return NULL;
	h->cfg = *cfg;
	h->lfd = -1;
	*rc = parse_listen(cfg->listen, &h->addr, err, errlen);
	if (*rc) {
		free(h);
		return NULL;
	}
	pthread_mutex_init(&h->conns_lock, NULL);
	pthread_mutex_init(&h->stop_lock, NULL);
	pthread_mutex_init(&h->bucket_lock, NULL);
	pthread_mutex_init(&h->open_lock, NULL);
	pthread_cond_init(&h->open_cond, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&h->stop_cond, &ca);
	pthread_condattr_destroy(&ca);
	return h;
}

int mpp_http_start(const mpp_http_config *cfg, const mpp_api *api,
		   mpp_http **out, char *err, size_t errlen)
{
	int rc;
	mpp_http *h = http_new(cfg, err, errlen, &rc);
	if (h == NULL)
		return rc;
	if (h->cfg.start_timeout_s == 0 ||
	    h->cfg.start_timeout_s > h->cfg.request_timeout_s)
		h->cfg.start_timeout_s = h->cfg.request_timeout_s;
	h->api = api;
	h->bucket = h->cfg.write_rate; /* a full minute's burst at start */
	h->bucket_at = now_ns() / 1e9;
	h->ingest = mpp_ingest_start(api);
	if (h->ingest == NULL) {
		snprintf(err, errlen, "cannot start a thread");
		mpp_http_stop(h);
		return MPP_ENOMEM;
	}
	const struct MHD_OptionItem extra[] = {
	    {MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, h},
	    {MHD_OPTION_URI_LOG_CALLBACK, (intptr_t)on_uri, h},
	    {MHD_OPTION_END, 0, NULL},
	};
	rc = start(h, on_request, h, extra, err, errlen);
	if (rc) {
		mpp_http_stop(h);
		return rc;
	}
	h->reaper_started = pthread_create(&h->reaper, NULL, reaper, h) == 0;
	if (!h->reaper_started) {
		snprintf(err, errlen, "cannot start a thread");
		mpp_http_stop(h);
		return MPP_ENOMEM;
	}
	pthread_setname_np(h->reaper, "mpp-reaper");
	*out = h;
	return 0;
}

unsigned mpp_http_port(const mpp_http *h)
{
	return h->port;
}

void mpp_http_stop(mpp_http *h)
{
	if (h->reaper_started) {
		pthread_mutex_lock(&h->stop_lock);
		h->stopping = 1;
		pthread_cond_signal(&h->stop_cond);
		pthread_mutex_unlock(&h->stop_lock);
		pthread_join(h->reaper, NULL);
	}
	/* Every suspended connection is resumed before MHD stops, and
	 * given a moment to send what it was resumed with (the body being
	 * written: its answer; the waiting ones: 503), rather than being
	 * closed bare by MHD_stop_daemon. */
	if (h->ingest)
		mpp_ingest_stop(h->ingest);
	for (int i = 0; h->d && i < 300 && atomic_load(&h->runs_open) > 0;
	     i++) {
		struct timespec ts = {0, 10 * 1000000L};
		nanosleep(&ts, NULL);
	}
	/* No connection handed to MHD once it stops: a listening socket
	 * shut down wakes the acceptor from accept(2). */
	if (h->acceptor_started) {
		atomic_store(&h->accept_stop, 1);
		shutdown(h->lfd, SHUT_RDWR);
		pthread_mutex_lock(&h->open_lock);
		pthread_cond_broadcast(&h->open_cond);
		pthread_mutex_unlock(&h->open_lock);
		pthread_join(h->acceptor, NULL);
	}
	if (h->d)
		MHD_stop_daemon(h->d);
	if (h->lfd >= 0)
		close(h->lfd);
	mpp_ingest_free(h->ingest);
	pthread_cond_destroy(&h->stop_cond);
	pthread_cond_destroy(&h->open_cond);
	pthread_mutex_destroy(&h->stop_lock);
	pthread_mutex_destroy(&h->conns_lock);
	pthread_mutex_destroy(&h->bucket_lock);
	pthread_mutex_destroy(&h->open_lock);
	free(h);
}

mpp_http *mpp_http_start_bare(const mpp_http_config *cfg,
			      MHD_AccessHandlerCallback handler, void *cls,
			      char *err, size_t errlen)
{
	int rc;
	mpp_http *h = http_new(cfg, err, errlen, &rc);
	if (h == NULL)
		return NULL;
	h->bare = 1;
	if (start(h, handler, cls, NULL, err, errlen)) {
		mpp_http_stop(h);
		return NULL;
	}
	return h;
}
