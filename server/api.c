/*
 * api.c: the endpoints of mpipredictd (see api.h and docs/design.md, "REST
 * API"). A prediction request is decoded in one pass (request.h) and
 * checked field by field before any model is touched; every answer is
 * written with yajl's generator, no JSON tree in between; the audit record
 * is queued only once a prediction is answered.
 */
#include "server/api.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <yajl/yajl_gen.h>

#include "regress/memory.h"
#include "regress/params.h"
#include "regress/runs.h"
#include "schema/store.h"
#include "server/keeper.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/request.h"
#include "server/script.h"
#include "common/answer.h"
#include "common/text.h"
#include "common/utf8.h"
#include "history/jobcomp.h"

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
	    {"/v1/jobs", MPP_EP_JOBS, MPP_POST},
	    {"/metrics", MPP_EP_METRICS, MPP_GET},
	    {"/v1/progress", MPP_EP_PROGRESS, MPP_POST},
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
	/* GET /v1/jobs/{job_id} (progress.h); an empty id is its 400. */
	if (strncmp(path, "/v1/jobs/", 9) == 0 && !strchr(path + 9, '/')) {
		*method = MPP_GET;
		return MPP_EP_JOB;
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

/* ---- writing JSON --------------------------------------------------------
 */

static yajl_gen gen_new(void)
{
	return yajl_gen_alloc(NULL);
}

/* A string, or null for NULL. A string that is not strictly UTF-8 (a
 * model's name from a foreign CSV, a URL's bytes; utf8.h) is written with
 * '?' for each byte that does not start a valid sequence, so that no answer
 * ever carries invalid UTF-8. */
static void put_str(yajl_gen g, const char *s)
{
	if (s == NULL) {
		yajl_gen_null(g);
		return;
	}
	size_t n = strlen(s), bad = mpp_utf8_check(s, n);
	if (bad == n) {
		yajl_gen_string(g, (const unsigned char *)s, n);
		return;
	}
	unsigned char *c = malloc(n);
	if (c == NULL) {
		yajl_gen_null(g);
		return;
	}
	memcpy(c, s, bad);
	for (size_t i = bad; i < n;) {
		size_t k = mpp_utf8_seq((const unsigned char *)s + i, n - i);
		if (k == 0) {
			c[i++] = '?';
			continue;
		}
		memcpy(c + i, s + i, k);
		i += k;
	}
	yajl_gen_string(g, c, n);
	free(c);
}

/* A string known to be strictly UTF-8: a literal, or a name the request
 * gave (request.c refuses what is not UTF-8). */
static void put_key(yajl_gen g, const char *key)
{
	yajl_gen_string(g, (const unsigned char *)key, strlen(key));
}

/* A number with 17 significant digits (it reads back as the same double),
 * always with a fraction or exponent; null when not finite. */
static void put_num(yajl_gen g, double x)
{
	if (!isfinite(x)) {
		yajl_gen_null(g);
		return;
	}
	char b[40];
	int n = snprintf(b, sizeof b - 2, "%.17g", x);
	if (strcspn(b, ".e") == (size_t)n) {
		b[n++] = '.';
		b[n++] = '0';
	}
	yajl_gen_number(g, b, (size_t)n);
}

/* Digits written by hand (the same text as yajl_gen_integer's "%lld"),
 * which costs ~900 instructions fewer an integer: an answer has three. */
static void put_int(yajl_gen g, long long v)
{
	char b[24], *e = b + sizeof b, *p = e;
	unsigned long long u =
	    v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
	do
		*--p = (char)('0' + u % 10);
	while ((u /= 10) > 0);
	if (v < 0)
		*--p = '-';
	yajl_gen_number(g, p, (size_t)(e - p));
}

/* Moves what g wrote into the reply and frees g (NULL: out of memory). */
static void reply_gen(mpp_reply *r, int status, yajl_gen g)
{
	const unsigned char *buf;
	size_t len;
	r->status = status;
	r->content_type = "application/json";
	r->body = NULL;
	if (g != NULL &&
	    yajl_gen_get_buf(g, &buf, &len) == yajl_gen_status_ok &&
	    (r->body = malloc(len + 1)) != NULL) {
		memcpy(r->body, buf, len);
		r->body[len] = '\0';
		r->len = len;
	}
	if (g != NULL)
		yajl_gen_free(g);
	if (r->body == NULL) {
		r->status = 500;
		r->body = strdup("{\"error\":\"out of memory\"}");
		r->len = r->body ? strlen(r->body) : 0;
	}
}

void mpp_api_error(mpp_reply *r, int status, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	yajl_gen g = gen_new();
	if (g != NULL) {
		yajl_gen_map_open(g);
		put_key(g, "error");
		put_str(g, msg);
		yajl_gen_map_close(g);
	}
	reply_gen(r, status, g);
}

/* From memory only (the keeper's state and the model snapshot): a health
 * check never waits on the disk. A store that takes no writes is a 503, so
 * that a load balancer or a monitor acts on it; no models is a 200 (the
 * daemon answers, from history or with 404s, and a training fixes it). */
void mpp_api_healthz(const mpp_api *api, mpp_reply *r)
{
	mpp_snapshot *s = mpp_cache_acquire(api->cache);
	size_t n = mpp_snapshot_count(s);
	mpp_snapshot_release(s);
	int writable = api->keeper == NULL || mpp_keeper_writable(api->keeper);
	const char *status = !writable ? "store_not_writable"
			     : n == 0  ? "no_models"
				       : "ok";
	yajl_gen g = gen_new();
	if (g != NULL) {
		yajl_gen_map_open(g);
		put_key(g, "status");
		put_str(g, status);
		put_key(g, "models");
		put_int(g, (long long)n);
		put_key(g, "schema");
		put_int(g, api->keeper ? mpp_keeper_schema(api->keeper) : 0);
		put_key(g, "version");
		put_str(g, MPP_VERSION);
		yajl_gen_map_close(g);
	}
	reply_gen(r, writable ? 200 : 503, g);
}

__attribute__((format(printf, 2, 3))) static void print_to(void *ctx,
							   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(ctx, fmt, ap);
	va_end(ap);
}

void mpp_api_metrics(mpp_reply *r)
{
	char *hist = NULL;
	size_t hlen = 0;
	FILE *f;

	r->body = mpp_metrics_render(&r->len);
	if (r->body == NULL) {
		mpp_api_error(r, 500, "out of memory");
		return;
	}
	/* The history's choice and evidence (hist.h), after the counters. */
	f = open_memstream(&hist, &hlen);
	if (f) {
		mpp_histsvc_metrics(print_to, f);
		if (fclose(f) == 0 && hlen) {
			char *b = realloc(r->body, r->len + hlen + 1);
			if (b) {
				memcpy(b + r->len, hist, hlen + 1);
				r->body = b;
				r->len += hlen;
			}
		}
		free(hist);
	}
	r->status = 200;
	r->content_type = "text/plain; version=0.0.4";
}

/* ---- models ------------------------------------------------------------ */

/* The summary's fields, inside a map the caller opened. */
static void model_summary(yajl_gen g, const mpp_model *m)
{
	put_key(g, "app");
	put_str(g, m->app);
	put_key(g, "id");
	put_int(g, (long long)m->id);
	put_key(g, "version");
	put_int(g, m->version);
	put_key(g, "build_id");
	put_str(g, m->build_id);
	put_key(g, "method");
	put_str(g, m->method);
	put_key(g, "fit");
	put_str(g, m->fit);
	put_key(g, "created_at");
	put_num(g, m->created_at);
	put_key(g, "ntrain");
	put_int(g, (long long)m->ntrain);
	put_key(g, "nterms");
	put_int(g, (long long)m->nterms);
	put_key(g, "cv_mape");
	put_num(g, m->cv_mape);
	put_key(g, "cv_mape_params");
	put_num(g, m->cv_mape_params);
	/* Outside the training ranges: training's extrapolation checks. */
	put_key(g, "x_mape");
	put_num(g, m->x_mape);
	/* The memory regime's beta (regress/memory.h; 0: none). */
	put_key(g, "memory_beta");
	put_num(g, m->mem_beta);
	put_key(g, "coverage");
	put_num(g, m->coverage);
}

void mpp_api_models(const mpp_api *api, mpp_reply *r)
{
	mpp_snapshot *s = mpp_cache_acquire(api->cache);
	yajl_gen g = gen_new();
	if (g != NULL) {
		yajl_gen_map_open(g);
		put_key(g, "models");
		yajl_gen_array_open(g);
		for (size_t i = 0; i < mpp_snapshot_count(s); i++) {
			yajl_gen_map_open(g);
			model_summary(g, mpp_snapshot_at(s, i));
			yajl_gen_map_close(g);
		}
		yajl_gen_array_close(g);
		yajl_gen_map_close(g);
	}
	mpp_snapshot_release(s);
	reply_gen(r, 200, g);
}

static void term_json(yajl_gen g, const mpp_model *m, const mpp_term *t)
{
	yajl_gen_map_open(g);
	put_key(g, "feature");
	put_str(g, t->feature);
	put_key(g, "coef");
	put_num(g, t->coef);
	put_key(g, "center");
	put_num(g, t->center);
	put_key(g, "scale");
	put_num(g, t->scale);
	put_key(g, "aliases");
	yajl_gen_array_open(g);
	for (size_t i = 0; i < t->naliases; i++)
		put_str(g, t->aliases[i]);
	yajl_gen_array_close(g);
	put_key(g, "param_model");
	yajl_gen_map_open(g);
	put_key(g, "log_c");
	put_num(g, t->pm.log_c);
	put_key(g, "exponents");
	yajl_gen_map_open(g);
	for (size_t i = 0; i < t->pm.nvars; i++) {
		put_str(g, t->pm.vars[i]);
		put_num(g, t->pm.expo[i]);
	}
	yajl_gen_map_close(g);
	put_key(g, "cv_mape");
	put_num(g, t->pm.cv_mape);
	put_key(g, "predictable");
	yajl_gen_bool(g, t->pm.predictable != 0);
	/* Its edge laws (regress/model.h), as mpipredict-train --json. */
	put_key(g, "past_range");
	yajl_gen_array_open(g);
	for (size_t k = 0; k < t->pm.nedges; k++) {
		const struct mpp_edge_law *e = &t->pm.edges[k];
		yajl_gen_map_open(g);
		put_key(g, "group");
		put_str(g,
			e->range < m->nranges ? m->range_names[e->range] : "?");
		put_key(g, "a");
		put_num(g, e->a);
		put_key(g, "slope");
		put_num(g, e->b);
		yajl_gen_map_close(g);
	}
	yajl_gen_array_close(g);
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
}

static void pair(yajl_gen g, const char *key, double a, double b)
{
	put_key(g, key);
	yajl_gen_array_open(g);
	put_num(g, a);
	put_num(g, b);
	yajl_gen_array_close(g);
}

void mpp_api_model(const mpp_api *api, const char *app, mpp_reply *r)
{
	mpp_snapshot *s = mpp_cache_acquire(api->cache);
	const mpp_model *m = mpp_snapshot_find(s, app, NULL);
	if (m == NULL) {
		mpp_snapshot_release(s);
		mpp_api_error(r, 404, "app: no model for '%s'", app);
		return;
	}
	yajl_gen g = gen_new();
	if (g != NULL) {
		yajl_gen_map_open(g);
		model_summary(g, m);
		put_key(g, "intercept");
		put_num(g, m->intercept);
		put_key(g, "nfeatures_in");
		put_int(g, (long long)m->nfeatures_in);
		put_key(g, "interval");
		yajl_gen_map_open(g);
		pair(g, "features", m->rel_lo, m->rel_hi);
		pair(g, "parameters", m->prel_lo, m->prel_hi);
		yajl_gen_map_close(g);
		put_key(g, "terms");
		yajl_gen_array_open(g);
		for (size_t i = 0; i < m->nterms; i++)
			term_json(g, m, &m->terms[i]);
		yajl_gen_array_close(g);
		yajl_gen_map_close(g);
	}
	mpp_snapshot_release(s);
	reply_gen(r, 200, g);
}

/* ---- predict ------------------------------------------------------------ */

/* 404 for an app without a model, naming the known apps nearest first
 * (answer.h): a user who typed "hpccg" sees "test_HPCCG". */
static void no_model(mpp_snapshot *s, const char *app, mpp_reply *r)
{
	size_t n = mpp_snapshot_count(s), used = 0;
	const char **names = malloc((n ? n : 1) * sizeof *names);
	char known[512] = "";
	for (size_t i = 0; names && i < n; i++)
		names[i] = mpp_snapshot_at(s, i)->app;
	if (names)
		mpp_names_nearest(app, names, n);
	for (size_t i = 0; names && i < n && i < 8 && used < sizeof known; i++)
		used += (size_t)snprintf(known + used, sizeof known - used,
					 "%s%s", i ? ", " : "", names[i]);
	free(names);
	mpp_api_error(r, 404,
		      "app: no model for '%s'; known: %s (GET /v1/models)", app,
		      known[0] ? known : "none yet");
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

/* The job's parameters: the request's counts first, then what its script
 * (or submit line) says. The arguments: the request's `args`; else, with no
 * script, `argv` after the executable when there is more than it; else the
 * launch line of the script or submit line. An empty args
 * field does not hide the arguments of the script's launch line (a client
 * may send both). */
static int job_params(const mpp_request *q, const mpp_script_job *job,
		      mpp_params *p)
{
	double nodes = q->nodes > 0 ? q->nodes : job->nnodes;
	double ntasks = q->ntasks > 0 ? q->ntasks : job->ntasks;
	if (ntasks <= 0 && nodes > 0 && q->per_node > 0)
		ntasks = nodes * q->per_node;
	const char *s = q->args_string;
	int empty = s ? s[strspn(s, " \t")] == '\0' : q->nargs == 0;
	int rc;
	if (q->has_args && !(empty && job->exe != NULL)) {
		if (s != NULL)
			rc = mpp_params_from_string(s, ntasks, nodes, p);
		else
			rc = mpp_params_from_argv(q->args, q->nargs, ntasks,
						  nodes, p);
	} else if (q->script == NULL && q->nargv > 1) {
		rc = mpp_params_from_argv(q->argv + 1, q->nargv - 1, ntasks,
					  nodes, p);
	} else {
		rc = mpp_params_from_argv((const char *const *)job->argv,
					  job->argc, ntasks, nodes, p);
	}
	/* Declared parameters (script.h; checked when it was read). */
	if (rc == MPP_OK && job->declared != NULL)
		rc = mpp_params_declare(p, job->declared);
	return rc;
}

/* Predicts from measured features. Each of the request's names is looked
 * up once in the model's index (cache.h); the model gets only the values
 * of its own terms, in its own order, so its lookup finds each at once.
 * Names that are no term's are listed in ignored[0..*nignored). */
static int predict_features(const mpp_model *m, const mpp_strmap *terms,
			    const mpp_request *q, const mpp_params *p,
			    mpp_prediction *out, const char **ignored,
			    size_t *nignored, char *err, size_t errlen)
{
	/* Room for every term and the run's peak memory (the memory
	 * regime's footprint, regress/memory.h). */
	mpp_kv *use = malloc((m->nterms + 1) * sizeof *use);
	unsigned char *have = calloc(m->nterms ? m->nterms : 1, 1);
	const mpp_kv *mem = NULL;
	if (use == NULL || have == NULL) {
		free(use);
		free(have);
		return MPP_ENOMEM;
	}
	*nignored = 0;
	for (size_t i = 0; i < q->nfeatures; i++) {
		const char *name = q->features[i].name;
		long t = mpp_strmap_get(terms, name, strlen(name));
		if (t < 0 && m->mem_beta > 0 && !mem &&
		    !strcmp(name, MPP_MEM_FEATURE)) {
			mem = &q->features[i];
		} else if (t < 0) {
			ignored[(*nignored)++] = name;
		} else if (!have[t]) {
			/* The first of a term's names given counts. */
			have[t] = 1;
			use[t].name = m->terms[t].feature;
			use[t].value = q->features[i].value;
		}
	}
	size_t n = 0;
	for (size_t t = 0; t < m->nterms; t++)
		if (have[t])
			use[n++] = use[t];
	if (mem)
		use[n++] = *mem;
	int rc = mpp_model_predict_features(m, use, n, p, out, err, errlen);
	free(use);
	free(have);
	return rc;
}

static void answer(const mpp_model *m, const mpp_prediction *p, int basis,
		   const char *const *ignored, size_t nignored, mpp_reply *r)
{
	yajl_gen g = gen_new();
	if (g != NULL) {
		yajl_gen_map_open(g);
		put_key(g, "app");
		put_str(g, m->app);
		put_key(g, "model");
		yajl_gen_map_open(g);
		put_key(g, "id");
		put_int(g, (long long)m->id);
		put_key(g, "version");
		put_int(g, m->version);
		yajl_gen_map_close(g);
		put_key(g, "runtime_s");
		put_num(g, p->runtime_s);
		put_key(g, "lower_s");
		put_num(g, p->lower_s);
		put_key(g, "upper_s");
		put_num(g, p->upper_s);
		/* The time to give sbatch --time (answer.h): what a user
		 * acts on, the same as mpipredict-predict's limit. */
		char limit[32];
		long long limit_s =
		    mpp_slurm_limit(p->upper_s, limit, sizeof limit);
		if (limit_s > 0) {
			put_key(g, "limit");
			put_str(g, limit);
			put_key(g, "limit_s");
			put_int(g, limit_s);
		}
		put_key(g, "basis");
		put_key(g, mpp_basis_name(basis));
		put_key(g, "ignored_features");
		yajl_gen_array_open(g);
		/* The request's names, checked as UTF-8 when it was read
		 * (request.c): not checked again. */
		for (size_t i = 0; i < nignored; i++)
			put_key(g, ignored[i]);
		yajl_gen_array_close(g);
		/* Parameters outside the training range (issue 15): the
		 * parameters path's interval is then the wider extrapolation
		 * one. */
		if (p->nextrapolated) {
			put_key(g, "extrapolated");
			yajl_gen_array_open(g);
			for (size_t i = 0; i < p->nextrapolated; i++)
				put_key(g, p->extrapolated[i]);
			yajl_gen_array_close(g);
		}
		/* The memory regime's factor (regress/memory.h) and the node
		 * footprint it was read at, when the model has a regime. */
		if (m->mem_beta > 0 && isfinite(p->mem_node_kib)) {
			put_key(g, "memory_factor");
			yajl_gen_double(g, p->mem_factor);
			put_key(g, "node_footprint_mib");
			yajl_gen_double(g, p->mem_node_kib / 1024);
		}
		yajl_gen_map_close(g);
	}
	reply_gen(r, 200, g);
}

/* Predicts with m from the request and answers; -1 with an error reply. */
static int run_model(const mpp_model *m, const mpp_strmap *terms,
		     const mpp_request *q, const mpp_script_job *job,
		     mpp_prediction *out, int *basis, mpp_reply *r)
{
	char err[512] = "";
	int rc;
	const char **ignored = NULL;
	size_t nignored = 0;
	if (q->has_features) {
		/* The job's parameters, when it shows them, judge the range
		 * (extrapolated) as on the parameters path. */
		mpp_params p = {0};
		int known = job_params(q, job, &p) == MPP_OK;
		ignored =
		    malloc((q->nfeatures ? q->nfeatures : 1) * sizeof *ignored);
		rc = ignored
			 ? predict_features(m, terms, q, known ? &p : NULL, out,
					    ignored, &nignored, err, sizeof err)
			 : MPP_ENOMEM;
		mpp_params_free(&p);
		*basis = MPP_BASIS_FEATURES;
	} else {
		mpp_params p = {0};
		rc = job_params(q, job, &p);
		if (rc == MPP_OK)
			rc = mpp_model_predict_params(m, &p, out, err,
						      sizeof err);
		mpp_params_free(&p);
		*basis = rc == MPP_OK && out->path == MPP_PATH_RUNTIME_LAW
			     ? MPP_BASIS_RUNTIME_LAW
			     : MPP_BASIS_PARAMETERS;
	}
	if (rc == MPP_ENOMEM) {
		mpp_api_error(r, 500, "out of memory");
	} else if (rc != MPP_OK) {
		mpp_api_error(r, 400, "%s", err[0] ? err : "cannot predict");
	} else if (!isfinite(out->runtime_s) || !isfinite(out->lower_s) ||
		   !isfinite(out->upper_s)) {
		/* Values far outside what the model saw (a feature of 1e300,
		 * an argument of 1e300) can overflow: the request's doing. */
		mpp_api_error(
		    r, 400, "%s: the prediction overflows for these values",
		    *basis == MPP_BASIS_FEATURES ? "features" : "parameters");
		rc = MPP_EINVAL;
	} else {
		answer(m, out, *basis, ignored, nignored, r);
	}
	free(ignored);
	return rc == MPP_OK && r->status == 200 ? 0 : -1;
}

static void predict(const mpp_api *api, const mpp_request *q, mpp_reply *r)
{
	if (q->app != NULL && q->app[0] == '\0') {
		mpp_api_error(r, 400, "app: empty");
		return;
	}
	mpp_script_job job;
	memset(&job, 0, sizeof job);
	job.ntasks = job.nnodes = -1;
	/* srun's job_submit sees argv[0] alone (Slurm 22.05): the submit
	 * line ("srun -n 4 ./app -n 512") is where its arguments are, and the
	 * script reader reads such a line as it reads a batch script's. */
	const char *text = q->script;
	size_t len = q->script_len;
	if (text == NULL && q->submit_line != NULL && q->nargv <= 1) {
		text = q->submit_line;
		len = q->submit_line_len;
	}
	if (text != NULL) {
		char err[256];
		int rc = mpp_script_parse(text, len, &job, err, sizeof err);
		if (rc != MPP_OK) {
			mpp_api_error(
			    r, rc == MPP_ENOMEM ? 500 : 400, "%s%s",
			    text == q->script ? "" : "submit_line: ", err);
			return;
		}
	}
	/* With a script, its reader decides; without, argv[0] names it. */
	const char *app = q->app    ? q->app
			  : job.app ? job.app
			  : job.exe ? base_name(job.exe)
			  : q->script == NULL && q->nargv > 0
			      ? base_name(q->argv[0])
			      : NULL;
	/* No app, or an app without a model: the user's history answers
	 * when it can (hist.h), else the errors below. */
	double ntasks = q->ntasks > 0 ? q->ntasks : job.ntasks;
	if ((app == NULL || app[0] == '\0') &&
	    mpp_histsvc_answer(api->history, q, NULL, ntasks, api->audit, r) ==
		0) {
		mpp_script_job_free(&job);
		return;
	}
	if (app == NULL || app[0] == '\0') {
		mpp_api_error(r, 400,
			      "app: missing (give app, argv, or a script "
			      "whose launcher line names the executable)");
		mpp_script_job_free(&job);
		return;
	}
	if (!q->has_features && !q->has_args && !q->has_argv && q->ntasks < 0 &&
	    q->nodes < 0 && q->script == NULL && job.exe == NULL) {
		if (mpp_histsvc_answer(api->history, q, app, ntasks, api->audit,
				       r) == 0) {
			mpp_script_job_free(&job);
			return;
		}
		mpp_api_error(r, 400,
			      "features: missing (give features, or job "
			      "parameters: ntasks, nodes, args, argv, "
			      "script)");
		mpp_script_job_free(&job);
		return;
	}
	mpp_snapshot *s = mpp_cache_acquire(api->cache);
	const mpp_strmap *terms;
	const mpp_model *m = mpp_snapshot_find(s, app, &terms);
	mpp_prediction p;
	int basis;
	if (m == NULL) {
		if (mpp_histsvc_answer(api->history, q, app, ntasks, api->audit,
				       r) != 0)
			no_model(s, app, r);
	} else if (run_model(m, terms, q, &job, &p, &basis, r) == 0) {
		/* The plugin sends the uid (no user-database lookup under
		 * slurmctld's locks); the audit shows it as "uid:N". */
		char uid[32];
		if (q->user == NULL && q->uid >= 0)
			snprintf(uid, sizeof uid, "uid:%.0f", q->uid);
		mpp_prediction_rec rec = {
		    .at = now_unix(),
		    .job_id = q->job_id,
		    .app = m->app,
		    .model_id = m->id,
		    .basis = mpp_basis_name(basis),
		    .user = q->user       ? q->user
			    : q->uid >= 0 ? uid
					  : NULL,
		    .partition = q->partition,
		    .runtime_s = p.runtime_s,
		    .lower_s = p.lower_s,
		    .upper_s = p.upper_s,
		};
		mpp_metrics_prediction(basis);
		if (mpp_audit_push(api->audit, &rec) != 0)
			mpp_metrics_error(MPP_ERR_AUDIT_DROPPED, 1);
	}
	mpp_snapshot_release(s);
	mpp_script_job_free(&job);
}

void mpp_api_predict(const mpp_api *api, const char *body, size_t len,
		     mpp_reply *r)
{
	mpp_request q;
	char err[512];
	int rc = mpp_request_parse(body, len, api->max_features, &q, err,
				   sizeof err);
	if (rc == MPP_ENOMEM)
		mpp_api_error(r, 500, "out of memory");
	else if (rc != MPP_OK)
		mpp_api_error(r, 400, "%s", err);
	else
		predict(api, &q, r);
	mpp_request_free(&q);
}

/* ---- runs -----------------------------------------------------------------
 */

static void reply_runs(mpp_reply *r, size_t n)
{
	yajl_gen g = gen_new();
	if (g != NULL) {
		yajl_gen_map_open(g);
		put_key(g, "runs");
		put_int(g, (long long)n);
		yajl_gen_map_close(g);
	}
	reply_gen(r, 200, g);
}

static void first_warning(void *ctx, const char *msg)
{
	char *w = ctx;
	if (w[0] == '\0')
		snprintf(w, 512, "%s", msg);
}

/* The rule of every route into the store (common/text.h) on a run's text
 * fields and the body's feature names; 0, or -1 with err naming the row
 * and the field. */
static int runs_text(const mpp_runs *rs, char *err, size_t errlen)
{
	char why[384];
	for (size_t f = 0; f < rs->nfeatures; f++)
		if (mpp_text_check("a feature name", rs->features[f],
				   strlen(rs->features[f]), MPP_TEXT_FREE, why,
				   sizeof why)) {
			snprintf(err, errlen, "request body: header: %s", why);
			return -1;
		}
	for (size_t i = 0; i < rs->nruns; i++) {
		const mpp_run *u = &rs->runs[i];
		const struct {
			const char *name, *value;
			enum mpp_text_kind kind;
		} field[] = {
		    {"run_id", u->run_id, MPP_TEXT_LABEL},
		    {"app", u->app, MPP_TEXT_LABEL},
		    {"build_id", u->build_id, MPP_TEXT_LABEL},
		    {"started_at", u->started_at, MPP_TEXT_LABEL},
		    {"job_id", u->job_id, MPP_TEXT_LABEL},
		    {"args", u->args, MPP_TEXT_FREE},
		};
		for (size_t k = 0; k < sizeof field / sizeof *field; k++)
			if (field[k].value &&
			    mpp_text_check(field[k].name, field[k].value,
					   strlen(field[k].value),
					   field[k].kind, why, sizeof why)) {
				snprintf(err, errlen,
					 "request body: row %zu: %s", i + 1,
					 why);
				return -1;
			}
	}
	return 0;
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
	} else if (rc == MPP_OK && runs_text(&rs, err, sizeof err) != 0) {
		mpp_api_error(r, 400, "%s", err);
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
			reply_runs(r, rs.nruns);
		if (rc != MPP_OK && rc != MPP_EINVAL)
			mpp_log(MPP_LOG_ERROR, "runs: %s", err);
	}
	mpp_runs_free(&rs);
}

/* ---- jobs -----------------------------------------------------------------
 */

/* POST /v1/jobs: finished jobs' records as mpipredict-jobcomp --from reads
 * them (history/jobcomp.h: one a line, KEY=VALUE fields separated by tabs),
 * checked by the same parser, stored in one transaction with the command's
 * keep rule, or none of them when one is malformed. */
void mpp_api_jobs(const mpp_api *api, const char *body, size_t len,
		  mpp_reply *r)
{
	char err[512] = "", why[384];
	/* The records point into a copy of the body, split in place. */
	char *text = malloc(len + 1);
	mpp_jobcomp *recs = NULL;
	mpp_job_rec *rows = NULL;
	size_t n = 0, cap = 0, lineno = 0;
	int rc = text ? MPP_OK : MPP_ENOMEM;
	if (text) {
		memcpy(text, body, len);
		text[len] = '\0';
	}
	for (size_t pos = 0; rc == MPP_OK && pos < len;) {
		char *line = text + pos, *nl = memchr(line, '\n', len - pos);
		size_t ll = nl ? (size_t)(nl - line) : len - pos;
		pos += ll + 1;
		lineno++;
		line[ll] = '\0';
		if (ll && line[ll - 1] == '\r')
			line[--ll] = '\0';
		if (ll == 0 || line[0] == '#')
			continue;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 16;
			mpp_jobcomp *g = realloc(recs, nc * sizeof *g);
			if (!g) {
				rc = MPP_ENOMEM;
				break;
			}
			recs = g;
			cap = nc;
		}
		mpp_jobcomp_line fl;
		if (mpp_jobcomp_split(line, ll, &fl, why, sizeof why) ||
		    mpp_jobcomp_parse(mpp_jobcomp_line_get, &fl, &recs[n], why,
				      sizeof why)) {
			snprintf(err, sizeof err, "request body:%zu: %s",
				 lineno, why);
			rc = MPP_EINVAL;
			break;
		}
		n++;
	}
	if (rc == MPP_OK && n == 0) {
		snprintf(err, sizeof err,
			 "request body: no job records (one a line, KEY=VALUE "
			 "fields separated by tabs)");
		rc = MPP_EINVAL;
	}
	if (rc == MPP_OK && !(rows = malloc(n * sizeof *rows)))
		rc = MPP_ENOMEM;
	if (rc == MPP_OK) {
		/* A "uid:N" user lives in its record, which realloc moved. */
		for (size_t i = 0; i < n; i++) {
			rows[i] = recs[i].rec;
			if (recs[i].user[0])
				rows[i].user = recs[i].user;
		}
		mpp_store *s = NULL;
		rc = mpp_store_open(api->db_path, 0, &s, err, sizeof err);
		if (rc == MPP_OK)
			rc = mpp_store_put_jobs(s, rows, n, MPP_JOBCOMP_KEEP,
						err, sizeof err);
		if (s)
			mpp_store_close(s);
		if (rc != MPP_OK && rc != MPP_EINVAL)
			mpp_log(MPP_LOG_ERROR, "jobs: %s", err);
	}
	if (rc == MPP_ENOMEM)
		mpp_api_error(r, 500, "out of memory");
	else if (rc == MPP_EINVAL)
		mpp_api_error(r, 400, "%s", err);
	else if (rc != MPP_OK)
		mpp_api_error(r, 500, "%s", err);
	else {
		yajl_gen g = gen_new();
		if (g != NULL) {
			yajl_gen_map_open(g);
			put_key(g, "stored");
			put_int(g, (long long)n);
			yajl_gen_map_close(g);
		}
		reply_gen(r, 200, g);
	}
	free(rows);
	free(recs);
	free(text);
}
