/*
 * smpi_wrap.c: libmpp-smpitrace, the trace mode of libmpipredict for
 * programs built with SimGrid's smpicc. Linked into such a program
 * (`smpicc app.c mpp-smpitrace.o`), it writes under MPIPREDICT_TRACE the
 * same traces as libmpipredict (collector/trace.c, compiled here with
 * smpicc), so an SMPI run of the target configuration gives the
 * communication skeleton mpipredict-simulate rescales.
 *
 * smpicc links a program as a shared object that SimGrid loads after
 * libsimgrid: a plain definition of MPI_Send would lose to libsimgrid's.
 * The wrappers are "protected": the program's own calls bind to them.
 *
 * Not for: counting (no features, no run row).
 */
#include <mpi.h>
#include <stdlib.h>

#include "collector/trace.h"

#pragma GCC visibility push(protected)

int MPI_Init(int *argc, char ***argv)
{
	int rc = PMPI_Init(argc, argv);
	if (rc == MPI_SUCCESS)
		mpp_trace_start();
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc = PMPI_Init_thread(argc, argv, required, provided);
	if (rc == MPI_SUCCESS)
		mpp_trace_start();
	return rc;
}

int MPI_Finalize(void)
{
	mpp_trace_stop();
	return PMPI_Finalize();
}

/* A persistent request freed is forgotten (collector/trace.c, struct
 * pers). */
int MPI_Request_free(MPI_Request *request)
{
	if (mpp_trace_on)
		mpp_trace_request_free(*request);
	return PMPI_Request_free(request);
}

/* Wrap only the rows whose shape SimGrid's replay can use: the acct column
 * picks WRAP or SKIP (SEL_<shape>(...) expands to the word, which then
 * takes the row). The others (one-sided, I/O, neighbourhood, persistent
 * collectives) are left to SMPI alone; some differ from the table's prototypes
 * in SMPI's mpi.h. */
#define WRAP_WITH(before, after, name, ret, params, args)                      \
	ret name params                                                        \
	{                                                                      \
		ret rc_;                                                       \
		before;                                                        \
		if (mpp_trace_on) {                                            \
			mpp_trace_ra = __builtin_return_address(0);            \
			mpp_trace_pre();                                       \
		}                                                              \
		rc_ = P##name args;                                            \
		if (mpp_trace_on)                                              \
			mpp_trace_##name args;                                 \
		after;                                                         \
		return rc_;                                                    \
	}
#define WRAP(...) WRAP_WITH((void)0, (void)0, __VA_ARGS__)
/* A receive's trace line names the source and tag its status says
 * (collector/trace.c, for MPI_ANY_SOURCE and MPI_ANY_TAG): a status of
 * our own when the program passes MPI_STATUS_IGNORE, as pmpi.c does.
 * The rows of these shapes call their status parameter `status`. */
#define OWN_STATUS                                                             \
	MPI_Status st_;                                                        \
	if (mpp_trace_on && status == MPI_STATUS_IGNORE)                       \
	status = &st_
#define WRAP_STATUS(...) WRAP_WITH(OWN_STATUS, (void)0, __VA_ARGS__)
/* Completion calls name their requests first (collector/trace.c resolves
 * the wildcard receives they finish, from the statuses): Wait and Test
 * (`request`), the any forms (`array_of_requests`, one `status`), and the
 * all and some forms (an array of statuses of our own, freed after). */
#define OWN_STATUSES(n)                                                        \
	MPI_Status *own_ = NULL;                                               \
	if (mpp_trace_on && array_of_statuses == MPI_STATUSES_IGNORE &&        \
	    n > 0 && (own_ = malloc((size_t)n * sizeof *own_)))                \
	array_of_statuses = own_
#define WAITING(n, reqs)                                                       \
	if (mpp_trace_on)                                                      \
	mpp_trace_waiting(n, reqs)
#define WRAP_WAIT1(...)                                                        \
	WRAP_WITH(OWN_STATUS; WAITING(1, request), (void)0, __VA_ARGS__)
#define WRAP_WAITANY(...)                                                      \
	WRAP_WITH(OWN_STATUS;                                                  \
		  WAITING(count, array_of_requests), (void)0, __VA_ARGS__)
#define WRAP_WAITALL(...)                                                      \
	WRAP_WITH(OWN_STATUSES(count);                                         \
		  WAITING(count, array_of_requests), free(own_), __VA_ARGS__)
#define WRAP_SOME(...)                                                         \
	WRAP_WITH(OWN_STATUSES(incount); WAITING(incount, array_of_requests),  \
					 free(own_), __VA_ARGS__)
#define SKIP(name, ret, params, args)
#define SEL_SEND(...)          WRAP
#define SEL_RECV(...)          WRAP_STATUS
#define SEL_IRECV(...)         WRAP
#define SEL_SENDRECV(...)      WRAP_STATUS
#define SEL_WAIT1(...)         WRAP_WAIT1
#define SEL_TEST1(...)         WRAP_WAIT1
#define SEL_WAITALL(...)       WRAP_WAITALL
#define SEL_TESTALL(...)       WRAP_WAITALL
#define SEL_WAITANY(...)       WRAP_WAITANY
#define SEL_TESTANY(...)       WRAP_WAITANY
#define SEL_SOME(...)          WRAP_SOME
#define SEL_BARRIER(...)       WRAP
#define SEL_BCAST(...)         WRAP
#define SEL_REDUCE(...)        WRAP
#define SEL_ALLREDUCE(...)     WRAP
#define SEL_EXSCAN(...)        WRAP
#define SEL_SCATTER(...)       WRAP
#define SEL_SCATTERV(...)      WRAP
#define SEL_GATHER(...)        WRAP
#define SEL_GATHERV(...)       WRAP
#define SEL_ALLGATHER(...)     WRAP
#define SEL_ALLGATHERV(...)    WRAP
#define SEL_ALLTOALL(...)      WRAP
#define SEL_ALLTOALLV(...)     WRAP
#define SEL_REDSCAT(...)       WRAP
#define SEL_REDSCAT_BLOCK(...) WRAP
#define SEL_NEIGHBOR(...)      SKIP
#define SEL_ALLTOALLW(...)     WRAP
#define SEL_PCOLL(...)         SKIP
#define SEL_PSEND(...)         WRAP
#define SEL_PRECV(...)         WRAP
#define SEL_START(...)         WRAP
#define SEL_RMA(...)           SKIP
#define SEL_NONE(...)          SKIP
#define SEL_IOTIME(...)        SKIP
#define SEL_FILEIO(...)        SKIP
#define SEL_IFILEIO(...)       SKIP
#define MPP_MPI(name, ret, kind, params, args, acct)                           \
	SEL_##acct(name, ret, params, args)
#include "collector/mpi_table.def"
#undef MPP_MPI

#pragma GCC visibility pop
