/*
 * memory.h: the memory curve experiment of mpipredict-calibrate (level
 * "mem"; the curve's meaning and use: regress/memory.h).
 *
 * On rank 0's node, for j = 1, 2, 4, ... ranks of that node and for the
 * node's own rank count, the first j of them stream at once through a
 * triad (a[i] = b[i] + s c[i], 24 bytes per element) over node footprints
 * from 1 MiB up, in steps of sqrt(2), to 1 GiB or an eighth of the node's
 * memory, whichever is less; each rank's share is the footprint over j.
 * A point's time is the least over `reps` timed passes of rank 0 (after
 * one pass that touches the pages), per byte it streamed.
 *
 * Not for: the LogGPS experiments (experiments.h).
 */
#ifndef MPP_CAL_MEMORY_H
#define MPP_CAL_MEMORY_H

#include <mpi.h>
#include <stddef.h>

#include "regress/memory.h"

/* Collective over MPI_COMM_WORLD; node: 1 on the ranks of rank 0's node.
 * Rank 0 gets the curve in *c. 0, or -1 with err (every rank). */
int cal_run_memory(int on_node0, int reps, mpp_mem_curve *c, char *err,
		   size_t errlen);

#endif
