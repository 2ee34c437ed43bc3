/*
 * memory.h: the memory regime of a run. A node's working set decides which
 * level of the memory hierarchy feeds its computation: the same loop costs
 * more per iteration once the node's data leave the shared cache (cg's
 * cost per grid point rose 1.7x between N = 80 and 96 on one rank, where
 * its peak memory went from 85 to 138 MiB: docs/benchmarks.md). No counter
 * shows that, so a model fitted below the step answers low above it.
 *
 * The machine's side is a curve measured by mpipredict-calibrate (level
 * "mem"): the time per byte of a streaming loop against the node's
 * footprint, with j ranks of a node streaming at once. A run's side is its
 * footprint: the collector's mem:peak_rss_kib.mean times its ranks per
 * node. A model trained with a curve may scale its answers by
 *
 *   factor = 1 + beta (slowdown(footprint) - 1)
 *
 * where slowdown is the curve's time per byte at the footprint over its
 * time per byte at its smallest footprint, and beta (0, 1/2 or 1: none,
 * half or all of the run's time follows the curve) is chosen in training
 * by how well the runs with the largest footprints are predicted from the
 * others (train.c). Training divides each run's time by its factor, fits,
 * and every answer is multiplied back.
 *
 * Not for: measuring the curve (calibrate/), or its JSON (profile_json.h).
 */
#ifndef MPP_MEMORY_H
#define MPP_MEMORY_H

#include <stddef.h>

/* The run-row column with a rank's peak resident memory (KiB), mean over
 * the ranks (collector/README.md). */
#define MPP_MEM_FEATURE "mem:peak_rss_kib.mean"

#define MPP_MEM_POINTS 40
#define MPP_MEM_CURVES 8

typedef struct mpp_mem_curve {
	int npoints, ncurves;
	double node_kib[MPP_MEM_POINTS]; /* increasing, > 0 */
	int ranks[MPP_MEM_CURVES]; /* ranks streaming at once, increasing */
	/* Time per byte (ns) of each streaming rank, curve k at point i. */
	double ns_per_byte[MPP_MEM_CURVES][MPP_MEM_POINTS];
} mpp_mem_curve;

/* 0 when c is usable (points and curves in range, node_kib and ranks
 * increasing, every time positive and finite), else -1 with err saying
 * what is wrong, prefixed by where. */
int mpp_mem_curve_check(const mpp_mem_curve *c, const char *where, char *err,
			size_t errlen);

/* The curve's time per byte at node footprint node_kib with
 * ranks_per_node ranks on the node (the curve of the most ranks not above
 * ranks_per_node; the first curve below that), over the same curve's time
 * at its smallest footprint. Log-log interpolation between points; flat
 * beyond the first and the last. NAN when node_kib is not positive. */
double mpp_mem_slowdown(const mpp_mem_curve *c, double node_kib,
			double ranks_per_node);

/* 1 + beta (slowdown - 1); 1 when beta is 0, whatever the footprint. NAN
 * when the footprint is not known and beta is not 0. */
double mpp_mem_factor(const mpp_mem_curve *c, double beta, double node_kib,
		      double ranks_per_node);

#endif
