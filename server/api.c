/*
 * api.c: the endpoints of mpipredictd (see api.h and DESIGN.md, "REST
 * API"). JSON goes through jansson; requests are validated field by field
 * before any model is touched, and the audit record is queued only once a
 * prediction is answered.
 */
#include "server/api.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "regress/params.h"
#include "regress/runs.h"
#include "schema/store.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/script.h"

#define JSON_OUT_FLAGS (JSON_COMPACT | JSON_REAL_PRECISION(17))

int mpp_api_route(const char *path, int *method)
{
	static const struct {
		const char *path;
		int ep, method;
	} routes[] = {
	    {"/healthz", MPP_EP_HEALTHZ, MPP_GET},
	    {"/v1/predict", MPP_EP_PREDICT, MPP_POST},
	    {"/v1/models", MPP_EP_MODELS, MPP_GET},
	    {"/v1/runs", MPP_EP_RUNS, MPP_POST},
	    {"/metrics", MPP_EP_METRICS, MPP_GET},
	};
	for (size_t i = 0; i < sizeof routes / sizeof *routes; i++)
		if (strcmp(path, routes[i].path) == 0) {
			*method = routes[i].method;
			return routes[i].ep;
		}
	if (strncmp(path, "/v1/models/", 11) == 0 && path[11] != '\0' &&
	    strchr(path + 11, '/') == NULL) {
		*method = MPP_GET;
		return MPP_EP_MODEL;
	}
	*method = MPP_OTHER_METHOD;
	return MPP_EP_OTHER;
}

int mpp_api_check_token(const mpp_api *api, const char *authorization)
{
	if (authorization == NULL)
		return 401;
	if (strncmp(authorization, "Bearer ", 7) != 0)
		return 401;
	if (api->token == NULL)
		return 403;
	/* Constant time: the loop runs over the configured token whatever
	 * the attempt, and no byte comparison exits early. */
	const char *a = authorization + 7;
	size_t alen = strlen(a), tlen = strlen(api->token);
	volatile unsigned char diff = alen != tlen;
	for (size_t i = 0; i < tlen; i++)
		diff |= (unsigned char)(i < alen ? a[i] : 0) ^
			(unsigned char)api->token[i];
	return diff == 0 ? 0 : 403;
}

static void reply_json(mpp_reply *r, int status, json_t *j)
{
	r->status = status;
	r->content_type = "application/json";
	r->body = j ? json_dumps(j, JSON_OUT_FLAGS) : NULL;
	json_decref(j);
	if (r->body == NULL) {
		r->status = 500;
		r->body = strdup("{\"error\":\"out of memory\"}");
	}
	r->len = r->body ? strlen(r->body) : 0;
}

void mpp_api_error(mpp_reply *r, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	reply_json(r, status, json_pack("{s:s}", "error", msg));
}

/* A JSON number for x, or null when x is not finite (jansson refuses NaN). */
static json_t *num(double x)
{
	return isfinite(x) ? json_real(x) : json_null();
}

void mpp_api_healthz(const mpp_api *api, mpp_reply *r)
{
	mpp_snapshot *s = mpp_cache_acquire(api->cache);
	size_t n = mpp_snapshot_count(s);
	mpp_snapshot_release(s);
	reply_json(
	    r, 200,
	    json_pack("{s:s,s:I}", "status", "ok", "models", (json_int_t)n));
}

void mpp_api_metrics(mpp_reply *r)
{
	r->body = mpp_metrics_render(&r->len);
	if (r->body == NULL) {
		mpp_api_error(r, 500, "out of memory");
		return;
	}
	r->status = 200;
	r->content_type = "text/plain; version=0.0.4";
}

/* ---- models ------------------------------------------------------------ */

static json_t *model_summary(const mpp_model *m)
{
	return json_pack("{s:s,s:I,s:I,s:s?,s:s?,s:s?,s:o,s:I,s:I,s:o,s:o,s:o}",
			 "app", m->app, "id", (json_int_t)m->id, "version",
			 (json_int_t)m->version, "build_id", m->build_id,
			 "method", m->method, "fit", m->fit, "created_at",
			 num(m->created_at), "ntrain", (json_int_t)m->ntrain,
			 "nterms", (json_int_t)m->nterms, "cv_mape",
			 num(m->cv_mape), "cv_mape_params",
			 num(m->cv_mape_params), "coverage", num(m->coverage));
}

void mpp_api_models(const mpp_api *api, mpp_reply *r)
{
	mpp_snapshot *s = mpp_cache_acquire(api->cache);
	json_t *arr = json_array();
	for (size_t i = 0; arr && i < mpp_snapshot_count(s); i++)
		json_array_append_new(arr,
				      model_summary(mpp_snapshot_at(s, i)));
	mpp_snapshot_release(s);
	reply_json(r, 200, json_pack("{s:o}", "models", arr));
}

static json_t *term_json(const mpp_term *t)
{
	json_t *aliases = json_array();
	for (size_t i = 0; aliases && i < t->naliases; i++)
		json_array_append_new(aliases, json_string(t->aliases[i]));
	json_t *expo = json_object();
	for (size_t i = 0; expo && i < t->pm.nvars; i++)
		json_object_set_new(expo, t->pm.vars[i], num(t->pm.expo[i]));
	return json_pack("{s:s,s:o,s:o,s:o,s:o,s:{s:o,s:o,s:o,s:b}}", "feature",
			 t->feature, "coef", num(t->coef), "center",
			 num(t->center), "scale", num(t->scale), "aliases",
			 aliases, "param_model", "log_c", num(t->pm.log_c),
			 "exponents", expo, "cv_mape", num(t->pm.cv_mape),
			 "predictable", t->pm.predictable);
}

void mpp_api_model(const mpp_api *api, const char *app, mpp_reply *r)
{
	mpp_snapshot *s = mpp_cache_acquire(api->cache);
	const mpp_model *m = mpp_snapshot_find(s, app);
	if (m == NULL) {
		mpp_snapshot_release(s);
		mpp_api_error(r, 404, "app: no model for '%s'", app);
		return;
	}
	json_t *j = model_summary(m);
	json_t *terms = json_array();
	for (size_t i = 0; terms && i < m->nterms; i++)
		json_array_append_new(terms, term_json(&m->terms[i]));
	if (j) {
		json_object_set_new(j, "intercept", num(m->intercept));
		json_object_set_new(j, "nfeatures_in",
				    json_integer((json_int_t)m->nfeatures_in));
		json_object_set_new(j, "interval",
				    json_pack("{s:[o,o],s:[o,o]}", "features",
					      num(m->rel_lo), num(m->rel_hi),
					      "parameters", num(m->prel_lo),
					      num(m->prel_hi)));
		json_object_set_new(j, "terms", terms);
	} else {
		json_decref(terms);
	}
	mpp_snapshot_release(s);
	reply_json(r, 200, j);
}

/* ---- predict ------------------------------------------------------------ */

/* The request's fields after type checks; borrowed from the JSON tree. */
struct predict_req {
	const char *app, *user, *partition, *script;
	char job_id[64];
	int has_job_id;
	json_t *features, *args;
	double ntasks, nodes, per_node;
};

/* An optional string field; 0 when absent or a string, else -1 with an
 * error reply. */
static int opt_string(json_t *root, const char *key, const char **out,
		      mpp_reply *r)
{
	json_t *v = json_object_get(root, key);
	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_string(v)) {
		mpp_api_error(r, 400, "%s: expected a string", key);
		return -1;
	}
	*out = json_string_value(v);
	return 0;
}

/* An optional positive count; -1 stays when absent. */
static int opt_count(json_t *root, const char *key, double *out, mpp_reply *r)
{
	json_t *v = json_object_get(root, key);
	*out = -1;
	if (v == NULL || json_is_null(v))
		return 0;
	double d = json_number_value(v);
	if (!json_is_number(v) || !(d >= 1 && d <= 1e9) || d != floor(d)) {
		mpp_api_error(r, 400,
			      "%s: expected a positive integer up to 1e9", key);
		return -1;
	}
	*out = d;
	return 0;
}

static int read_request(json_t *root, struct predict_req *q, mpp_reply *r)
{
	memset(q, 0, sizeof *q);
	if (opt_string(root, "app", &q->app, r) ||
	    opt_string(root, "user", &q->user, r) ||
	    opt_string(root, "partition", &q->partition, r) ||
	    opt_string(root, "script", &q->script, r) ||
	    opt_count(root, "ntasks", &q->ntasks, r) ||
	    opt_count(root, "nodes", &q->nodes, r) ||
	    opt_count(root, "ntasks_per_node", &q->per_node, r))
		return -1;
	if (q->app != NULL && q->app[0] == '\0') {
		mpp_api_error(r, 400, "app: empty");
		return -1;
	}
	json_t *v = json_object_get(root, "job_id");
	if (json_is_string(v) || json_is_integer(v)) {
		q->has_job_id = 1;
		if (json_is_string(v))
			snprintf(q->job_id, sizeof q->job_id, "%s",
				 json_string_value(v));
		else
			snprintf(q->job_id, sizeof q->job_id, "%lld",
				 (long long)json_integer_value(v));
	} else if (v != NULL && !json_is_null(v)) {
		mpp_api_error(r, 400, "job_id: expected a string or integer");
		return -1;
	}
	v = json_object_get(root, "time_limit_s");
	if (v != NULL && !json_is_null(v) &&
	    (!json_is_number(v) || !(json_number_value(v) >= 0))) {
		mpp_api_error(r, 400, "time_limit_s: expected a number >= 0");
		return -1;
	}
	v = json_object_get(root, "features");
	if (v != NULL && !json_is_null(v)) {
		if (!json_is_object(v)) {
			mpp_api_error(r, 400, "features: expected an object");
			return -1;
		}
		q->features = v;
	}
	v = json_object_get(root, "args");
	if (v != NULL && !json_is_null(v)) {
		for (size_t i = 0; i < json_array_size(v); i++) {
			if (!json_is_string(json_array_get(v, i))) {
				mpp_api_error(
				    r, 400, "args[%zu]: expected a string", i);
				return -1;
			}
		}
		if (!json_is_array(v) && !json_is_string(v)) {
			mpp_api_error(r, 400,
				      "args: expected an array of strings or "
				      "a string");
			return -1;
		}
		q->args = v;
	}
	return 0;
}

/* Features as name/value pairs, each checked; the names stay borrowed. */
static mpp_kv *read_features(const mpp_api *api, json_t *obj, size_t *n,
			     mpp_reply *r)
{
	size_t count = json_object_size(obj);
	if (count > api->max_features) {
		mpp_api_error(r, 400,
			      "features: %zu given, more than the limit of %zu",
			      count, api->max_features);
		return NULL;
	}
	mpp_kv *kv = malloc((count ? count : 1) * sizeof *kv);
	if (kv == NULL) {
		mpp_api_error(r, 500, "out of memory");
		return NULL;
	}
	const char *name;
	json_t *v;
	*n = 0;
	json_object_foreach(obj, name, v)
	{
		double d = json_number_value(v);
		if (!json_is_number(v) || !isfinite(d) || d < 0) {
			mpp_api_error(r, 400,
				      "features.%s: expected a finite number "
				      ">= 0",
				      name);
			free(kv);
			return NULL;
		}
		kv[*n].name = name;
		kv[(*n)++].value = d;
	}
	return kv;
}

/* The basename of an executable path (a pointer into it). */
static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

static double now_unix(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The job's parameters: the request's fields first, then what its script
 * says. An empty args field does not hide the arguments of the script's
 * launch line (a client may send both). */
static int job_params(const struct predict_req *q, const mpp_script_job *job,
		      mpp_params *p)
{
	double nodes = q->nodes > 0 ? q->nodes : job->nnodes;
	double ntasks = q->ntasks > 0 ? q->ntasks : job->ntasks;
	if (ntasks <= 0 && nodes > 0 && q->per_node > 0)
		ntasks = nodes * q->per_node;
	const char *s = json_string_value(q->args);
	int empty =
	    s ? s[strspn(s, " \t")] == '\0' : json_array_size(q->args) == 0;
	if (q->args == NULL || (empty && job->exe != NULL))
		return mpp_params_from_argv((const char *const *)job->argv,
					    job->argc, ntasks, nodes, p);
	if (s != NULL)
		return mpp_params_from_string(s, ntasks, nodes, p);
	size_t argc = json_array_size(q->args);
	const char **argv = malloc((argc + 1) * sizeof *argv);
	if (argv == NULL)
		return MPP_ENOMEM;
	for (size_t i = 0; i < argc; i++)
		argv[i] = json_string_value(json_array_get(q->args, i));
	int rc = mpp_params_from_argv(argv, argc, ntasks, nodes, p);
	free(argv);
	return rc;
}

/* Predicts with m from the request; fills out, the basis and the ignored
 * feature names (an array the caller owns). -1 with an error reply. */
static int run_model(const mpp_api *api, const mpp_model *m,
		     const struct predict_req *q, const mpp_script_job *job,
		     mpp_prediction *out, int *basis, json_t *ignored,
		     mpp_reply *r)
{
	char err[512] = "";
	int rc;
	if (q->features != NULL) {
		size_t n;
		mpp_kv *kv = read_features(api, q->features, &n, r);
		if (kv == NULL)
			return -1;
		rc = mpp_model_predict_features(m, kv, n, out, err, sizeof err);
		for (size_t i = 0; rc == MPP_OK && i < n; i++)
			if (mpp_model_find_term(m, kv[i].name) < 0)
				json_array_append_new(ignored,
						      json_string(kv[i].name));
		free(kv);
		*basis = MPP_BASIS_FEATURES;
	} else {
		mpp_params p = {0};
		rc = job_params(q, job, &p);
		if (rc != MPP_OK) {
			mpp_params_free(&p);
			mpp_api_error(r, 500, "out of memory");
			return -1;
		}
		rc = mpp_model_predict_params(m, &p, out, err, sizeof err);
		mpp_params_free(&p);
		*basis = MPP_BASIS_PARAMETERS;
	}
	if (rc == MPP_ENOMEM) {
		mpp_api_error(r, 500, "out of memory");
		return -1;
	}
	if (rc != MPP_OK) {
		mpp_api_error(r, 400, "%s", err[0] ? err : "cannot predict");
		return -1;
	}
	/* Values far outside what the model saw (a feature of 1e300, an
	 * argument of 1e300) can overflow: the request's doing, not a fault. */
	if (!isfinite(out->runtime_s) || !isfinite(out->lower_s) ||
	    !isfinite(out->upper_s)) {
		mpp_api_error(
		    r, 400, "%s: the prediction overflows for these values",
		    *basis == MPP_BASIS_FEATURES ? "features" : "parameters");
		return -1;
	}
	return 0;
}

static void predict(const mpp_api *api, json_t *root, mpp_reply *r)
{
	struct predict_req q;
	if (!json_is_object(root)) {
		mpp_api_error(r, 400, "body: expected a JSON object");
		return;
	}
	if (read_request(root, &q, r))
		return;
	mpp_script_job job;
	memset(&job, 0, sizeof job);
	job.ntasks = job.nnodes = -1;
	if (q.script != NULL) {
		char err[256];
		int rc = mpp_script_parse(q.script, strlen(q.script), &job, err,
					  sizeof err);
		if (rc != MPP_OK) {
			mpp_api_error(r, rc == MPP_ENOMEM ? 500 : 400, "%s",
				      err);
			return;
		}
	}
	const char *app = q.app     ? q.app
			  : job.app ? job.app
			  : job.exe ? base_name(job.exe)
				    : NULL;
	if (app == NULL || app[0] == '\0') {
		mpp_api_error(r, 400,
			      "app: missing (give app, or a script whose "
			      "launcher line names the executable)");
		mpp_script_job_free(&job);
		return;
	}
	if (q.features == NULL && q.args == NULL && q.ntasks < 0 &&
	    q.nodes < 0 && q.script == NULL) {
		mpp_api_error(r, 400,
			      "features: missing (give features, or job "
			      "parameters: ntasks, nodes, args, script)");
		mpp_script_job_free(&job);
		return;
	}
	mpp_snapshot *s = mpp_cache_acquire(api->cache);
	const mpp_model *m = mpp_snapshot_find(s, app);
	json_t *ignored = json_array();
	mpp_prediction p;
	int basis;
	if (m == NULL) {
		mpp_api_error(r, 404, "app: no model for '%s'", app);
	} else if (ignored == NULL) {
		mpp_api_error(r, 500, "out of memory");
	} else if (run_model(api, m, &q, &job, &p, &basis, ignored, r) == 0) {
		mpp_prediction_rec rec = {
		    .at = now_unix(),
		    .job_id = q.has_job_id ? q.job_id : NULL,
		    .app = m->app,
		    .model_id = m->id,
		    .basis = mpp_basis_name(basis),
		    .user = q.user,
		    .partition = q.partition,
		    .runtime_s = p.runtime_s,
		    .lower_s = p.lower_s,
		    .upper_s = p.upper_s,
		};
		json_t *ans = json_pack(
		    "{s:s,s:{s:I,s:i},s:f,s:f,s:f,s:s,s:O}", "app", m->app,
		    "model", "id", (json_int_t)m->id, "version", m->version,
		    "runtime_s", p.runtime_s, "lower_s", p.lower_s, "upper_s",
		    p.upper_s, "basis", mpp_basis_name(basis),
		    "ignored_features", ignored);
		reply_json(r, 200, ans);
		if (r->status == 200) {
			mpp_metrics_prediction(basis);
			if (mpp_audit_push(api->audit, &rec) != 0)
				mpp_metrics_error(MPP_ERR_AUDIT_DROPPED, 1);
		}
	}
	json_decref(ignored);
	mpp_snapshot_release(s);
	mpp_script_job_free(&job);
}

void mpp_api_predict(const mpp_api *api, const char *body, size_t len,
		     mpp_reply *r)
{
	json_error_t je;
	json_t *root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &je);
	if (root == NULL) {
		mpp_api_error(r, 400,
			      "body: invalid JSON at line %d, column %d: %s",
			      je.line, je.column, je.text);
		return;
	}
	predict(api, root, r);
	json_decref(root);
}

/* ---- runs -----------------------------------------------------------------
 */

static void first_warning(void *ctx, const char *msg)
{
	char *w = ctx;
	if (w[0] == '\0')
		snprintf(w, 512, "%s", msg);
}

void mpp_api_runs(const mpp_api *api, const char *body, size_t len,
		  mpp_reply *r)
{
	char warn[512] = "", err[512] = "";
	mpp_runs rs = {0};
	int rc = mpp_runs_parse(&rs, "request body", body, len, first_warning,
				warn, err, sizeof err);
	if (rc == MPP_OK && warn[0] != '\0') {
		/* A malformed row rejects the whole body: an ingest is all or
		 * nothing, never the rows that happened to parse. */
		mpp_api_error(r, 400, "%s", warn);
	} else if (rc != MPP_OK) {
		mpp_api_error(r, rc == MPP_ENOMEM ? 500 : 400, "%s",
			      err[0] ? err : warn);
	} else {
		mpp_store *s = NULL;
		rc = mpp_store_open(api->db_path, 0, &s, err, sizeof err);
		if (rc == MPP_OK)
			rc = mpp_store_add_runs(s, &rs, err, sizeof err);
		if (s)
			mpp_store_close(s);
		if (rc == MPP_EINVAL)
			mpp_api_error(r, 400, "%s", err);
		else if (rc != MPP_OK)
			mpp_api_error(r, 500, "%s", err);
		else
			reply_json(
			    r, 200,
			    json_pack("{s:I}", "runs", (json_int_t)rs.nruns));
		if (rc != MPP_OK && rc != MPP_EINVAL)
			mpp_log(MPP_LOG_ERROR, "runs: %s", err);
	}
	mpp_runs_free(&rs);
}
