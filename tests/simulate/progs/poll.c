/*
 * poll.c: a test program in the shape of codes that wait by polling:
 * instead of MPI_Wait, a loop of MPI_Test (or MPI_Testall) until the
 * message is in, as a code does that keeps an eye on something else
 * meanwhile. Two ranks pass a token back and forth: each, in turn, works
 * (-w units of a deterministic loop), then sends the token, then polls for
 * it to come back, so the run is serial: its time is about 2 x steps x
 * work. Rank 0 polls with MPI_Test, rank 1 with MPI_Testall. Rank 0
 * prints the token and the number of polls at the end.
 * Usage: poll [-w WORK] [-i STEPS] (exactly 2 ranks)
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double work(long units, double x)
{
	for (long i = 0; i < units * 1000; i++)
		x = x + sin(x) * 1e-3;
	return x;
}

int main(int argc, char **argv)
{
	long units = 2000;
	int steps = 10, rank, size;
	long polls = 0, total = 0;
	double token = 1.0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-w"))
			units = atol(argv[i + 1]);
		else if (!strcmp(argv[i], "-i"))
			steps = atoi(argv[i + 1]);
	}
	if (size != 2) {
		if (rank == 0)
			fprintf(stderr, "poll: exactly 2 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	for (int s = 0; s < steps; s++) {
		MPI_Request req;
		int flag = 0;
		if (rank == 1 || s > 0) {
			/* rank 0 starts; afterwards each waits for its turn */
			MPI_Irecv(&token, 1, MPI_DOUBLE, 1 - rank, s,
				  MPI_COMM_WORLD, &req);
			while (!flag) {
				if (rank == 0)
					MPI_Test(&req, &flag,
						 MPI_STATUS_IGNORE);
				else
					MPI_Testall(1, &req, &flag,
						    MPI_STATUSES_IGNORE);
				polls++;
			}
		}
		token = work(units, token);
		MPI_Send(&token, 1, MPI_DOUBLE, 1 - rank, s + (rank == 1),
			 MPI_COMM_WORLD);
	}
	if (rank == 0) { /* the last token */
		MPI_Recv(&token, 1, MPI_DOUBLE, 1, steps, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
	}
	MPI_Reduce(&polls, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("token %.9f after %d steps\n", token, steps);
	fprintf(stderr, "rank %d: %ld polls\n", rank, polls);
	MPI_Finalize();
	return 0;
}
