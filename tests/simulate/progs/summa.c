/*
 * summa.c: a test program in the shape of the dense linear-algebra codes
 * (HPL, ScaLAPACK's PDGEMM, SUMMA), for the simulate tests: the ranks form
 * a P x Q grid (MPI_Dims_create, row-major), and each has a row and a
 * column communicator from MPI_Comm_split. C = A B with A, B and C
 * distributed in blocks of (n/P) x (n/Q); for every panel of w columns of
 * A (rows of B), the process column that owns it broadcasts it along each
 * row (MPI_Bcast on the row communicator, its root changing with the
 * panel), the process row that owns the B panel broadcasts it down each
 * column, and every rank multiplies. Then, as such codes check their
 * result:
 *   - each column sums its C block columns (MPI_Allreduce on the column
 *     communicator);
 *   - only process column 0 gathers a checksum per row to its top rank
 *     (MPI_Gather on a communicator only some ranks are in: the others
 *     do not call it);
 *   - a library-style duplicate of MPI_COMM_WORLD (MPI_Comm_dup) takes
 *     the largest entry (MPI_Allreduce over every rank);
 *   - rank 0 gets the total with MPI_Reduce on MPI_COMM_WORLD and prints
 *     it.
 * Usage: summa -n N [-w W]; P and Q must divide N, and W must divide N/P
 * and N/Q (default W = 8).
 *
 * Not for: numerical accuracy (the matrices are made up).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int n = 128, w = 8, rank, size, dims[2] = {0, 0};
	int p, q, P, Q, mb, nq;
	MPI_Comm row, col, lib;

	MPI_Init(&argc, &argv);
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-n"))
			n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-w"))
			w = atoi(argv[i + 1]);
	}
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	MPI_Dims_create(size, 2, dims);
	P = dims[0];
	Q = dims[1];
	p = rank / Q;
	q = rank % Q;
	if (n <= 0 || w <= 0 || n % P || n % Q || (n / P) % w || (n / Q) % w) {
		if (rank == 0)
			fprintf(stderr,
				"summa: -n %d -w %d: a %d x %d grid needs P "
				"and Q to divide n, and w to divide n/P and "
				"n/Q\n",
				n, w, P, Q);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	mb = n / P;
	nq = n / Q;
	MPI_Comm_split(MPI_COMM_WORLD, p, q, &row); /* rank in row = q */
	MPI_Comm_split(MPI_COMM_WORLD, q, p, &col); /* rank in col = p */
	MPI_Comm_dup(MPI_COMM_WORLD, &lib);

	double *a = malloc((size_t)mb * nq * sizeof *a);
	double *b = malloc((size_t)mb * nq * sizeof *b);
	double *c = calloc((size_t)mb * nq, sizeof *c);
	double *ap = malloc((size_t)mb * w * sizeof *ap);
	double *bp = malloc((size_t)w * nq * sizeof *bp);
	if (!a || !b || !c || !ap || !bp) {
		fprintf(stderr, "summa: out of memory\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	for (int i = 0; i < mb; i++)
		for (int j = 0; j < nq; j++) {
			int gi = p * mb + i, gj = q * nq + j;
			a[(size_t)i * nq + j] = 1.0 / (1 + gi + gj);
			b[(size_t)i * nq + j] = (gi == gj) + 0.001 * gj;
		}

	for (int k = 0; k < n; k += w) {
		int qa = k / nq, ka = k % nq; /* A panel: process column, col */
		int pb = k / mb, kb = k % mb; /* B panel: process row, row */
		if (q == qa)
			for (int i = 0; i < mb; i++)
				memcpy(ap + (size_t)i * w,
				       a + (size_t)i * nq + ka,
				       (size_t)w * sizeof *ap);
		MPI_Bcast(ap, mb * w, MPI_DOUBLE, qa, row);
		if (p == pb)
			memcpy(bp, b + (size_t)kb * nq,
			       (size_t)w * nq * sizeof *bp);
		MPI_Bcast(bp, w * nq, MPI_DOUBLE, pb, col);
		for (int i = 0; i < mb; i++)
			for (int l = 0; l < w; l++) {
				double x = ap[(size_t)i * w + l];
				for (int j = 0; j < nq; j++)
					c[(size_t)i * nq + j] +=
					    x * bp[(size_t)l * nq + j];
			}
	}

	double *colsum = calloc((size_t)nq, sizeof *colsum), rowsum = 0,
	       big = 0, total = 0, mine = 0;
	if (!colsum)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (int i = 0; i < mb; i++)
		for (int j = 0; j < nq; j++) {
			double v = c[(size_t)i * nq + j];
			colsum[j] += v;
			mine += v;
			if (v > big)
				big = v;
		}
	MPI_Allreduce(MPI_IN_PLACE, colsum, nq, MPI_DOUBLE, MPI_SUM, col);
	if (q == 0) {
		double *rows = p == 0 ? malloc((size_t)P * sizeof *rows) : NULL;
		rowsum = mine;
		MPI_Gather(&rowsum, 1, MPI_DOUBLE, rows, 1, MPI_DOUBLE, 0, col);
		free(rows);
	}
	MPI_Allreduce(MPI_IN_PLACE, &big, 1, MPI_DOUBLE, MPI_MAX, lib);
	MPI_Reduce(&mine, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("summa n=%d w=%d grid %dx%d: sum %.6e max %.6e col0 "
		       "%.6e\n",
		       n, w, P, Q, total, big, colsum[0]);
	free(colsum);
	free(a);
	free(b);
	free(c);
	free(ap);
	free(bp);
	MPI_Comm_free(&lib);
	MPI_Comm_free(&row);
	MPI_Comm_free(&col);
	MPI_Finalize();
	return 0;
}
