/*
 * fuzz-runs.c: libFuzzer harness for the run-rows CSV reader
 * (regress/runs.h), which reads mpipredict-train's files and every
 * POST /v1/runs body. Any bytes: no crash, leak or undefined behaviour; a
 * set that loads has unique, named feature columns, a value (or NaN) for
 * each, finite run times, and a second source read into the same set keeps
 * it whole whether it loads or not.
 */
#include <math.h>
#include <string.h>

#include "fuzz/check.h"
#include "regress/model.h"
#include "regress/runs.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void warn(void *ctx, const char *msg)
{
	FUZZ_CHECK(msg != NULL && msg[0] != '\0', "a warning says something");
	++*(size_t *)ctx;
}

static void check_set(const mpp_runs *rs)
{
	for (size_t f = 0; f < rs->nfeatures; f++) {
		FUZZ_CHECK(rs->features[f][0] != '\0', "a column has a name");
		for (size_t g = 0; g < f && rs->nfeatures < 2000; g++)
			FUZZ_CHECK(strcmp(rs->features[f], rs->features[g]),
				   "column names unique");
	}
	for (size_t r = 0; r < rs->nruns; r++) {
		FUZZ_CHECK(isfinite(rs->runs[r].runtime_s), "runtime_s finite");
		for (size_t f = 0; f < rs->nfeatures; f++)
			FUZZ_CHECK(isnan(rs->runs[r].values[f]) ||
				       isfinite(rs->runs[r].values[f]),
				   "values finite or absent");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mpp_runs rs = {0};
	char err[512] = "";
	size_t nwarn = 0;
	int rc = mpp_runs_parse(&rs, "fuzz", (const char *)data, size, warn,
				&nwarn, err, sizeof err);
	FUZZ_CHECK(rc == MPP_OK || rc == MPP_EINVAL || rc == MPP_ENOMEM,
		   "status");
	FUZZ_CHECK(rc == MPP_OK || err[0] != '\0', "an error names the input");
	FUZZ_CHECK(rc != MPP_OK || rs.nruns > 0, "a loaded set has a run");
	check_set(&rs);
	if (rc == MPP_OK) {
		/* The same text again: its run ids are duplicates now, or it
		 * loads; either way the set stays consistent. */
		size_t nruns = rs.nruns, nfeatures = rs.nfeatures;
		int again = mpp_runs_parse(&rs, "fuzz2", (const char *)data,
					   size, warn, &nwarn, err, sizeof err);
		FUZZ_CHECK(again == MPP_OK ||
			       (rs.nruns == nruns && rs.nfeatures == nfeatures),
			   "a refused source leaves the set as it was");
		check_set(&rs);
	}
	mpp_runs_free(&rs);
	return 0;
}
