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

#define MPP_MPI(name, ret, kind, params, args, acct)                           \
	ret name params                                                        \
	{                                                                      \
		ret rc_;                                                       \
		if (mpp_trace_on)                                              \
			mpp_trace_pre();                                       \
		rc_ = P##name args;                                            \
		if (mpp_trace_on)                                              \
			mpp_trace_##name args;                                 \
		return rc_;                                                    \
	}
#include "collector/mpi_table.def"
#undef MPP_MPI

#pragma GCC visibility pop
