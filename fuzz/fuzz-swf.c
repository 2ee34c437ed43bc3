/*
 * fuzz-swf.c: libFuzzer harness for the Standard Workload Format reader
 * of mpipredict-replay (history/swf.h), which reads the trace a user
 * names, and for the replay of what it accepts (history/easy.h). Any
 * bytes: no crash, leak or undefined behaviour (the reader once converted
 * 1.63333e+105 to an int); read with each processor source and each
 * oversize rule on a 64-processor machine (the second time a MaxProcs
 * header may replace it): a refused trace's error names the file; an
 * accepted one has finite, ordered submit times, run times in [1 s,
 * request], 1 to the machine's processors, consistent counts, and replays
 * (its first 64 jobs, EASY with requested times and EASY++ with Tsafrir's
 * predictions) with every job starting at or after its submission.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/check.h"
#include "history/easy.h"
#include "history/history.h"
#include "history/swf.h"

enum { MACHINE = 64, REPLAYED = 64 };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void replay(const mpp_swf_job *jobs, size_t n, int machine, int sjbf)
{
	mpp_easy_opts o = {.procs = machine, .bound_s = 10, .sjbf = sjbf};
	mpp_easy_job_out out[REPLAYED];
	mpp_easy_stats st;
	char err[256] = "";

	if (n > REPLAYED)
		n = REPLAYED;
	if (sjbf) {
		o.pred = MPP_EASY_HISTORY;
		o.hist_method = MPP_HIST_TSAFRIR;
	}
	int rc = mpp_easy_run(jobs, n, &o, out, &st, err, sizeof err);
	FUZZ_CHECK(rc == 0, "an accepted trace replays");
	for (size_t k = 0; k < n; k++)
		FUZZ_CHECK(isfinite(out[k].start_s) &&
			       out[k].start_s >= jobs[k].submit_s,
			   "no job starts before its submission");
	FUZZ_CHECK(st.njobs == n &&
		       (n == 0 || (isfinite(st.avebsld) && st.avebsld >= 1)),
		   "AVEbsld finite and >= 1 (0 without jobs)");
}

static void read_with(const uint8_t *data, size_t size, int procs_from,
		      int refuse)
{
	/* fmemopen refuses a zero-length buffer: an empty input is one NUL,
	 * which the reader skips like an empty line. */
	static const uint8_t nul[1] = {0};
	FILE *f = fmemopen((void *)(size ? data : nul), size ? size : 1, "r");
	mpp_swf_opts o = {.procs_from = procs_from,
			  .machine = MACHINE,
			  .refuse_oversize = refuse,
			  .machine_from_header = refuse};
	mpp_swf_job *jobs;
	mpp_swf_counts c;
	size_t n;
	char err[512] = "";

	if (!f)
		abort();
	int rc =
	    mpp_swf_read(f, "fuzz.swf", &o, &jobs, &n, &c, err, sizeof err);
	fclose(f);
	if (rc) {
		FUZZ_CHECK(!strncmp(err, "fuzz.swf", 8) ||
			       !strcmp(err, "out of memory"),
			   "a refused trace's error names its file");
		return;
	}
	FUZZ_CHECK(c.no_request <= c.skipped, "no_request within skipped");
	FUZZ_CHECK(c.clamped <= n && (!refuse || c.clamped == 0),
		   "clamped only when clamping");
	FUZZ_CHECK(c.procs_differ <= n && c.run_cut <= n, "counts of jobs");
	for (size_t k = 0; k < n; k++) {
		const mpp_swf_job *j = &jobs[k];
		FUZZ_CHECK(isfinite(j->submit_s) && j->submit_s >= 0 &&
			       (k == 0 || j->submit_s >= jobs[k - 1].submit_s),
			   "submit times finite, >= 0 and ordered");
		FUZZ_CHECK(j->run_s >= 1 && j->run_s <= j->req_s &&
			       j->req_s <= 1e12,
			   "1 s <= run time <= request <= 1e12 s");
		FUZZ_CHECK(j->procs >= 1 && j->procs <= c.machine,
			   "1 to the machine's processors");
	}
	FUZZ_CHECK(c.machine >= 1 && c.machine <= 1000000000 &&
		       (c.machine_header || c.machine == MACHINE),
		   "the machine's size, 64 or the header's");
	replay(jobs, n, c.machine, 0);
	replay(jobs, n, c.machine, 1);
	free(jobs);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	read_with(data, size, MPP_SWF_PROCS_REQUESTED, 0);
	read_with(data, size, MPP_SWF_PROCS_ALLOCATED, 1);
	return 0;
}
