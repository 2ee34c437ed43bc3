/*
 * rootout.c: a solver whose rank 0 alone writes the result, in the shape
 * of PENNANT's output: every step each rank sweeps its share of an n x n
 * grid and the ranks agree on a residual (MPI_Allreduce); at the end the
 * shares are gathered to rank 0 (MPI_Gather), which formats every value
 * as text (the writing, done on rank 0 only) before MPI_Finalize.
 *
 * Usage: rootout [-n N] [-s STEPS]. Prints a checksum of the text on
 * rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int n = 512, steps = 10, me, np;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-n"))
			n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-s"))
			steps = atoi(argv[i + 1]);
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	int rows = n / np;
	double *u = calloc((size_t)rows * n, sizeof *u), res = 0;
	double *all = me ? NULL : malloc((size_t)rows * np * n * sizeof *all);
	if (!u || (!me && !all))
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (int s = 0; s < steps; s++) {
		double local = 0;
		for (int i = 0; i < rows; i++)
			for (int j = 0; j < n; j++) {
				double *c = &u[(size_t)i * n + j];
				*c = 0.5 * *c + 0.25 * (me * rows + i + j + s);
				local += *c;
			}
		MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
	}
	MPI_Gather(u, rows * n, MPI_DOUBLE, all, rows * n, MPI_DOUBLE, 0,
		   MPI_COMM_WORLD);
	if (me == 0) {
		char text[64];
		unsigned long sum = 0;
		for (size_t k = 0; k < (size_t)rows * np * n; k++) {
			int len =
			    snprintf(text, sizeof text, "%.17g\n", all[k]);
			for (int c = 0; c < len; c++)
				sum = sum * 31 + (unsigned char)text[c];
		}
		printf("rootout n=%d steps=%d residual=%g text=%lu\n", n, steps,
		       res, sum);
	}
	free(u);
	free(all);
	MPI_Finalize();
	return 0;
}
