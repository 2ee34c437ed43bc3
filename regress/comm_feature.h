/*
 * comm_feature.h: the derived feature `model:comm_s`, a run's modelled
 * communication time per rank (regress/loggps.h) from its per-level traffic
 * columns and placement, appended to a run set so that training may select
 * it like any measured column and prediction computes it the same way.
 *
 * Columns read (means over ranks, as the collector writes them):
 * comm:<level>:msgs.mean, comm:<level>:bytes.mean, coll:<level>:msgs.mean,
 * coll:<level>:bytes.mean for level cmp, socket, net; nprocs and nnodes give
 * ranks per node (rounded up). A run without those columns (an older
 * collector), or with traffic at a level the profile lacks, gets NAN (the
 * feature is absent there, as for any missing column).
 *
 * Not for: the profile's origin (mpipredict-calibrate) or storage.
 */
#ifndef MPP_COMM_FEATURE_H
#define MPP_COMM_FEATURE_H

#include <stddef.h>

#include "regress/loggps.h"
#include "regress/runs.h"

#define MPP_COMM_FEATURE "model:comm_s"

/* The traffic of run r of rs into *t; 0, or -1 when a column is missing
 * or NAN. */
int mpp_comm_traffic(const mpp_runs *rs, size_t r, mpp_loggps_traffic *t);

/* Append the column MPP_COMM_FEATURE to rs (or overwrite it when rs has it
 * already) with each run's modelled time; *nset counts the runs that got a
 * number. MPP_ENOMEM (rs unchanged) or MPP_OK. */
int mpp_runs_add_comm_feature(mpp_runs *rs, const mpp_loggps_profile *p,
			      size_t *nset);

/* The same from a profile's JSON text (regress/profile_json.h; name is
 * used in messages). MPP_EINVAL with err naming the field when the text
 * is not a profile, MPP_ENOMEM, or MPP_OK. */
int mpp_runs_add_comm_feature_json(mpp_runs *rs, const char *name,
				   const char *json, size_t *nset, char *err,
				   size_t errlen);

#endif
