/*
 * experiments.h: the timed MPI experiments of the contention-aware LogGPS
 * method for one pair of ranks (a, b) at one level, run collectively by
 * every rank of MPI_COMM_WORLD (ranks with no role wait). Rank a ends up
 * with all the timings; the others return empty results.
 *
 * The experiments (each size repeated `reps` times, MPI_Wtime):
 *   overhead  b has posted its receive; a times MPI_Send of k bytes (eager
 *             sizes): o + k Os. a's message has arrived (MPI_Probe); b
 *             times MPI_Recv of it: o + k Or;
 *   roundtrip a times k bytes to b and back, uncontended: 2 (2o + L +
 *             k (Os + Or + G)); the small and large round trips of the
 *             method, over several sizes;
 *   gap       a times `GAP_BURST` back-to-back 8-byte MPI_Isends (and their
 *             MPI_Waitall): g per message;
 *   contended for j = 2, 4, ... contender ranks (pairs of them running
 *             64 KiB ping-pongs with each other until a stops them), a's
 *             round trips again: 2 (2o + 2h(j) + L + k (Os + Or + G + C(j))).
 *
 * Not for: choosing the pairs (calibrate_main.c) or fitting (fit.h).
 */
#ifndef MPP_CAL_EXPERIMENTS_H
#define MPP_CAL_EXPERIMENTS_H

#include <stddef.h>

enum { GAP_BURST = 64, CAL_NOVER = 5, CAL_NRT = 6, CAL_NCONT = 4 };

extern const double cal_over_sizes[CAL_NOVER]; /* eager sizes, bytes */
extern const double cal_rt_sizes[CAL_NRT];     /* round-trip sizes   */
extern const double cal_cont_sizes[CAL_NCONT]; /* contended sizes    */

/* Medians over the reps, in seconds, on rank a. */
struct cal_timings {
	double send[CAL_NOVER], recv[CAL_NOVER]; /* one call */
	double rt[CAL_NRT];                      /* one-way: round trip / 2 */
	double *gap;                             /* reps samples, per msg */
	int ngap;
	int ncont; /* contention steps measured (j = 2, 4, ..) */
	double (*cont)[CAL_NCONT]; /* one-way times per step and size  */
	int *cont_j;               /* contending ranks of each step         */
	long samples;              /* timed operations */
};

/* Run the experiments for pair (a, b) with contender ranks
 * contenders[0..ncontenders) (used in pairs, in order). Collective over
 * MPI_COMM_WORLD. Returns 0, or -1 with err filled (out of memory, an MPI
 * error) on the rank that failed. */
int cal_run_pair(int a, int b, const int *contenders, int ncontenders, int reps,
		 struct cal_timings *t, char *err, size_t errlen);

void cal_timings_free(struct cal_timings *t);

#endif
