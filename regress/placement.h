/*
 * placement.h: the derived term model:comm_s (comm_feature.h) re-evaluated
 * for a job's placement (nprocs ranks on nnodes nodes), so that the
 * parameters path answers for a placement the app was never trained on
 * (issue 16, part 4).
 *
 * Training (mpp_placement_fit, placement_fit.c) keeps the machine profile in
 * the model and fits power laws in the job's parameters of one rank's
 * traffic summed over the levels: point-to-point messages and bytes,
 * collective calls and bytes (model.h, comm_laws). Prediction
 * (mpp_placement_comm_s, placement.c) estimates those totals for the job,
 * splits them over the levels for its placement, and applies LogGPS
 * (loggps.h) with ranks per node = ceil(nprocs / nnodes). The split assumes
 *   - point-to-point peers spread evenly over the other ranks: of a rank's
 *     nprocs - 1 peers, rpp - 1 share its package (cmp), rpn - rpp its node
 *     on another package (socket), nprocs - rpn another node (net), with
 *     rpn ranks per node and rpp = ceil(rpn / packages_per_node) ranks per
 *     package (the profile's packages). A nearest-neighbour code placed in
 *     blocks sends fewer messages off its node than that;
 *   - collectives at the widest level among the ranks (the collector's
 *     attribution, collector/README.md): net on more than one node, socket
 *     when a node's ranks span packages, else cmp.
 * On one node with one package this gives what the collector measured, so
 * an answer at the trained placement matches the measured feature, and two
 * placements differ by the modelled communication difference.
 *
 * Not for: the formulas (loggps.c), the feature from measured columns
 * (comm_feature.c), storage (schema/store.c).
 */
#ifndef MPP_PLACEMENT_H
#define MPP_PLACEMENT_H

#include <stddef.h>

#include "regress/loggps.h"
#include "regress/model.h"
#include "regress/params.h"
#include "regress/runs.h"

/* The name under which the model's ranges keep the ranks per node seen in
 * training; a job shows it as ceil(nprocs / nnodes). */
#define MPP_RANKS_PER_NODE "ranks_per_node"

/* totals (MPP_NCOMM_LAWS, model.h) split over the levels for nprocs ranks
 * on nnodes nodes of a machine with packages_per_node packages, as above,
 * into *t. */
void mpp_placement_split(const double *totals, double nprocs, double nnodes,
			 int packages_per_node, mpp_loggps_traffic *t);

/* 1 when m re-evaluates model:comm_s for a placement (it has the profile
 * and the traffic laws), else 0. */
int mpp_placement_active(const mpp_model *m);

/* The job's nnodes, or, when p does not show it, the fewest nodes that
 * hold nprocs at the most ranks per node training saw. 0 when nprocs is
 * missing. */
double mpp_placement_nodes(const mpp_model *m, const mpp_params *p);

/* model:comm_s for the job p (nprocs needed; nnodes as above) into *x.
 * MPP_EINVAL with err naming the parameter a traffic law needs and p
 * lacks, or the level the profile lacks. */
int mpp_placement_comm_s(const mpp_model *m, const mpp_params *p, double *x,
			 char *err, size_t errlen);

/* Training: when m keeps model:comm_s as a term (not as an alias), parse
 * profile_json (name for messages) into m, fit m->comm_laws on the runs
 * rows[0..nrows) of rs that have a model:comm_s value, and add the range
 * MPP_RANKS_PER_NODE. Leaves m as it was and returns MPP_OK when m does not
 * keep the term; MPP_EINVAL (err says why) when the profile does not
 * parse, MPP_ENOMEM. In placement_fit.c (it links jansson). */
int mpp_placement_fit(mpp_model *m, const mpp_runs *rs, const size_t *rows,
		      size_t nrows, const char *name, const char *profile_json,
		      char *err, size_t errlen);

#endif
