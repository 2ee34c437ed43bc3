/*
 * fit.h: the contention-aware LogGPS parameters of one level from the
 * timings of experiments.h, by linear least squares (GSL), each with the
 * standard error of its estimate as its residual:
 *   o, Os, Or  from the send and receive call times, one fit with a shared
 *              intercept: t = o + k Os (sends), t = o + k Or (receives);
 *   L, G       from the one-way round-trip times minus 2o + k (Os + Or):
 *              L + k G (L's error includes 2x o's);
 *   g          the mean of the gap samples (error: standard error);
 *   h(j), C(j) for each contention step j, from the contended one-way
 *              times minus the uncontended model: 2 h(j) + k C(j).
 * h and C get cores_per_node entries (j = 1..m); steps not measured are
 * NAN.
 *
 * Not for: MPI (experiments.h) or storage.
 */
#ifndef MPP_CAL_FIT_H
#define MPP_CAL_FIT_H

#include <stddef.h>

#include "calibrate/experiments.h"
#include "regress/loggps.h"

/* Fill *l (its h and C malloc'ed). Returns 0, or -1 with err filled. */
int cal_fit_level(const struct cal_timings *t, int cores_per_node,
		  mpp_loggps_level *l, char *err, size_t errlen);

#endif
