/*
 * client.h: how a program of the project finds and calls the centre's
 * daemon (mpipredictd): the client configuration (environment, then an INI
 * file) and one POST with the bearer token. Used by mpipredict-collect
 * --forward and by other commands that talk to the daemon; never by
 * libmpipredict, which users' programs load (it must not pull in libcurl or
 * libinih: it spawns mpipredict-collect instead).
 *
 * Not for: the daemon's own configuration, the REST answers' contents.
 */
#ifndef MPP_CLIENT_H
#define MPP_CLIENT_H

#include <stddef.h>

#define MPP_CLIENT_CONF_DEFAULT     "/etc/mpipredict/client.conf"
#define MPP_CLIENT_TIMEOUT_DEFAULT  2000
#define MPP_CLIENT_PROGRESS_DEFAULT 60
#define MPP_CLIENT_PROGRESS_MAX     86400
/* The shortest interval other than 0 (off): a sender process a tick is
 * the cost, and a benchmark of seconds-long runs wants several posts. */
#define MPP_CLIENT_PROGRESS_MIN 0.1

typedef struct mpp_client_conf {
	char *url;       /* "http://host:port", no trailing slash */
	char *token;     /* first line of the token file, NULL when none */
	long timeout_ms; /* whole request, default 2000 */
	/* seconds between a running job's progress posts (issue 37):
	 * MPIPREDICT_PROGRESS_S, else the file's progress_s, default 60;
	 * 0: none; a fraction from MPP_CLIENT_PROGRESS_MIN up */
	double progress_s;
	char *
	    source; /* where url came from: "MPIPREDICT_URL" or the conf path */
} mpp_client_conf;

/* 0: configured; 1: no daemon configured anywhere (not an error);
 * -1: error, err says file:line: what and how to fix it. Order:
 * MPIPREDICT_URL and MPIPREDICT_TOKEN_FILE in the environment win over
 * the file MPIPREDICT_CLIENT_CONF names (default
 * /etc/mpipredict/client.conf), an INI file read with libinih:
 *   [client]
 *   url = http://head.example:8470
 *   token_file = /etc/mpipredict/token
 *   timeout_ms = 2000
 *   progress_s = 60
 * MPIPREDICT_PROGRESS_S wins over progress_s (0, or 0.1 to 86400
 * seconds, fractions allowed).
 * Unknown keys or sections are errors naming the line.
 * A missing conf file is "not configured", whether named or the default;
 * the token is the token file's first line without surrounding blanks (as
 * mpipredictd reads its --token-file). On any return the struct may be
 * passed to mpp_client_conf_free; on 1 and -1 it holds nothing. */
int mpp_client_conf_load(mpp_client_conf *c, char *err, size_t errlen);
void mpp_client_conf_free(mpp_client_conf *c);

/* POST body to c->url + path with the bearer token (libcurl, no
 * proxy from the environment, connect and total timeouts from
 * timeout_ms). *http_status: the status, 0 when no answer came.
 * *answer: the body (malloc'd, NUL-terminated), NULL allowed.
 * Returns 0 when an HTTP answer came (any status), -1 otherwise
 * (err says why: refused, timed out, ...). */
int mpp_client_post(const mpp_client_conf *c, const char *path,
		    const char *content_type, const char *body, size_t len,
		    long *http_status, char **answer, char *err, size_t errlen);

#endif
