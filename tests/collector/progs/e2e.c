/*
 * e2e.c: a plain MPI program (no mpipredict code in it) for the collector's
 * end-to-end test through mpipredict-cc. Ranks r and r^1 run 5(r/2+1)
 * iterations of a loop in which the even one sends r/2+1 ints to the odd
 * one, then every rank makes one Allreduce of 2 doubles. The test finds the
 * loop and the branch by the markers on their lines, each call by the
 * marker on the line before it.
 */
#include <mpi.h>

int main(int argc, char **argv)
{
	int rank, size, i, buf[64] = {0};
	double x[2] = {1, 2}, y[2];
	MPI_Comm w = MPI_COMM_WORLD;
	MPI_Status *st = MPI_STATUS_IGNORE;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < 5 * (rank / 2 + 1); i++) { /* LOOP */
		if (rank % 2 == 0)                 /* IF */
			/* SEND */
			MPI_Send(buf, rank / 2 + 1, MPI_INT, rank ^ 1, 0, w);
		else
			/* RECV */
			MPI_Recv(buf, 64, MPI_INT, rank ^ 1, 0, w, st);
	}
	/* ALLREDUCE */
	MPI_Allreduce(x, y, 2, MPI_DOUBLE, MPI_SUM, w);
	MPI_Finalize();
	return 0;
}
