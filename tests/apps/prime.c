/*
 * prime.c: example MPI application for mpipredict's tests and benchmarks
 * (the PRIME kind of program: compute-bound, one final reduction).
 *
 * Counts the primes below N by trial division, the odd candidates dealt to
 * the ranks cyclically, and repeats the count R times (the "iterations" a
 * job submission shows). The ranks communicate once, in a final
 * MPI_Reduce. The output does not depend on the number of ranks.
 *
 * Not a fast prime counter: trial division is the point, its cost grows as
 * N^1.5 / log N, a shape a runtime model has to learn.
 */
#include <getopt.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "app_args.h"

static const char *prog = "prime";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-n N] [-i R]\n"
		"Count the primes below N (default 2000000), R times "
		"(default 1).\n"
		"  -n, --size=N        upper end of the range, 2..2000000000\n"
		"  -i, --iterations=R  repetitions of the count, 1..1000\n"
		"  -h, --help          this message\n",
		prog);
}

/* Trial division by odd numbers; n is odd and >= 3. */
static int is_odd_prime(long n)
{
	for (long d = 3; d * d <= n; d += 2)
		if (n % d == 0)
			return 0;
	return 1;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"size", required_argument, NULL, 'n'},
	    {"iterations", required_argument, NULL, 'i'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	long n = 2000000, reps = 1;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "n:i:h", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			if (app_long(prog, "--size", optarg, 2, 2000000000L,
				     &n))
				return 1;
			break;
		case 'i':
			if (app_long(prog, "--iterations", optarg, 1, 1000,
				     &reps))
				return 1;
			break;
		case 'h':
			if (app_first_process())
				usage(stdout);
			return 0;
		default:
			app_bad_option(prog, argv[optind - 1]);
			return 1;
		}
	}
	if (optind < argc) {
		app_bad_option(prog, argv[optind]);
		return 1;
	}

	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* Candidates 3, 5, 7, ... below n; rank r takes the r-th, the
	 * (r+size)-th, ... so that every rank gets small and large ones. */
	long long local = 0;
	for (long r = 0; r < reps; r++) {
		for (long cand = 3 + 2L * rank; cand < n; cand += 2L * size)
			if (is_odd_prime(cand))
				local++;
	}
	long long total = 0;
	MPI_Reduce(&local, &total, 1, MPI_LONG_LONG, MPI_SUM, 0,
		   MPI_COMM_WORLD);
	if (rank == 0) {
		long long per = total / reps + (n > 2 ? 1 : 0); /* and 2 */
		printf("primes below %ld: %lld (counted %ld times)\n", n, per,
		       reps);
	}
	MPI_Finalize();
	return 0;
}
