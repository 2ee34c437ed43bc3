/*
 * topo.h: where this process sits inside its node, from hwloc: the package
 * (socket, chip) it runs on, and the node's package and core counts. The PMPI
 * layer (pmpi.c) exchanges the package with the host identity once at
 * MPI_Init to classify every peer as `cmp` (same node, same package),
 * `socket` (same node, other package) or `net` (other node);
 * mpipredict-calibrate uses it to pick pairs of ranks at each level.
 *
 * Not for: binding processes (the launcher does that), NUMA or caches.
 * No MPI here. Internal to libmpipredict and mpipredict-calibrate.
 */
#ifndef MPP_TOPO_H
#define MPP_TOPO_H

#include <stddef.h>

#pragma GCC visibility push(hidden)

struct mpp_place {
	int package;   /* logical index of this process's package, or -1 */
	int unbound;   /* 1: the binding spans packages; package is where the
			  process last ran (hwloc_get_last_cpu_location) */
	int npackages; /* packages of the (possibly synthetic) topology */
	int ncores;    /* cores of the topology */
};

/* Locate the calling process. Honours hwloc's own HWLOC_SYNTHETIC and
 * HWLOC_XMLFILE; a topology that is not this system's (synthetic, XML)
 * cannot report a binding, so the test hook MPIPREDICT_TEST_PU=<k> takes
 * the PU of logical index k mod PUs as the binding (the caller passes the
 * world rank for "rank"). Returns 0, or -1 with err filled (hwloc could not
 * load a topology, the hook is malformed); p is then
 * {-1, 0, 1, 1}: every peer on the node counts as `cmp`. */
int mpp_topo_locate(struct mpp_place *p, int world_rank, char *err,
		    size_t errlen);

/* The test hook MPIPREDICT_TEST_NODE_KEY over key[0..n) (one node key per
 * world rank): "parity" puts even and odd ranks on two fake nodes,
 * "block:K" puts ranks [iK, (i+1)K) on fake node i. Returns 0 when unset
 * (key untouched), 1 when applied, -1 with err filled when malformed. */
int mpp_topo_fake_nodes(int *key, int n, char *err, size_t errlen);

#pragma GCC visibility pop

#endif
