/*
 * progress.h: a running job's progress sent to the centre's daemon
 * (issue 37), from rank 0, without touching MPI or the network.
 * Internal to libmpipredict.
 *
 * When SLURM_JOB_ID is set and a daemon is configured (forward.h's rule),
 * mpp_progress_start() starts one helper thread (all signals blocked) that
 * first asks `mpipredict-collect --progress-interval` for the interval P
 * (MPIPREDICT_PROGRESS_S, else the client configuration's progress_s,
 * default 60; 0 or no daemon: the thread ends, nothing more), then every
 * P seconds has the runtime write rank 0's counters as a dump (row.h's
 * format, through a temporary name) to ${TMPDIR:-/tmp}/mpp-progress.
 * <run_id> and starts `mpipredict-collect --progress --quiet FILE`
 * detached, which posts it (POST /v1/progress). A tick whose previous
 * sender has not finished (a slow or stopped daemon) is skipped, so
 * senders never pile up. The runtime keeps libcurl and libinih out of
 * users' programs, as forwarding does.
 *
 * Freshness: the counters are the rank's counters at the tick; a loop's
 * counter is added when the loop exits (the rewriter keeps it in a
 * register meanwhile), so a loop still running counts in its enclosing
 * loops' counters only.
 */
#ifndef MPP_PROGRESS_H
#define MPP_PROGRESS_H

#include <stddef.h>

/* Writes the rank's counters now to path (atomically); 0, or -1 with err.
 * Called on the helper thread. */
typedef int (*mpp_progress_write_fn)(const char *path, char *err,
				     size_t errlen);

/* Rank 0 after MPI_Init: starts the helper thread when configured. */
void mpp_progress_start(const char *run_id, mpp_progress_write_fn write);

/* At MPI_Finalize (before the reductions): stops and joins the thread
 * and removes the progress file. A sender already started finishes on
 * its own (it finds the file gone, or posts what it read). */
void mpp_progress_stop(void);

#endif
