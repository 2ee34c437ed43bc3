/*
 * fuzz-trace.c: libFuzzer harness for the trace reader and the replay
 * writer of mpipredict-simulate (simulate/ti.h), which read the files a
 * user names with --train and --trace. The input is rank 0's file of a
 * one-rank trace (its meta is fixed). Any bytes: no crash, leak or
 * undefined behaviour; a refused file gets an error naming it; a trace
 * that loads starts with init, has finite computation >= 0 and no
 * `recvd` left (each became a receive before its completion); it
 * converts to replay files, and scales against itself (the laws of a
 * one-input training set) without failing.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz/check.h"
#include "simulate/ti.h"

static char dir[4096], rank0[4200], out[4200];

/* The scratch directory goes when the process ends (the replay files are
 * r0.ti and list: one rank). */
static void cleanup(void)
{
	const char *const files[] = {"out/r0.ti", "out/list", "out",
				     "rank-0.ti", "meta"};
	char p[4300];
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, files[i]);
		remove(p);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/mpp-fuzz-trace.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	char meta[4200];
	snprintf(meta, sizeof meta, "%s/meta", dir);
	FILE *f = fopen(meta, "w");
	if (!f || fputs("nprocs 1\nargs -n 8\n", f) < 0 || fclose(f) != 0)
		abort();
	snprintf(rank0, sizeof rank0, "%s/rank-0.ti", dir);
	snprintf(out, sizeof out, "%s/out", dir);
	if (mkdir(out, 0700) < 0)
		abort();
	atexit(cleanup);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	FILE *f = fopen(rank0, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	struct mpp_trace t, train;
	char err[1024] = "", rep[4096];
	if (mpp_trace_read(dir, &t, err, sizeof err) < 0) {
		FUZZ_CHECK(strstr(err, dir) != NULL ||
			       !strcmp(err, "out of memory"),
			   "a refused trace's error names its file");
		mpp_trace_free(&t);
		return 0;
	}
	FUZZ_CHECK(t.nranks == 1 && t.n[0] > 0 &&
		       !strcmp(t.a[0][0].name, "init"),
		   "a loaded trace starts with init");
	for (size_t i = 0; i < t.n[0]; i++) {
		FUZZ_CHECK(isfinite(t.a[0][i].flops) && t.a[0][i].flops >= 0,
			   "computation finite and >= 0");
		FUZZ_CHECK(strcmp(t.a[0][i].name, "recvd"),
			   "a recvd became a receive");
	}
	size_t approx = 0;
	FUZZ_CHECK(mpp_trace_write_replay(&t, out, &approx, err, sizeof err) ==
			   0 ||
		       err[0] != '\0',
		   "replay files written, or an error");
	if (mpp_trace_read(dir, &train, err, sizeof err) == 0) {
		int rc = mpp_trace_scale(&t, &train, 1, "-n 8", 0, rep,
					 sizeof rep, err, sizeof err);
		FUZZ_CHECK(rc == 0 || err[0] != '\0', "scaled, or an error");
		for (size_t i = 0; rc == 0 && i < t.n[0]; i++)
			FUZZ_CHECK(isfinite(t.a[0][i].flops) &&
				       t.a[0][i].flops >= 0,
				   "scaled computation finite and >= 0");
		/* Counted work from the input's own size: any positive or
		 * odd value must leave a finite, non-negative computation. */
		double work[1] = {(double)size - 1}, factor = 1;
		if (rc == 0 &&
		    mpp_trace_work_cost(&t, &train, 1, work, "-n 8", 0, &factor,
					rep, sizeof rep, err, sizeof err) == 0)
			for (size_t i = 0; i < t.n[0]; i++)
				FUZZ_CHECK(isfinite(t.a[0][i].flops) &&
					       t.a[0][i].flops >= 0,
					   "computation from counted work "
					   "finite and >= 0");
		size_t changed = 0;
		const struct mpp_trace *src[2] = {&train, &train};
		if (rc == 0 &&
		    mpp_trace_noise(&t, src, 2, &changed, err, sizeof err) == 0)
			for (size_t i = 0; i < t.n[0]; i++)
				FUZZ_CHECK(isfinite(t.a[0][i].flops) &&
					       t.a[0][i].flops >= 0,
					   "reshaped computation finite and "
					   ">= 0");
		mpp_trace_free(&train);
	}
	mpp_trace_free(&t);
	return 0;
}
