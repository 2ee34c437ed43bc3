/*
 * amr.c: a 7-point stencil over 20 variables of a block whose sizes are
 * globals (`for (i = 1; i <= x_block_size; i++)`), then copied back, as
 * miniAMR's stencil_calc writes it, for `make bench-overhead` (issue 34), in a
 * file of its own so that its counters change no other kernel's inlining: `amr
 * N REPS`.
 */
#include <stdio.h>
#include <stdlib.h>

/* miniAMR's block: sizes and the variable count in globals, set from the
 * command line. */
int x_block_size, y_block_size, z_block_size, num_vars = 20;

static double amr(int n, int reps)
{
	x_block_size = y_block_size = z_block_size = n;
	int m = n + 2;
	double *blk = calloc((size_t)num_vars * m * m * m, sizeof(*blk));
	double *work = calloc((size_t)m * m * m, sizeof(*work));
	double sum = 0;
	int var, i, j, k;
#define A(v, i, j, k) blk[(((size_t)(v)*m + (i)) * m + (j)) * m + (k)]
#define W(i, j, k)    work[((size_t)(i)*m + (j)) * m + (k)]
	for (var = 0; var < num_vars; var++)
		for (i = 0; i < m; i++)
			for (j = 0; j < m; j++)
				for (k = 0; k < m; k++)
					A(var, i, j, k) =
					    var + i + 2 * j + 3 * k;
	for (int it = 0; it < reps; it++)
		for (var = 0; var < num_vars; var++) {
			for (i = 1; i <= x_block_size; i++)
				for (j = 1; j <= y_block_size; j++)
					for (k = 1; k <= z_block_size; k++)
						W(i, j, k) =
						    (A(var, i - 1, j, k) +
						     A(var, i, j - 1, k) +
						     A(var, i, j, k - 1) +
						     A(var, i, j, k) +
						     A(var, i, j, k + 1) +
						     A(var, i, j + 1, k) +
						     A(var, i + 1, j, k)) /
						    7.0;
			for (i = 1; i <= x_block_size; i++)
				for (j = 1; j <= y_block_size; j++)
					for (k = 1; k <= z_block_size; k++)
						A(var, i, j, k) = W(i, j, k);
		}
	for (i = 1; i <= x_block_size; i++)
		sum += A(num_vars - 1, i, i, i);
#undef A
#undef W
	free(blk);
	free(work);
	return sum;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: amr N REPS\n");
		return 1;
	}
	printf("amr %.6g\n", amr(atoi(argv[1]), atoi(argv[2])));
	return 0;
}
