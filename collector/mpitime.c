/*
 * mpitime.c: the rate of mpp_ticks() (mpitime.h). The TSC's frequency is
 * not asked of the kernel: it is measured over the run itself, ticks and
 * CLOCK_MONOTONIC read together at MPI_Init and again when the rate is
 * needed, so a run of a second or more gets it to a few parts per million.
 * A run shorter than 1 ms uses the rate of a 1 ms busy wait taken at start.
 *
 * Not for: per-call work (that is the inline mpp_ticks()).
 */
#include <stdio.h>
#include <string.h>

#include "collector/mpitime.h"

#if defined(__x86_64__)
#define TSC 1
#else
#define TSC 0
#endif

int mpp_time_tsc_invariant;

static uint64_t tick0;
static struct timespec wall0;
static double rate0 = 1.0; /* ns per tick measured at start */

static double ns_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return 1e9 * (double)(b.tv_sec - a->tv_sec) +
	       (double)(b.tv_nsec - a->tv_nsec);
}

/* Whether /proc/cpuinfo promises a TSC that runs at one rate in every
 * power state and on every core. */
static int invariant_tsc(void)
{
	char line[4096];
	int c = 0, n = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "flags", 5)) {
			c = strstr(line, " constant_tsc") != NULL;
			n = strstr(line, " nonstop_tsc") != NULL;
			break;
		}
	fclose(f);
	return c && n;
}

void mpp_time_start(void)
{
	mpp_time_tsc_invariant = invariant_tsc();
	tick0 = mpp_ticks();
	clock_gettime(CLOCK_MONOTONIC, &wall0);
	rate0 = 1.0;
	if (TSC) {
		while (ns_since(&wall0) < 1e6)
			;
		rate0 = ns_since(&wall0) / (double)(mpp_ticks() - tick0);
	}
}

double mpp_time_ns_per_tick(void)
{
	uint64_t dt;
	double ns;

	if (!TSC)
		return 1.0;
	ns = ns_since(&wall0);
	dt = mpp_ticks() - tick0;
	return ns < 1e6 || !dt ? rate0 : ns / (double)dt;
}
