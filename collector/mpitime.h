/*
 * mpitime.h: the clock of the time-in-MPI accounting. Each wrapper of pmpi.c
 * reads mpp_ticks() twice (before and after the PMPI call) and adds the
 * difference to the call site, or to the function's untagged total; those
 * are in ticks, and runtime.c converts them to nanoseconds at MPI_Finalize
 * with the rate mpitime.c measured over the run (the TSC against
 * CLOCK_MONOTONIC between MPI_Init and MPI_Finalize).
 *
 * On x86-64 a tick is one cycle of the TSC (rdtsc, no serialisation: a few
 * cycles of reordering do not matter at the scale of an MPI call, and a
 * fence would cost more than the read); elsewhere it is one nanosecond of
 * CLOCK_MONOTONIC. Ticks are time only where the TSC is invariant
 * (constant_tsc and nonstop_tsc in /proc/cpuinfo, every x86-64 server of
 * the last decade); mpp_time_tsc_invariant says whether it was, and the
 * rate is measured over the run either way. No run-time choice of clock:
 * its test would cost more than the read.
 *
 * Not for: the run's wall time (runtime.c keeps its own CLOCK_MONOTONIC).
 * Internal to libmpipredict.
 */
#ifndef MPP_MPITIME_H
#define MPP_MPITIME_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#pragma GCC visibility push(hidden)

extern int mpp_time_tsc_invariant; /* 0: TSC ticks may not be time */

static inline __attribute__((always_inline)) uint64_t mpp_ticks(void)
{
#if defined(__x86_64__)
	return __rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
#endif
}

/* At MPI_Init: pick the clock and note the start. */
void mpp_time_start(void);

/* At MPI_Finalize (or a dump): nanoseconds per tick measured since
 * mpp_time_start(); 1 for CLOCK_MONOTONIC. */
double mpp_time_ns_per_tick(void);

#pragma GCC visibility pop

#endif
