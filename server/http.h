/*
 * http.h: mpipredictd's HTTP side, on libmicrohttpd.
 *
 * Owns the MHD daemon (a poll(2) event loop in each of `threads` threads,
 * fed by an accepting thread of its own),
 * routes requests to api.h, enforces the limits (body size, checked against
 * Content-Length before reading and counted while streaming; connection
 * count, per address too; idle timeout; a short deadline for a request's
 * first line, so that connections that send nothing do not keep the slots
 * from real clients; a deadline for receiving a whole request, which MHD
 * itself lacks: a client trickling one byte per second is cut off), counts
 * every request in metrics.h and logs one line per request at level info.
 * Not for what an endpoint answers (api.c).
 */
#ifndef MPP_SERVER_HTTP_H
#define MPP_SERVER_HTTP_H

#include <microhttpd.h>
#include <stddef.h>

#include "server/api.h"

typedef struct mpp_http_config {
	const char *listen;         /* "HOST:PORT", "[V6]:PORT"; port 0: any */
	unsigned threads;           /* event-loop threads, >= 1 */
	unsigned max_connections;   /* beyond: left in the listen backlog */
	unsigned idle_timeout_s;    /* no byte for this long: closed */
	unsigned request_timeout_s; /* a request not received whole by then */
	unsigned start_timeout_s;   /* a new connection, or one between
				       requests, without a request line by
				       then: closed (0: request_timeout_s) */
	unsigned max_per_ip;        /* connections from one address; beyond:
				       accepted and closed at once (0: no cap) */
	size_t max_body;            /* bytes; larger bodies get 413 */
	unsigned write_rate;        /* POST /v1/runs and /v1/jobs with the
				       token a minute, in bursts of as many;
				       beyond: 429 (0: no limit) */
} mpp_http_config;

typedef struct mpp_http mpp_http;

/* Listens and serves until mpp_http_stop(). Returns 0, or MPP_EINVAL
 * (a bad listen address) / MPP_EIO (cannot listen) with err saying why. */
int mpp_http_start(const mpp_http_config *cfg, const mpp_api *api,
		   mpp_http **out, char *err, size_t errlen);

/* The port actually listened on (useful with port 0). */
unsigned mpp_http_port(const mpp_http *h);

/* Stops accepting, closes every connection, waits for the threads. */
void mpp_http_stop(mpp_http *h);

/* The bare MHD daemon with the same threading, acceptor and limits but
 * the given handler and no routing, metrics or deadlines: the baseline
 * that `make bench-server` compares mpipredictd against. NULL with err
 * saying why; mpp_http_port() and mpp_http_stop() as above. */
mpp_http *mpp_http_start_bare(const mpp_http_config *cfg,
			      MHD_AccessHandlerCallback handler, void *cls,
			      char *err, size_t errlen);

#endif
