/*
 * trace.h: the trace mode of libmpipredict (MPIPREDICT_TRACE=DIR).
 *
 * When MPIPREDICT_TRACE names a directory, every rank writes
 * DIR/rank-<r>.ti: one SimGrid time-independent action per line
 * ("<rank> <action> <args>"), the computation between two MPI calls as
 * "<rank> compute <flops>" at a reference speed of 1e9 flop/s (so flops are
 * nanoseconds of wall time), sizes in bytes, peers and roots as ranks of
 * MPI_COMM_WORLD (-1 for MPI_PROC_NULL), a receive's source and tag as
 * its status names them when it was posted with MPI_ANY_SOURCE or
 * MPI_ANY_TAG (an MPI_Irecv with a wildcard is written "irecv -2 <tag>
 * <bytes>" when posted, and the wait or test that finishes it writes
 * "recvd <source> <tag> <bytes>" on the lines right after its own), and a
 * collective on a communicator with only some of the ranks (a row of a
 * process grid) followed by " @ <n> <the members' world ranks, in the
 * communicator's rank order>"; MPI_Start and MPI_Startall write the
 * number of started requests they cannot show (persistent collectives),
 * then on lines of their own the isend or irecv of each persistent
 * point-to-point request they start; a test call (MPI_Test and its all,
 * any and some forms) writes a line only when it finished something
 * (its time, and a polling loop's between such calls, is left out of the
 * computation). The names
 * follow SimGrid's replay (send, isend, recv, irecv, wait, waitall, barrier,
 * bcast, reduce, allreduce, alltoall, alltoallv, gather, allgather, ...) plus a
 * few it does not replay (sendrecv, scan, exscan, test, i<collective>):
 * mpipredict-simulate converts those; its README lists how. The file ends with
 * "# wall <seconds>" (this rank, MPI_Init to MPI_Finalize) and rank 0 also
 * writes DIR/meta (nprocs, the program's arguments).
 *
 * Not for: counting (pmpi.c), the run row (runtime.c). Call sites are
 * comment lines: "# object <k> <path>" once per object, and before a
 * call's compute line "# @ <k> 0x<offset>", the call instruction's
 * offset in object k (an address for a fixed executable), which
 * mpipredict-simulate resolves to a file and line with addr2line.
 *
 * Used by pmpi.c (libmpipredict, real MPI) and by simulate/ (the same file
 * compiled with smpicc, so that a run under SimGrid writes the same form).
 */
#ifndef MPP_TRACE_H
#define MPP_TRACE_H

#include <mpi.h>

#pragma GCC visibility push(hidden)

/* Non-zero while tracing (between mpp_trace_start and mpp_trace_stop). */
extern int mpp_trace_on;

/* Read MPIPREDICT_TRACE; when set, open this rank's file and start the
 * clock. Called once after PMPI_Init. Failures: one line on stderr, no
 * trace. */
void mpp_trace_start(void);

/* Right before the PMPI call: ends the computation segment. */
void mpp_trace_pre(void);

/* The traced call's return address in the program, set by the wrapper
 * before mpp_trace_pre (__builtin_return_address(0) of the function the
 * program called); the call's line is preceded by "# @ <object>
 * <offset>" ("# object <k> <path>" names object k once). NULL: no site
 * written. */
extern const void *mpp_trace_ra;

/* Right before the PMPI call of a completion call (Wait, Test and their
 * any/all/some forms): its requests reqs[0..n), so that the wildcard
 * receives it finishes can be named with their source and tag (trace.c,
 * struct wild). The wrapper passes statuses of its own to the call when
 * the program ignores them, at least while such a receive is among reqs. */
void mpp_trace_waiting(int n, const MPI_Request *reqs);

/* Before MPI_Request_free: a persistent request is forgotten. */
void mpp_trace_request_free(MPI_Request req);

/* Right after the PMPI call: writes the action with the call's arguments
 * and restarts the segment clock. One per row of mpi_table.def. */
#define MPP_MPI(name, ret, kind, params, args, acct)                           \
	void mpp_trace_##name params;
#include "collector/mpi_table.def"
#undef MPP_MPI

/* The neighbours of comm's topology (Cartesian, graph, distributed
 * graph): sources in nb[0..*nin), destinations in nb[*nin..*nin + *nout),
 * in the order the standard gives a neighbourhood collective's blocks.
 * Returns a malloc'ed array the caller frees, or NULL (no topology, no
 * memory). */
int *mpp_trace_neighbors(MPI_Comm comm, int *nin, int *nout);

/* At MPI_Finalize (before any PMPI call of the runtime's own): writes the
 * last segment, "finalize" and the wall time, closes the file. */
void mpp_trace_stop(void);

#pragma GCC visibility pop

#endif
