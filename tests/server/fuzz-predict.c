/*
 * fuzz-predict: feeds mpp_api_predict() (the whole POST /v1/predict path
 * after HTTP: JSON, validation, batch-script reader, parameters, model)
 * with mutations of valid request bodies, deterministically from a seed.
 * Every answer must be a JSON object with either an "error" (status 400 or
 * 404) or a finite "runtime_s" (status 200); a 5xx or a crash (under the
 * sanitizers in `make check SANITIZE=1`) fails. Test helper only.
 *
 *   fuzz-predict DB SEED ITERATIONS BODY.json...
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/api.h"
#include "server/keeper.h"

/* Fragments that tend to reach corners: JSON syntax, escapes, numbers at
 * the edges, shell quoting, launcher options. */
static const char *const frags[] = {
    "\"",   "\\",          "{",     "}",           "[",
    "]",    ":",           ",",     "-",           "1e400",
    "null", "\"\\u0000\"", "srun ", "mpirun -np ", "'",
    "\\n",  "#SBATCH -N ", "0",     "-1",          "99999999999999999999",
    "\\\"", "<<EOF\\n",    "2>&1 ", "--ntasks=",   "#MPIPREDICT app=",
    "true", "[]",          "{}",    "1.5",         "\"\\ud800\"",
};
#define NFRAGS (sizeof frags / sizeof *frags)

static unsigned long long state;

static unsigned next(void)
{
	state = state * 6364136223846793005ULL + 1442695040888963407ULL;
	return (unsigned)(state >> 33);
}

static size_t mutate(char *buf, size_t len, size_t cap)
{
	int k = 1 + (int)(next() % 4);
	for (int j = 0; j < k; j++) {
		size_t pos = len ? next() % len : 0;
		switch (next() % 3) {
		case 0:
			if (len)
				buf[pos] = (char)(next() % 256);
			break;
		case 1:
			if (len > 1) {
				memmove(buf + pos, buf + pos + 1,
					len - pos - 1);
				len--;
			}
			break;
		default: {
			const char *f = frags[next() % NFRAGS];
			size_t fl = strlen(f);
			if (len + fl < cap) {
				memmove(buf + pos + fl, buf + pos, len - pos);
				memcpy(buf + pos, f, fl);
				len += fl;
			}
		}
		}
	}
	return len;
}

static int check(const mpp_reply *r, const char *in, size_t len)
{
	json_t *j = json_loadb(r->body, r->len, 0, NULL);
	int ok = json_is_object(j);
	if (ok && r->status == 200)
		ok = isfinite(
		    json_number_value(json_object_get(j, "runtime_s")));
	else if (ok)
		ok = (r->status == 400 || r->status == 404) &&
		     json_is_string(json_object_get(j, "error"));
	json_decref(j);
	if (!ok)
		printf("expected 200 with runtime_s or 400/404 with error, got "
		       "%d %.*s for body %.*s\n",
		       r->status, (int)r->len, r->body, (int)len, in);
	return ok;
}

int main(int argc, char **argv)
{
	if (argc < 5) {
		fprintf(stderr, "usage: fuzz-predict DB SEED ITERATIONS "
				"BODY.json...\n");
		return 1;
	}
	mpp_audit *q = mpp_audit_new(1000, 100);
	mpp_cache cache;
	mpp_keeper *k;
	char err[256];
	if (q == NULL || mpp_keeper_start(argv[1], 10, 50, 100, q, &cache, &k,
					  err, sizeof err) != MPP_OK) {
		fprintf(stderr, "fuzz-predict: %s\n", err);
		return 2;
	}
	mpp_api api = {.cache = &cache,
		       .audit = q,
		       .db_path = argv[1],
		       .max_features = 4096};
	state = strtoull(argv[2], NULL, 10);
	long iterations = atol(argv[3]);
	long counts[3] = {0};
	int fail = 0;
	static char base[65536], buf[65536 + 1024];
	for (int f = 4; f < argc && !fail; f++) {
		FILE *fp = fopen(argv[f], "r");
		size_t n = fp ? fread(base, 1, sizeof base, fp) : 0;
		if (fp)
			fclose(fp);
		for (long i = 0; i < iterations && !fail; i++) {
			memcpy(buf, base, n);
			size_t len = mutate(buf, n, sizeof buf);
			mpp_reply r = {0};
			mpp_api_predict(&api, buf, len, &r);
			fail = !check(&r, buf, len);
			counts[r.status == 200 ? 0 : r.status == 400 ? 1 : 2]++;
			free(r.body);
		}
	}
	mpp_keeper_stop(k);
	mpp_cache_destroy(&cache);
	mpp_audit_free(q);
	printf("answered %ld x 200, %ld x 400, %ld x other\n", counts[0],
	       counts[1], counts[2]);
	return fail;
}
