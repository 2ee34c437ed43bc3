/*
 * calls.c: a test program for the trace mode (MPIPREDICT_TRACE): a known
 * sequence of MPI calls whose trace lines t-trace-actions.sh checks
 * exactly (sizes, peers as MPI_COMM_WORLD ranks, MPI_PROC_NULL as -1).
 * Run at 2 ranks. Written like real codes write halo exchanges: a
 * reversed communicator, sizes from the arguments, a loop of timesteps,
 * a neighbourhood collective on a Cartesian ring.
 */
#include <mpi.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 100, rank, size, other;
	MPI_Comm rev;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* rank order reversed: world rank 0 is rank 1 of rev */
	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
	double *a = calloc((size_t)n, sizeof *a),
	       *b = calloc((size_t)n, sizeof *b);
	int sc[2] = {2, 2}, rc[2] = {2, 2}, sd[2] = {0, 2}, rd[2] = {0, 2};
	other = 1 - rank;
	for (int step = 0; step < 2; step++) {
		MPI_Sendrecv(a, n, MPI_DOUBLE, other, 7, b, n, MPI_DOUBLE,
			     other, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(a, n, MPI_DOUBLE, MPI_PROC_NULL, 8, b, n,
			     MPI_DOUBLE, MPI_PROC_NULL, 8, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		MPI_Allreduce(MPI_IN_PLACE, a, 4, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
	}
	if (rank == 0)
		MPI_Send(a, 3, MPI_INT, 1, 5, MPI_COMM_WORLD);
	else
		MPI_Recv(b, 3, MPI_INT, 0, 5, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	MPI_Bcast(a, 2, MPI_DOUBLE, 0, rev); /* root: world rank 1 */
	MPI_Alltoallv(a, sc, sd, MPI_DOUBLE, b, rc, rd, MPI_DOUBLE,
		      MPI_COMM_WORLD);
	/* a periodic ring as a Cartesian topology: both neighbours of each
	 * rank are the other rank; 2 doubles to and from each */
	int dims[1] = {size}, periods[1] = {1};
	MPI_Comm ring;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &ring);
	MPI_Neighbor_alltoall(a, 2, MPI_DOUBLE, b, 2, MPI_DOUBLE, ring);
	MPI_Comm_free(&ring);
	MPI_Comm_free(&rev);
	free(a);
	free(b);
	MPI_Finalize();
	return 0;
}
