/*
 * fuzz-predict.c: libFuzzer harness for the whole prediction path after
 * HTTP (server/api.h, mpp_api_predict: decoding, checks, the batch-script
 * reader, job parameters, the model, the answer), against a store made at
 * start-up with one model (features with power-law parameter models, like
 * tests/server/t-fuzz-predict.sh's, training ranges and an extrapolation
 * fit). Every answer must be a JSON object in
 * strict UTF-8: 200 with finite runtime_s, lower_s <= runtime_s <= upper_s,
 * or 400/404 with an "error" string. A 5xx fails too.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fuzz/check.h"
#include "schema/store.h"
#include "server/api.h"
#include "server/keeper.h"
#include "common/utf8.h"

static mpp_api api;
static mpp_cache cache;

static void add_term(mpp_model *m, size_t i, const char *feature, double coef,
		     double log_c, const char *var, double expo)
{
	mpp_term *t = &m->terms[i];
	t->feature = strdup(feature);
	t->coef = coef;
	t->scale = 1;
	t->pm.cv_mape = 5;
	t->pm.predictable = 1;
	t->pm.log_c = log_c;
	t->pm.nvars = 1;
	t->pm.vars = malloc(sizeof *t->pm.vars);
	t->pm.expo = malloc(sizeof *t->pm.expo);
	t->pm.vars[0] = strdup(var);
	t->pm.expo[0] = expo;
}

/* A store in a fresh folder under $TMPDIR (whoever runs the harness
 * removes it: fuzz/run.sh, the test runner) with the model of app
 * "jacobi". */
static const char *make_store(void)
{
	static char dir[4096], path[4200];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/mpp-fuzz-predict.XXXXXX",
		 tmp && tmp[0] ? tmp : "/tmp");
	if (mkdtemp(dir) == NULL)
		return NULL;
	snprintf(path, sizeof path, "%s/models.db", dir);
	mpp_model *m = mpp_model_new();
	m->app = strdup("jacobi");
	m->build_id = strdup("fuzz");
	m->method = strdup("default");
	m->fit = strdup("ols");
	m->created_at = (double)time(NULL);
	m->intercept = 2;
	m->nterms = 2;
	m->terms = calloc(3, sizeof *m->terms);
	add_term(m, 0, "loop:a.c:1:1.mean", 0.5, 2.302585092994046, "nprocs",
		 1);
	add_term(m, 1, "bytes:x", 0.001, 0, "-n", 2);
	m->ntrain = 10;
	m->nfeatures_in = 2;
	m->cv_mape = 3.5;
	m->cv_mape_params = 7.25;
	m->rel_lo = 0.8;
	m->rel_hi = 1.25;
	m->prel_lo = 0.5;
	m->prel_hi = 2;
	m->coverage = 0.9;
	/* Training ranges: answers outside them take the extrapolated
	 * branch. */
	m->nranges = 2;
	m->range_names = malloc(2 * sizeof *m->range_names);
	m->range_lo = malloc(2 * sizeof *m->range_lo);
	m->range_hi = malloc(2 * sizeof *m->range_hi);
	m->range_names[0] = strdup("nprocs");
	m->range_names[1] = strdup("-n");
	m->range_lo[0] = 1;
	m->range_hi[0] = 4;
	m->range_lo[1] = 16;
	m->range_hi[1] = 128;
	m->xlo = 0.4;
	m->xhi = 2.5;
	mpp_store *s;
	char err[512];
	int rc = mpp_store_open(path, MPP_STORE_CREATE, &s, err, sizeof err);
	if (rc == MPP_OK) {
		rc = mpp_store_save_model(s, m, err, sizeof err);
		mpp_store_close(s);
	}
	mpp_model_free(m);
	if (rc != MPP_OK) {
		fprintf(stderr, "fuzz-predict: %s\n", err);
		return NULL;
	}
	return path;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *db = make_store();
	/* Records are queued, never written (an hour's interval, a batch
	 * never reached) and dropped past 1,000: millions of runs do not
	 * grow the store. */
	mpp_audit *q = mpp_audit_new(1000, 1000000);
	mpp_keeper *k;
	char err[512];
	if (db == NULL || q == NULL ||
	    mpp_keeper_start(db, 3600000, 1000, 1000000, q, &cache, &k, err,
			     sizeof err) != MPP_OK) {
		fprintf(stderr, "fuzz-predict: cannot start: %s\n",
			db ? err : "no store");
		exit(1);
	}
	api = (mpp_api){
	    .cache = &cache, .audit = q, .db_path = db, .max_features = 64};
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mpp_reply r = {0};
	mpp_api_predict(&api, (const char *)data, size, &r);
	FUZZ_CHECK(r.body != NULL && r.len == strlen(r.body), "a body");
	FUZZ_CHECK(mpp_utf8_check(r.body, r.len) == r.len,
		   "the answer is strict UTF-8");
	json_t *j = json_loadb(r.body, r.len, 0, NULL);
	FUZZ_CHECK(json_is_object(j), "the answer is a JSON object");
	if (r.status == 200) {
		double rt = json_number_value(json_object_get(j, "runtime_s"));
		double lo = json_number_value(json_object_get(j, "lower_s"));
		double hi = json_number_value(json_object_get(j, "upper_s"));
		FUZZ_CHECK(isfinite(rt) && isfinite(lo) && isfinite(hi),
			   "a prediction is finite");
		FUZZ_CHECK(lo <= rt && rt <= hi, "lower <= runtime <= upper");
	} else {
		FUZZ_CHECK(r.status == 400 || r.status == 404,
			   "an error is 400 or 404");
		FUZZ_CHECK(json_is_string(json_object_get(j, "error")),
			   "an error has its message");
	}
	json_decref(j);
	free(r.body);
	return 0;
}
