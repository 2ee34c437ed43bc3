/*
 * loggps.h: the contention-aware LogGPS cost model, as arithmetic on a
 * machine profile (the parameters mpipredict-calibrate measures). One
 * point-to-point message of k bytes between two cores at level l, while
 * `others` other cores of the source node communicate, costs
 *     2o + 2h(others) + L + k (Os + Or + G + C(others))
 * with h(0) = C(0) = 0. Used by mpipredict-train (the derived feature
 * model:comm_s) and mpipredict-report (modelled vs measured MPI time);
 * mpipredict-calibrate fills the struct. Pure: no I/O, no MPI, no JSON
 * (profile_json.h reads and writes the profile's JSON).
 *
 * Not for: fitting the parameters (calibrate/), simulating a schedule.
 */
#ifndef MPP_LOGGPS_H
#define MPP_LOGGPS_H

#include <stddef.h>

enum { MPP_LV_CMP, MPP_LV_SOCKET, MPP_LV_NET, MPP_NLV };

/* "cmp", "socket", "net" */
extern const char *const mpp_lv_names[MPP_NLV];

/* Parameters of one level, in seconds and seconds per byte. h[j - 1] and
 * C[j - 1] are for j = 1..nh other cores; NAN where not measured. The
 * residual of each parameter is the standard error of its least-squares
 * estimate (same unit as the parameter; for h and C the largest over j). */
typedef struct mpp_loggps_level {
	double o, Os, Or, g, L, G;
	int nh;
	double *h, *C; /* nh entries each, owned by the level */
	struct {
		double o, Os, Or, g, L, G, h, C;
	} residual;
	long samples; /* timed round trips and calls behind the fit */
} mpp_loggps_level;

typedef struct mpp_loggps_profile {
	char *machine, *created_at; /* owned */
	int nodes_seen, packages_per_node, cores_per_node;
	mpp_loggps_level *level[MPP_NLV]; /* NULL: not measured here */
	char *missing[MPP_NLV]; /* why a level is NULL; owned, or NULL */
	/* The memory curve (memory.h), owned; NULL: not measured. */
	struct mpp_mem_curve *mem;
} mpp_loggps_profile;

/* Frees everything the profile owns (not p itself). */
void mpp_loggps_profile_clear(mpp_loggps_profile *p);

/* h(others) and C(others): 0 for others <= 0; the entry for `others`, or
 * the nearest measured one below it (contention is assumed not to fall
 * with more cores), or the smallest measured one when none is below. */
double mpp_loggps_h(const mpp_loggps_level *l, int others);
double mpp_loggps_C(const mpp_loggps_level *l, int others);

/* The time of one message of `bytes` at level l with `others` contending
 * cores (formula above). */
double mpp_loggps_msg_s(const mpp_loggps_level *l, double bytes, int others);

/* Per-rank traffic of a run by level, as the collector's row gives it
 * (means over ranks): point-to-point messages and bytes (each message
 * counted by its sender and its receiver), collective calls and bytes. */
typedef struct mpp_loggps_traffic {
	double p2p_msgs[MPP_NLV], p2p_bytes[MPP_NLV];
	double coll_msgs[MPP_NLV], coll_bytes[MPP_NLV];
} mpp_loggps_traffic;

/* Modelled communication time of one rank, in seconds:
 *   point-to-point: half the messages (each is counted at both ends) at
 *     2o + 2h + L each, half the bytes at Os + Or + G + C;
 *   collectives: ceil(log2 nprocs) latency terms per call (a tree or
 *     recursive doubling), half this rank's bytes at the per-byte cost;
 * with others = ranks_per_node - 1 (every core of a node communicating at
 * once, as bulk-synchronous codes do). Returns 0 and *out, or -1 with err
 * naming the level when traffic sits at a level the profile lacks. */
int mpp_loggps_comm_s(const mpp_loggps_profile *p, const mpp_loggps_traffic *t,
		      int nprocs, int ranks_per_node, double *out, char *err,
		      size_t errlen);

#endif
