/*
 * api.h: mpipredictd's endpoints, from a parsed request to a JSON answer.
 *
 * Independent of the HTTP library: http.c routes, limits and reads the
 * body, then calls one function here, which fills an mpp_reply. Every
 * answer is JSON (except /metrics); an error is {"error":"..."} naming the
 * field or value at fault. Nothing is written to the store for a request
 * that is answered with an error.
 */
#ifndef MPP_SERVER_API_H
#define MPP_SERVER_API_H

#include <stddef.h>

#include "server/audit.h"
#include "server/cache.h"
#include "server/hist.h"

struct mpp_ui;

typedef struct mpp_api {
	mpp_cache *cache;
	mpp_audit *audit;
	const char *db_path;  /* for POST /v1/runs and /v1/jobs */
	const char *token;    /* NULL: write endpoints refuse everyone */
	size_t max_features;  /* more in one request is a 400 */
	mpp_histsvc *history; /* NULL: no history predictions (hist.h) */
	struct mpp_ui *ui;    /* the staff page (ui.h); NULL: not served */
	/* GET /healthz's store state (keeper.h); NULL: writable, schema 0 */
	const struct mpp_keeper *keeper;
} mpp_api;

typedef struct mpp_reply {
	int status;
	const char *content_type;
	char *body; /* malloc'ed; the HTTP layer frees it */
	size_t len;
} mpp_reply;

enum mpp_method { MPP_GET, MPP_POST, MPP_OTHER_METHOD };

/* Which endpoint (metrics.h's enum) a path names and which method it
 * takes; MPP_EP_OTHER for an unknown path. */
int mpp_api_route(const char *path, int *method);

/* 0 when the Authorization header carries the token ("Bearer TOKEN"),
 * compared in constant time; else 401 (missing) or 403 (wrong, or no
 * token configured). */
int mpp_api_check_token(const mpp_api *api, const char *authorization);

/* An error answer {"error": msg}. */
void mpp_api_error(mpp_reply *r, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

void mpp_api_healthz(const mpp_api *api, mpp_reply *r);
void mpp_api_predict(const mpp_api *api, const char *body, size_t len,
		     mpp_reply *r);
void mpp_api_models(const mpp_api *api, mpp_reply *r);
void mpp_api_model(const mpp_api *api, const char *app, mpp_reply *r);
void mpp_api_runs(const mpp_api *api, const char *body, size_t len,
		  mpp_reply *r);
/* POST /v1/jobs: jobcomp records (history/jobcomp.h), all or none. */
void mpp_api_jobs(const mpp_api *api, const char *body, size_t len,
		  mpp_reply *r);
void mpp_api_metrics(mpp_reply *r);

#endif
