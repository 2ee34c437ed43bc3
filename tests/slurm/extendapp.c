/*
 * extendapp.c: the user's program of check-slurm's limit-extension test
 * (tests/slurm/extend.sh), built there with mpipredict-mpicc. `extendapp
 * N` runs N rounds of a fixed amount of arithmetic and a 50 ms sleep
 * (about 52 ms a round), then a barrier. The arithmetic is a loop in a
 * function of its own: a loop's counter reaches the running totals when
 * the loop exits (the rewriter keeps it in a register), so this one's
 * count, which the model prices, is fresh at every progress post, where
 * a loop around the whole run would read 0 until the end.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double round_work(double x)
{
	for (long i = 0; i < 400000; i++)
		x = x * 1.0000001 + 1e-9;
	return x;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	long rounds = argc > 1 ? atol(argv[1]) : 10;
	double x = 1.0;
	for (long r = 0; r < rounds; r++) {
		struct timespec ts = {0, 50 * 1000 * 1000};

		x = round_work(x);
		nanosleep(&ts, NULL);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		printf("extendapp: %ld rounds, x = %.3f\n", rounds, x);
	MPI_Finalize();
	return 0;
}
