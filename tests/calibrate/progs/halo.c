/*
 * halo.c: a communication-bound ring halo exchange for checking the LogGPS
 * model against measured time (make bench-loggps, issue 16). Every rank
 * exchanges SIZE bytes with both neighbours of a ring each step
 * (MPI_Sendrecv right then left: 2 messages sent and 2 received per rank
 * per step, all ranks at once, as the model assumes), with no computation.
 * Rank 0 times every step and prints
 *   size=<B> steps=<n> min_step_s=<s> median_step_s=<s> total_s=<s>
 * where the minimum is the step least disturbed by descheduling (the
 * machine is shared) and total_s covers the timed steps only.
 *
 * Usage: halo SIZE STEPS (WARMUP = STEPS / 10 steps run first, untimed).
 * Not for: the collector's own cost (tests/collector/progs/bench.c).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
	int rank, size, right, left, n = 0, steps = 0, warm;
	char *out, *in;
	double *t, total = 0;

	MPI_Init(&argc, &argv);
	if (argc != 3 || (n = atoi(argv[1])) < 1 ||
	    (steps = atoi(argv[2])) < 1) {
		fprintf(stderr, "usage: halo SIZE STEPS\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	out = malloc((size_t)n);
	in = malloc((size_t)n);
	t = malloc((size_t)steps * sizeof(*t));
	if (!out || !in || !t)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(out, rank, (size_t)n);
	warm = steps / 10;
	for (int s = -warm; s < steps; s++) {
		double t0 = MPI_Wtime();
		MPI_Sendrecv(out, n, MPI_BYTE, right, 1, in, n, MPI_BYTE, left,
			     1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Sendrecv(out, n, MPI_BYTE, left, 2, in, n, MPI_BYTE, right,
			     2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (s >= 0) {
			t[s] = MPI_Wtime() - t0;
			total += t[s];
		}
	}
	if (rank == 0) {
		qsort(t, (size_t)steps, sizeof(*t), cmp_double);
		printf("size=%d steps=%d warm=%d min_step_s=%.9g "
		       "median_step_s=%.9g total_s=%.9g\n",
		       n, steps, warm, t[0], t[steps / 2], total);
	}
	free(out);
	free(in);
	free(t);
	MPI_Finalize();
	return 0;
}
