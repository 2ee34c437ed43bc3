/*
 * loopapp.c: the user's program of check-slurm's whole-loop test
 * (tests/slurm/loop.sh), built there with mpipredict-mpicc as a user
 * would. `loopapp N` runs N rounds of a fixed amount of arithmetic (the
 * counted loop the model finds), then a barrier. LOOPAPP_SLEEP_US=K makes
 * each round also sleep K microseconds: the same counters, a longer run,
 * which is what a slower machine or a broken input set looks like to a
 * model (a drift).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	long rounds = argc > 1 ? atol(argv[1]) : 10;
	const char *s = getenv("LOOPAPP_SLEEP_US");
	long sleep_us = s ? atol(s) : 0;
	volatile double x = 1.0;
	for (long r = 0; r < rounds; r++) {
		for (long i = 0; i < 400000; i++)
			x = x * 1.0000001 + 1e-9;
		if (sleep_us > 0) {
			struct timespec ts = {sleep_us / 1000000,
					      (sleep_us % 1000000) * 1000};
			nanosleep(&ts, NULL);
		}
	}
	MPI_Barrier(MPI_COMM_WORLD);
	int rank;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0)
		printf("loopapp: %ld rounds, x = %.3f\n", rounds, (double)x);
	MPI_Finalize();
	return 0;
}
