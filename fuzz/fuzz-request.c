/*
 * fuzz-request.c: libFuzzer harness for the POST /v1/predict decoder
 * (server/request.h). Any bytes: no crash, leak or undefined behaviour,
 * and a request that decodes keeps the decoder's promises: strings
 * strictly UTF-8 without NUL bytes, labels within their bound, features
 * with unique names and finite values >= 0, counts positive integers.
 */
#include <math.h>
#include <string.h>

#include "fuzz/check.h"
#include "server/request.h"
#include "common/utf8.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void check_text(const char *s, int label, const char *what)
{
	if (s == NULL)
		return;
	size_t n = strlen(s);
	FUZZ_CHECK(mpp_utf8_check(s, n) == n, what);
	FUZZ_CHECK(!label || n <= MPP_REQUEST_MAX_LABEL, what);
}

static void check_count(double x, const char *what)
{
	FUZZ_CHECK(x == -1 || (x >= 1 && x <= 1e9 && x == floor(x)), what);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mpp_request q;
	char err[512];
	int rc = mpp_request_parse((const char *)data, size, 64, &q, err,
				   sizeof err);
	FUZZ_CHECK(rc == MPP_OK || rc == MPP_EINVAL || rc == MPP_ENOMEM,
		   "status");
	FUZZ_CHECK(rc != MPP_EINVAL || err[0] != '\0',
		   "an error says what is wrong");
	if (rc == MPP_EINVAL)
		FUZZ_CHECK(mpp_utf8_check(err, strlen(err)) == strlen(err),
			   "the error is UTF-8");
	if (rc == MPP_OK) {
		check_text(q.app, 1, "app");
		check_text(q.user, 1, "user");
		check_text(q.partition, 1, "partition");
		check_text(q.job_id, 1, "job_id");
		check_text(q.args_string, 0, "args");
		FUZZ_CHECK(q.script == NULL || strlen(q.script) == q.script_len,
			   "script without NUL");
		FUZZ_CHECK(q.submit_line == NULL ||
			       strlen(q.submit_line) == q.submit_line_len,
			   "submit_line without NUL");
		check_count(q.ntasks, "ntasks");
		check_count(q.nodes, "nodes");
		check_count(q.per_node, "ntasks_per_node");
		FUZZ_CHECK(q.nfeatures <= 64, "max_features");
		for (size_t i = 0; i < q.nfeatures; i++) {
			check_text(q.features[i].name, 0, "feature name");
			FUZZ_CHECK(isfinite(q.features[i].value) &&
				       q.features[i].value >= 0,
				   "feature value");
			for (size_t j = 0; j < i; j++)
				FUZZ_CHECK(strcmp(q.features[i].name,
						  q.features[j].name) != 0,
					   "feature names unique");
		}
		for (size_t i = 0; i < q.nargs; i++)
			check_text(q.args[i], 0, "args[i]");
		for (size_t i = 0; i < q.nargv; i++)
			check_text(q.argv[i], 0, "argv[i]");
	}
	mpp_request_free(&q);
	return 0;
}
