/*
 * analysis.h: what a simulated timeline says about a run (the timed
 * Petri-net model's outputs): degree of parallelism over time, per-rank
 * compute / MPI / wait, load balance, and each level's link utilisation;
 * as text and as JSON.
 *
 * Not for: producing the timeline (replay.c).
 * Ownership: mpp_analysis_json returns a new jansson reference.
 */
#ifndef MPP_SIM_ANALYSIS_H
#define MPP_SIM_ANALYSIS_H

#include <jansson.h>
#include <stdio.h>

#include "simulate/platform.h"
#include "simulate/replay.h"
#include "simulate/ti.h"

enum { MPP_NBINS = 10 };

struct mpp_analysis {
	int nranks;
	double makespan;
	double *compute, *mpi, *wait; /* per rank, seconds */
	double *busy_k;               /* [0..nranks]: time with k computing */
	double par_mean;              /* sum of compute / makespan */
	double par_bin[MPP_NBINS];    /* mean ranks computing per tenth */
	double balance;               /* max / mean compute over ranks */
	double bytes[MPP_NLV];        /* replayed messages, by level */
	double sim_bytes[MPP_NLV];    /* SimGrid: integral of bandwidth_used */
	double util[MPP_NLV];         /* sim_bytes / (capacity x run time) */
	int links[MPP_NLV];
};

/* Fill a from the timeline, the replayed trace and the platform. Returns 0
 * or -1 (out of memory). */
int mpp_analyse(const struct mpp_timeline *tl, const struct mpp_trace *t,
		const struct mpp_profile *p, const struct mpp_placement *pl,
		struct mpp_analysis *a);
void mpp_analysis_print(const struct mpp_analysis *a, FILE *f);
json_t *mpp_analysis_json(const struct mpp_analysis *a);
void mpp_analysis_free(struct mpp_analysis *a);

#endif
