/*
 * metrics.c: counters and the Prometheus text format for mpipredictd (see
 * metrics.h). Every counter is a relaxed atomic: a scrape may see one
 * request counted in its status but not yet in its latency, which
 * Prometheus tolerates; nothing here ever blocks a request thread.
 */
#include "server/metrics.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef _Atomic uint64_t counter;

static const char *const endpoint_names[MPP_EP_COUNT] = {
    "healthz", "predict", "models",   "model", "runs", "jobs",
    "metrics", "ui",      "progress", "job",   "other"};
static const char *const basis_names[MPP_BASIS_COUNT] = {
    "features", "parameters", "history", "runtime-law"};
static const char *const error_names[MPP_ERR_COUNT] = {
    "internal",    "audit_write",    "audit_dropped",     "reload",
    "idle_reaped", "ui_idle_reaped", "timeout_in_flight", "client_closed",
    "write_rate"};

/* The statuses the daemon answers; anything else counts as the last slot. */
static const int statuses[] = {200, 400, 401, 403, 404, 405, 413, 500, 503, 0};
#define NSTATUS (sizeof statuses / sizeof *statuses)

/* Latency bucket upper bounds in seconds (a prediction takes tens of
 * microseconds; the Slurm plugin's budget is 200 ms). */
static const double buckets[] = {
    0.00001, 0.000025, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025,
    0.005,   0.01,     0.025,   0.05,   0.1,     0.25,   0.5,   1.0};
#define NBUCKET (sizeof buckets / sizeof *buckets)

static counter requests[MPP_EP_COUNT][NSTATUS];
static counter latency_le[MPP_EP_COUNT][NBUCKET + 1]; /* last: +Inf */
static counter latency_ns[MPP_EP_COUNT];
static counter predictions[MPP_BASIS_COUNT];
static counter errors[MPP_ERR_COUNT];
static counter models_loaded;
static counter reloads;
static counter retrains[2]; /* stored, failed */
static counter extensions[MPP_EXT_COUNT];

const char *mpp_basis_name(int basis)
{
	return basis_names[basis];
}

void mpp_metrics_request(int ep, int status, double seconds)
{
	size_t s = 0;
	while (statuses[s] != 0 && statuses[s] != status)
		s++;
	atomic_fetch_add_explicit(&requests[ep][s], 1, memory_order_relaxed);
	size_t b = 0;
	while (b < NBUCKET && seconds > buckets[b])
		b++;
	/* Buckets are stored non-cumulative and summed when rendered. */
	atomic_fetch_add_explicit(&latency_le[ep][b], 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&latency_ns[ep], (uint64_t)(seconds * 1e9),
				  memory_order_relaxed);
}

void mpp_metrics_prediction(int basis)
{
	atomic_fetch_add_explicit(&predictions[basis], 1, memory_order_relaxed);
}

void mpp_metrics_error(int kind, unsigned long n)
{
	atomic_fetch_add_explicit(&errors[kind], n, memory_order_relaxed);
}

void mpp_metrics_retrain(int failed)
{
	atomic_fetch_add_explicit(&retrains[failed != 0], 1,
				  memory_order_relaxed);
}

void mpp_metrics_extension(int outcome)
{
	if (outcome >= 0 && outcome < MPP_EXT_COUNT)
		atomic_fetch_add_explicit(&extensions[outcome], 1,
					  memory_order_relaxed);
}

void mpp_metrics_models(size_t nmodels)
{
	atomic_store_explicit(&models_loaded, nmodels, memory_order_relaxed);
	atomic_fetch_add_explicit(&reloads, 1, memory_order_relaxed);
}

static uint64_t get(counter *c)
{
	return atomic_load_explicit(c, memory_order_relaxed);
}

/* Appends to a growing text buffer; sticky failure on out of memory. */
struct text {
	char *buf;
	size_t len, cap;
	int failed;
};

__attribute__((format(printf, 2, 3))) static void add(struct text *t,
						      const char *fmt, ...)
{
	if (t->failed)
		return;
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n < 0) {
			t->failed = 1;
			return;
		}
		if ((size_t)n < t->cap - t->len) {
			t->len += (size_t)n;
			return;
		}
		size_t cap = (t->cap + (size_t)n + 1) * 2;
		char *b = realloc(t->buf, cap);
		if (b == NULL) {
			t->failed = 1;
			return;
		}
		t->buf = b;
		t->cap = cap;
	}
}

char *mpp_metrics_render(size_t *len)
{
	struct text t = {.cap = 8192};
	t.buf = malloc(t.cap);
	if (t.buf == NULL)
		return NULL;
	t.buf[0] = '\0';

	add(&t, "# HELP mpipredictd_requests_total HTTP requests answered, "
		"by endpoint and status.\n"
		"# TYPE mpipredictd_requests_total counter\n");
	for (int e = 0; e < MPP_EP_COUNT; e++)
		for (size_t s = 0; s < NSTATUS; s++) {
			uint64_t v = get(&requests[e][s]);
			if (v == 0)
				continue;
			if (statuses[s] != 0)
				add(&t,
				    "mpipredictd_requests_total{endpoint=\"%"
				    "s\","
				    "status=\"%d\"} %llu\n",
				    endpoint_names[e], statuses[s],
				    (unsigned long long)v);
			else
				add(&t,
				    "mpipredictd_requests_total{endpoint=\"%"
				    "s\","
				    "status=\"other\"} %llu\n",
				    endpoint_names[e], (unsigned long long)v);
		}

	add(&t, "# HELP mpipredictd_request_duration_seconds Time from a "
		"request's headers to its answer.\n"
		"# TYPE mpipredictd_request_duration_seconds histogram\n");
	for (int e = 0; e < MPP_EP_COUNT; e++) {
		uint64_t cum = 0;
		for (size_t b = 0; b <= NBUCKET; b++) {
			cum += get(&latency_le[e][b]);
			if (b < NBUCKET)
				add(&t,
				    "mpipredictd_request_duration_seconds_"
				    "bucket"
				    "{endpoint=\"%s\",le=\"%g\"} %llu\n",
				    endpoint_names[e], buckets[b],
				    (unsigned long long)cum);
			else
				add(&t,
				    "mpipredictd_request_duration_seconds_"
				    "bucket"
				    "{endpoint=\"%s\",le=\"+Inf\"} %llu\n",
				    endpoint_names[e], (unsigned long long)cum);
		}
		add(&t,
		    "mpipredictd_request_duration_seconds_sum{endpoint=\"%s\"} "
		    "%.9f\n"
		    "mpipredictd_request_duration_seconds_count{endpoint=\"%"
		    "s\"}"
		    " %llu\n",
		    endpoint_names[e], (double)get(&latency_ns[e]) / 1e9,
		    endpoint_names[e], (unsigned long long)cum);
	}

	add(&t, "# HELP mpipredictd_predictions_total Predictions answered, "
		"by basis.\n"
		"# TYPE mpipredictd_predictions_total counter\n");
	for (int b = 0; b < MPP_BASIS_COUNT; b++)
		add(&t, "mpipredictd_predictions_total{basis=\"%s\"} %llu\n",
		    basis_names[b], (unsigned long long)get(&predictions[b]));

	add(&t, "# HELP mpipredictd_errors_total Errors inside the daemon, "
		"by kind.\n"
		"# TYPE mpipredictd_errors_total counter\n");
	for (int k = 0; k < MPP_ERR_COUNT; k++)
		add(&t, "mpipredictd_errors_total{kind=\"%s\"} %llu\n",
		    error_names[k], (unsigned long long)get(&errors[k]));

	add(&t,
	    "# HELP mpipredictd_models Active models being served.\n"
	    "# TYPE mpipredictd_models gauge\n"
	    "mpipredictd_models %llu\n"
	    "# HELP mpipredictd_model_loads_total Times the models were "
	    "(re)loaded from the store.\n"
	    "# TYPE mpipredictd_model_loads_total counter\n"
	    "mpipredictd_model_loads_total %llu\n",
	    (unsigned long long)get(&models_loaded),
	    (unsigned long long)get(&reloads));
	add(&t,
	    "# HELP mpipredictd_retrains_total Trainings the daemon ran by "
	    "itself: a version stored (promoted or held), or failed.\n"
	    "# TYPE mpipredictd_retrains_total counter\n"
	    "mpipredictd_retrains_total{outcome=\"stored\"} %llu\n"
	    "mpipredictd_retrains_total{outcome=\"failed\"} %llu\n",
	    (unsigned long long)get(&retrains[0]),
	    (unsigned long long)get(&retrains[1]));
	add(&t,
	    "# HELP mpipredictd_extensions_total The limit-extension "
	    "policy's actions (--extend on): a job's limit extended, not "
	    "extended because the need was over the cap or a reservation "
	    "needs its nodes, or scontrol failed.\n"
	    "# TYPE mpipredictd_extensions_total counter\n"
	    "mpipredictd_extensions_total{outcome=\"extended\"} %llu\n"
	    "mpipredictd_extensions_total{outcome=\"over_cap\"} %llu\n"
	    "mpipredictd_extensions_total{outcome=\"reservation\"} %llu\n"
	    "mpipredictd_extensions_total{outcome=\"failed\"} %llu\n",
	    (unsigned long long)get(&extensions[MPP_EXT_EXTENDED]),
	    (unsigned long long)get(&extensions[MPP_EXT_OVER_CAP]),
	    (unsigned long long)get(&extensions[MPP_EXT_RESERVATION]),
	    (unsigned long long)get(&extensions[MPP_EXT_FAILED]));
	if (t.failed) {
		free(t.buf);
		return NULL;
	}
	*len = t.len;
	return t.buf;
}
