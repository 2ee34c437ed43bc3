/*
 * traffic.h: what the PMPI layer (pmpi.c) counts and hands to the run-row
 * side of the runtime (runtime.c). Internal to libmpipredict: not installed,
 * not a contract with any other part.
 *
 * Counters are per process (one MPI rank), plain unsigned 64-bit totals since
 * MPI_Init. They are written only by pmpi.c; runtime.c reads them at
 * MPI_Finalize. Per call site counts live in the units' struct __mpp_site.
 * To keep the per-call work small, nothing is counted twice: a function's
 * whole-program calls and bytes are its untagged totals plus its sites'
 * (every site knows its function, mpp_abi.h), and the per-level totals are
 * the sums of the level's histogram; runtime.c adds them up.
 *
 * Everything declared here has hidden visibility: libmpipredict exports
 * only the MPI functions and the ABI of mpp_abi.h, and calls between its
 * own files go neither through the PLT nor through the GOT.
 */
#ifndef MPP_TRAFFIC_H
#define MPP_TRAFFIC_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

/* One enumerator per row of mpi_table.def: MPP_FN_MPI_Send, ... */
enum mpp_fn {
#define MPP_MPI(name, ret, kind, params, args, acct) MPP_FN_##name,
#include "collector/mpi_table.def"
#undef MPP_MPI
	MPP_NFN
};

/* Point-to-point levels. */
enum { MPP_INTRA, MPP_INTER, MPP_NLEVEL };

/* Message-size histogram: bucket b holds sizes in
 * [mpp_bucket_lo[b], mpp_bucket_lo[b + 1]); the last bucket is open. The
 * bounds are 0 and then powers of two (pmpi.c finds a size's bucket from
 * its highest set bit). */
enum { MPP_NBUCKET = 6 };
extern const unsigned long long mpp_bucket_lo[MPP_NBUCKET];

struct mpp_traffic {
	unsigned long long untagged_calls[MPP_NFN]; /* no call site tagged */
	unsigned long long untagged_bytes[MPP_NFN];
	/* Point-to-point messages this rank sent or received, by level and
	 * size. */
	unsigned long long hist_msgs[MPP_NLEVEL][MPP_NBUCKET];
	unsigned long long hist_bytes[MPP_NLEVEL][MPP_NBUCKET];
	/* Nanoseconds spent in MPI_File calls (CLOCK_MONOTONIC). */
	unsigned long long io_ns;
};

extern struct mpp_traffic mpp_traffic;

/* Start counting, after PMPI_Init succeeded: learn which ranks share a node
 * (MPI_Comm_split_type SHARED + allgather, or the MPIPREDICT_TEST_NODE_KEY
 * hook) over `comm` (a duplicate of MPI_COMM_WORLD). `threaded` makes every
 * counter update atomic (MPI_THREAD_MULTIPLE). Returns 0, or -1 with err
 * filled; counting stays off then. Collective over MPI_COMM_WORLD. */
int mpp_traffic_start(MPI_Comm comm, int threaded, int *nnodes, char *err,
		      size_t errlen);

/* Stop counting (at MPI_Finalize, before the runtime's own reductions). */
void mpp_traffic_stop(void);

#pragma GCC visibility pop

#endif
