/*
 * e2e.c: a plain MPI program (no mpipredict code in it) for the collector's
 * end-to-end test through mpipredict-cc. Ranks r and r^1 run 5(r/2+1)
 * iterations of a loop in which the even one sends r/2+1 ints to the odd
 * one, then every rank makes one Allreduce of 2 doubles. The test finds the sites by
 * the line numbers of the marked calls.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, i, buf[64] = {0};
	double x[2] = {1, 2}, y[2];

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < 5 * (rank / 2 + 1); i++) {
		if (rank % 2 == 0)
			MPI_Send(buf, rank / 2 + 1, MPI_INT, rank ^ 1, 0, MPI_COMM_WORLD); /* SEND */
		else
			MPI_Recv(buf, 64, MPI_INT, rank ^ 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE); /* RECV */
	}
	MPI_Allreduce(x, y, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* ALLREDUCE */
	MPI_Finalize();
	return 0;
}
