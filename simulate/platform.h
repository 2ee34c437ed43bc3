/*
 * platform.h: a machine's calibration profile (issue 16's JSON) and the
 * SimGrid platform and SMPI configuration generated from it.
 *
 * Not for: running SimGrid (replay.c) or traces (ti.c).
 *
 * The profile: {"machine", "created_at", "nodes_seen", "packages_per_node",
 * "cores_per_node", "levels": {"cmp"|"socket"|"net": LEVEL|null},
 * "missing": {...}} with LEVEL = {"o","Os","Or","g","L","G": numbers
 * (seconds, seconds per byte), "h": [..], "C": [..] (index m: m other cores
 * of the node communicating), "residual": {...}, "samples": n}.
 */
#ifndef MPP_SIM_PLATFORM_H
#define MPP_SIM_PLATFORM_H

#include <stddef.h>
#include <stdio.h>

enum { MPP_LV_CMP, MPP_LV_SOCKET, MPP_LV_NET, MPP_NLV };
extern const char *const mpp_level_names[MPP_NLV];

struct mpp_level {
	int present;
	int folded; /* G <= 0 in the profile: Os + Or moved into G (platform.c)
		     */
	double o, Os, Or, g, L, G;
	double h[64], C[64];
	size_t nh, nC;
};

struct mpp_profile {
	char machine[128];
	int packages_per_node, cores_per_node;
	struct mpp_level lv[MPP_NLV];
};

/* Read and check a profile file. Returns 0, or -1 with err naming the file
 * and the field. */
int mpp_profile_read(const char *path, struct mpp_profile *p, char *err,
		     size_t errlen);

/* Where the ranks go: `nodes` nodes, `rpn` ranks per node, filled node by
 * node, and inside a node package by package. */
enum { MPP_FLAT_MAX_HOSTS = 128 };

struct mpp_placement {
	int ranks, nodes, rpn;
};

/* Package (host index in the platform) of rank r. */
int mpp_rank_host(const struct mpp_profile *p, const struct mpp_placement *pl,
		  int r);
/* Level of the messages between ranks a and b. */
int mpp_rank_level(const struct mpp_profile *p, const struct mpp_placement *pl,
		   int a, int b);
/* How many ranks other than r are at each level from it: out[MPP_LV_CMP]
 * share its package, out[MPP_LV_SOCKET] its node but not its package,
 * out[MPP_LV_NET] neither. O(ranks per node). */
void mpp_rank_others(const struct mpp_profile *p,
		     const struct mpp_placement *pl, int r, int out[]);

/* Write DIR/platform.xml, DIR/hostfile and DIR/smpi.cfg (one --cfg=...
 * per line) for the placement; with at most MPP_FLAT_MAX_HOSTS hosts also
 * DIR/platform-flat.xml, the same links and routes in one zone (SimGrid
 * 3.32 traces links only on such a platform; see platform.c). Fails (-1, err)
 * when the placement needs a level the profile does not have. */
int mpp_platform_write(const struct mpp_profile *p,
		       const struct mpp_placement *pl, const char *dir,
		       char *err, size_t errlen);

/* Effective per-level figures the generator used (for the report):
 * latency (s) and bandwidth (B/s) of one uncontended flow. */
void mpp_level_link(const struct mpp_profile *p, int lv, double *lat,
		    double *bw);

#endif
