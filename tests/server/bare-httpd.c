/*
 * bare-httpd: the baseline for `make bench-server`. libmicrohttpd started
 * exactly as mpipredictd starts it (http.h's mpp_http_start_bare: same
 * event loop, thread pool, limits), answering every request, after reading
 * its body, with one fixed JSON of the size of a prediction. Prints
 * "port N" once listening; runs until killed. Bench helper only.
 *
 *   bare-httpd [--threads N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "server/http.h"

static const char answer[] =
    "{\"app\":\"bench\",\"model\":{\"id\":1,\"version\":1},\"runtime_s\":"
    "12.345678901234567,\"lower_s\":10.1,\"upper_s\":14.2,\"basis\":"
    "\"features\",\"ignored_features\":[]}";

static struct MHD_Response *fixed;

static enum MHD_Result handler(void *cls, struct MHD_Connection *c,
			       const char *url, const char *method,
			       const char *version, const char *upload,
			       size_t *upload_size, void **con_cls)
{
	(void)cls, (void)url, (void)method, (void)version, (void)upload;
	static int started;
	if (*con_cls == NULL) {
		*con_cls = &started;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		*upload_size = 0;
		return MHD_YES;
	}
	return MHD_queue_response(c, MHD_HTTP_OK, fixed);
}

int main(int argc, char **argv)
{
	mpp_http_config cfg = {
	    .listen = "127.0.0.1:0",
	    .threads = 1,
	    .max_connections = 1024,
	    .idle_timeout_s = 15,
	    .request_timeout_s = 10,
	    .max_body = 1 << 20,
	};
	if (argc == 3 && strcmp(argv[1], "--threads") == 0)
		cfg.threads = (unsigned)atoi(argv[2]);
	else if (argc != 1) {
		fprintf(stderr, "usage: bare-httpd [--threads N]\n");
		return 1;
	}
	fixed = MHD_create_response_from_buffer(strlen(answer), (void *)answer,
						MHD_RESPMEM_PERSISTENT);
	MHD_add_response_header(fixed, MHD_HTTP_HEADER_CONTENT_TYPE,
				"application/json");
	char err[256];
	mpp_http *h = mpp_http_start_bare(&cfg, handler, NULL, err, sizeof err);
	if (h == NULL) {
		fprintf(stderr, "bare-httpd: %s\n", err);
		return 2;
	}
	printf("port %u\n", mpp_http_port(h));
	fflush(stdout);
	for (;;)
		pause();
}
