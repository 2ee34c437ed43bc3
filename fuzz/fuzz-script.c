/*
 * fuzz-script.c: libFuzzer harness for the batch-script reader
 * (server/script.h), which reads every job script and submit line the
 * Slurm plugin sends. Any bytes: no crash, leak or undefined behaviour; a
 * job that parses has an executable exactly when it has a launcher, argv
 * entries that are strings, and counts that are -1 or finite and >= 0.
 */
#include <math.h>
#include <string.h>

#include "fuzz/check.h"
#include "regress/model.h"
#include "server/script.h"

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	mpp_script_job job;
	memset(&job, 0, sizeof job);
	char err[256] = "";
	int rc =
	    mpp_script_parse((const char *)data, size, &job, err, sizeof err);
	FUZZ_CHECK(rc == MPP_OK || rc == MPP_EINVAL || rc == MPP_ENOMEM,
		   "status");
	FUZZ_CHECK(rc != MPP_EINVAL || err[0] != '\0', "an error says why");
	if (rc == MPP_OK) {
		FUZZ_CHECK(job.argc == 0 || job.argv != NULL, "argv present");
		for (size_t i = 0; i < job.argc; i++)
			FUZZ_CHECK(job.argv[i] != NULL, "argv[i] a string");
		FUZZ_CHECK((job.exe == NULL) == (job.launcher == NULL) ||
			       job.exe == NULL,
			   "an executable comes with its launcher");
		FUZZ_CHECK(job.ntasks == -1 ||
			       (job.ntasks >= 0 && isfinite(job.ntasks)),
			   "ntasks");
		FUZZ_CHECK(job.nnodes == -1 ||
			       (job.nnodes >= 0 && isfinite(job.nnodes)),
			   "nnodes");
	}
	mpp_script_job_free(&job);
	return 0;
}
