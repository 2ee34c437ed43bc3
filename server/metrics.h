/*
 * metrics.h: mpipredictd's counters and their Prometheus text rendering.
 *
 * Process-wide, lock-free (relaxed atomics): request threads count, the
 * /metrics handler renders a snapshot. Counts requests by endpoint and
 * status, a latency histogram by endpoint, predictions by basis, errors by
 * kind, and the number of models served. Not for logging (log.h).
 */
#ifndef MPP_SERVER_METRICS_H
#define MPP_SERVER_METRICS_H

#include <stddef.h>

enum mpp_endpoint {
	MPP_EP_HEALTHZ,
	MPP_EP_PREDICT,
	MPP_EP_MODELS,
	MPP_EP_MODEL, /* /v1/models/{app} */
	MPP_EP_RUNS,
	MPP_EP_JOBS,
	MPP_EP_METRICS,
	MPP_EP_UI,       /* the staff page, ui.h */
	MPP_EP_PROGRESS, /* POST /v1/progress, progress.h */
	MPP_EP_JOB,      /* GET /v1/jobs/{job_id} */
	MPP_EP_OTHER,    /* unknown paths */
	MPP_EP_COUNT
};

/* The path that answered: measured features, parameters through the
 * counters, the app's history, or the run-time law on the parameters
 * (regress/model.h). */
enum mpp_basis {
	MPP_BASIS_FEATURES,
	MPP_BASIS_PARAMETERS,
	MPP_BASIS_HISTORY,
	MPP_BASIS_RUNTIME_LAW,
	MPP_BASIS_COUNT
};

enum mpp_error_kind {
	MPP_ERR_INTERNAL,      /* a 5xx answer */
	MPP_ERR_AUDIT_WRITE,   /* a batch of audit records failed to commit */
	MPP_ERR_AUDIT_DROPPED, /* audit records dropped: the queue was full */
	MPP_ERR_RELOAD,        /* reading the models from the store failed */
	/* Connections the reaper closed (http.c): idle before a request's
	 * first byte (normal: a client keeping a connection it does not
	 * use), the same for a connection whose last request was the staff
	 * page (a browser keeps those; apart, so that loading the page adds
	 * nothing to the others), and with a request in flight that did
	 * not come whole within --request-timeout (worth an alert). */
	MPP_ERR_IDLE_REAPED,
	MPP_ERR_UI_IDLE_REAPED,
	MPP_ERR_TIMEOUT_IN_FLIGHT,
	/* The client closed (or reset) with a request in flight, before
	 * its answer was out. */
	MPP_ERR_CLIENT_CLOSED,
	MPP_ERR_WRITE_RATE, /* writes refused (429): over --write-rate */
	MPP_ERR_COUNT
};

/* A basis as it appears in labels and answers ("features"). */
const char *mpp_basis_name(int basis);

void mpp_metrics_request(int ep, int status, double seconds);
void mpp_metrics_prediction(int basis);
void mpp_metrics_error(int kind, unsigned long n);
void mpp_metrics_models(size_t nmodels); /* after each (re)load */
/* After each training the retraining thread ran (retrain.h): the trainer
 * stored a version (promoted or held), or failed. */
void mpp_metrics_retrain(int failed);
/* Each action of the limit-extension policy (extend.h). */
enum mpp_extension_outcome {
	MPP_EXT_EXTENDED,
	MPP_EXT_OVER_CAP,
	MPP_EXT_RESERVATION,
	MPP_EXT_FAILED,
	MPP_EXT_COUNT
};
void mpp_metrics_extension(int outcome);

/* The Prometheus text exposition of every metric, malloc'ed (caller frees),
 * length in *len; NULL when out of memory. */
char *mpp_metrics_render(size_t *len);

#endif
