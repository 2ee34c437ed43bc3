/*
 * transpose.c: a test program in the shape of the parallel FFT libraries
 * (2DECOMP&FFT, heFFTe, P3DFFT): an n x n grid of doubles distributed in
 * slabs of rows, transposed to slabs of columns and back with
 * MPI_Alltoallw, one MPI_Type_create_subarray per peer (a count of 1 and
 * a type per peer, no packing), with a pass of work along the rows before
 * and along the columns after (a stand-in for the 1-D FFTs: the checksum
 * does not depend on the rank count). Slabs are as even as n allows
 * (the first n % P ranks get one more row or column). Rank 0 prints a
 * checksum at the end (MPI_Reduce).
 * Usage: transpose -n N [-i STEPS]
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int part(int n, int p, int r)
{
	return n / p + (r < n % p);
}
static int first(int n, int p, int r)
{
	return r * (n / p) + (r < n % p ? r : n % p);
}

/* A pass along each row (stride 1) or each column (stride cols) of a
 * rows x cols array: the same global operation at any rank count. */
static void work(double *a, int rows, int cols, int down)
{
	int lines = down ? cols : rows, len = down ? rows : cols;
	size_t step = down ? (size_t)cols : 1, next = down ? 1 : (size_t)cols;
	for (int i = 0; i < lines; i++) {
		double *l = a + (size_t)i * next;
		for (int k = 1; k < len; k <<= 1)
			for (int j = len - 1; j >= k; j--)
				l[j * step] += 0.5 * sin(l[(j - k) * step]);
	}
}

int main(int argc, char **argv)
{
	int n = 64, steps = 4, rank, size;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-n"))
			n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-i"))
			steps = atoi(argv[i + 1]);
	}
	if (n < size || steps < 1) {
		if (rank == 0)
			fprintf(stderr, "transpose: -n >= ranks, -i >= 1\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int rows = part(n, size, rank), cols = part(n, size, rank);
	/* x: my rows, all n columns; y: my columns, all n rows (stored as
	 * n x cols). */
	double *x = malloc((size_t)rows * n * sizeof *x);
	double *y = malloc((size_t)n * cols * sizeof *y);
	int *cnt = malloc(4 * (size_t)size * sizeof *cnt);
	MPI_Datatype *xt = malloc(2 * (size_t)size * sizeof *xt);
	if (!x || !y || !cnt || !xt)
		MPI_Abort(MPI_COMM_WORLD, 1);
	int *zero = cnt + size, *one = cnt + 2 * size;
	MPI_Datatype *yt = xt + size;
	for (int j = 0; j < size; j++) {
		/* block (my rows) x (j's columns) of x, and (j's rows) x (my
		 * columns) of y */
		int xs[2] = {rows, n}, xb[2] = {rows, part(n, size, j)},
		    xo[2] = {0, first(n, size, j)};
		int ys[2] = {n, cols}, yb[2] = {part(n, size, j), cols},
		    yo[2] = {first(n, size, j), 0};
		MPI_Type_create_subarray(2, xs, xb, xo, MPI_ORDER_C, MPI_DOUBLE,
					 &xt[j]);
		MPI_Type_create_subarray(2, ys, yb, yo, MPI_ORDER_C, MPI_DOUBLE,
					 &yt[j]);
		MPI_Type_commit(&xt[j]);
		MPI_Type_commit(&yt[j]);
		zero[j] = 0;
		one[j] = 1;
	}
	for (int i = 0; i < rows; i++)
		for (int j = 0; j < n; j++)
			x[(size_t)i * n + j] =
			    (first(n, size, rank) + i) * 0.001 + j * 1e-6;
	for (int s = 0; s < steps; s++) {
		work(x, rows, n, 0);
		MPI_Alltoallw(x, one, zero, xt, y, one, zero, yt,
			      MPI_COMM_WORLD);
		work(y, n, cols, 1);
		MPI_Alltoallw(y, one, zero, yt, x, one, zero, xt,
			      MPI_COMM_WORLD);
	}
	double sum = 0, total = 0;
	for (size_t i = 0; i < (size_t)rows * n; i++)
		sum += x[i];
	MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("transpose n=%d steps=%d: checksum %.9e\n", n, steps,
		       total);
	for (int j = 0; j < size; j++) {
		MPI_Type_free(&xt[j]);
		MPI_Type_free(&yt[j]);
	}
	free(x);
	free(y);
	free(cnt);
	free(xt);
	MPI_Finalize();
	return 0;
}
