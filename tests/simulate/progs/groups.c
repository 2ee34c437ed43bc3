/*
 * groups.c: every collective on a communicator that holds only some of
 * the ranks, for t-subcomm-collectives.sh. Run at 4 ranks: ranks 3, 2
 * and 0 form one communicator (in that order: MPI_Comm_split with the key
 * -rank), rank 1 one of its own. Sizes in doubles; the v-variants' counts
 * depend on the member's rank i in the communicator:
 *   barrier; bcast 5 from 1; reduce 6 to 2; allreduce 7; scan 3; exscan 2;
 *   gather 4 to 0; scatter 3 from 1; gatherv i+1 to 0; scatterv i+2 from
 *   2; allgather 2; allgatherv i+1; alltoall 1; alltoallv i+j+1 from i to
 *   j; reduce_scatter counts {1, 2, 3}; reduce_scatter_block 2; ibcast 4
 *   from 0 and its wait.
 * Every member ends up with the same calls, so the trace is a real one;
 * the values are not checked.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, n, i, sc[64], sd[64], rc[64], rd[64], counts[64];
	double a[256] = {0}, b[256];
	MPI_Comm g;
	MPI_Request req;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_split(MPI_COMM_WORLD, rank == 1, -rank, &g);
	MPI_Comm_size(g, &n);
	MPI_Comm_rank(g, &i);
	if (n > 64) {
		fprintf(stderr, "groups: at most 64 ranks in a communicator\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int r1 = n > 1 ? 1 : 0, r2 = n > 2 ? 2 : 0;

	MPI_Barrier(g);
	MPI_Bcast(a, 5, MPI_DOUBLE, r1, g);
	MPI_Reduce(a, b, 6, MPI_DOUBLE, MPI_SUM, r2, g);
	MPI_Allreduce(a, b, 7, MPI_DOUBLE, MPI_SUM, g);
	MPI_Scan(a, b, 3, MPI_DOUBLE, MPI_SUM, g);
	MPI_Exscan(a, b, 2, MPI_DOUBLE, MPI_SUM, g);
	MPI_Gather(a, 4, MPI_DOUBLE, b, 4, MPI_DOUBLE, 0, g);
	MPI_Scatter(a, 3, MPI_DOUBLE, b, 3, MPI_DOUBLE, r1, g);
	for (int j = 0, off = 0; j < n; off += j + 1, j++) {
		rc[j] = j + 1;
		rd[j] = off;
	}
	MPI_Gatherv(a, i + 1, MPI_DOUBLE, b, rc, rd, MPI_DOUBLE, 0, g);
	for (int j = 0, off = 0; j < n; off += j + 2, j++) {
		sc[j] = j + 2;
		sd[j] = off;
	}
	MPI_Scatterv(a, sc, sd, MPI_DOUBLE, b, i + 2, MPI_DOUBLE, r2, g);
	MPI_Allgather(a, 2, MPI_DOUBLE, b, 2, MPI_DOUBLE, g);
	MPI_Allgatherv(a, i + 1, MPI_DOUBLE, b, rc, rd, MPI_DOUBLE, g);
	MPI_Alltoall(a, 1, MPI_DOUBLE, b, 1, MPI_DOUBLE, g);
	for (int j = 0, so = 0, ro = 0; j < n; j++) {
		sc[j] = i + j + 1;
		sd[j] = so;
		so += sc[j];
		rc[j] = j + i + 1;
		rd[j] = ro;
		ro += rc[j];
	}
	MPI_Alltoallv(a, sc, sd, MPI_DOUBLE, b, rc, rd, MPI_DOUBLE, g);
	for (int j = 0; j < n; j++)
		counts[j] = j + 1;
	MPI_Reduce_scatter(a, b, counts, MPI_DOUBLE, MPI_SUM, g);
	MPI_Reduce_scatter_block(a, b, 2, MPI_DOUBLE, MPI_SUM, g);
	MPI_Ibcast(a, 4, MPI_DOUBLE, 0, g, &req);
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Comm_free(&g);
	MPI_Finalize();
	return 0;
}
