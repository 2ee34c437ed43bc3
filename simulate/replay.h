/*
 * replay.h: running SimGrid (smpirun) on a generated platform, and the
 * timeline it reports.
 *
 * Not for: generating the platform (platform.c) or the trace (ti.c); the
 * analyses of the timeline are in analysis.c.
 * Ownership: a mpp_timeline owns its events; mpp_timeline_free.
 */
#ifndef MPP_SIM_REPLAY_H
#define MPP_SIM_REPLAY_H

#include <stddef.h>

#include "simulate/paje.h"

enum mpp_ev_kind { MPP_EV_COMPUTE, MPP_EV_MPI, MPP_EV_WAIT };

struct mpp_event {
	int rank;
	enum mpp_ev_kind kind;
	double start, end;
	char name[16];
};

struct mpp_timeline {
	double sim_time; /* "Simulation time" SimGrid printed */
	double wall;     /* wall seconds smpirun took */
	struct mpp_event *ev;
	size_t n, cap;
	struct mpp_link_use *links; /* from SimGrid's Paje trace */
	size_t nlinks;
};

/* Replay DIR/list on DIR/platform.xml + DIR/hostfile with the options of
 * DIR/smpi.cfg; SimGrid's log goes to DIR/replay.log and its per-action
 * timing becomes the timeline, its Paje trace (DIR/replay.paje) the links'
 * usage when `links` (SimGrid's link tracing about doubles the replay's
 * CPU time; without it tl->nlinks is 0). Returns 0, or -1 with err (the
 * log's last line when smpirun failed). Callers trace links only for
 * skeletons of at most MPP_LINK_TRACE_MAX_ACTIONS actions (all ranks). */
enum { MPP_LINK_TRACE_MAX_ACTIONS = 100000 };
int mpp_replay_run(const char *dir, int nranks, int links,
		   struct mpp_timeline *tl, char *err, size_t errlen);

/* Run an SMPI program (built with smpicc and libmpp-smpitrace) online on
 * DIR/platform.xml + DIR/hostfile, SimGrid's defaults but for a 1 Gf/s host
 * speed, with MPIPREDICT_TRACE=tracedir. share > 0: its allocations of
 * that many bytes or more are shared by all ranks (SimGrid's
 * smpi/auto-shared-malloc-thresh). *wall: seconds it took. Returns 0, or
 * -1 with err. */
int mpp_smpi_run(const char *dir, int nranks, const char *prog,
		 char *const *args, long long share, const char *tracedir,
		 double *wall, char *err, size_t errlen);

void mpp_timeline_free(struct mpp_timeline *tl);

#endif
