/*
 * stencil.c: a 2-D five-point Jacobi sweep on an n x n grid, rows split
 * over the ranks, in the shape of issue 38's third-party stencil: its
 * set-up allocates and fills halo buffers, and checks them with an
 * MPI_Allreduce, only when it runs on more than one rank. At 1 rank the
 * set-up's segment ends at the barrier after the grid's check; at 2 it
 * ends at the halo check, another MPI_Allreduce, and the halo's filling
 * is a segment "allreduce>allreduce" as long as milliseconds, while the
 * loop's residual and maximum reductions make the same name pair worth
 * microseconds. Matched by the calls' names the two were one kind, whose
 * law in the rank count had an exponent near 10.
 *
 * Usage: stencil [-n N] [-s STEPS]. Prints the checksum on rank 0.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int n = 512, steps = 20, me, np, i, j, s, ok, all;
	double *u, *v, *halo = NULL, res, mx, sum = 0, tot = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-n"))
			n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-s"))
			steps = atoi(argv[i + 1]);
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	int lo = (int)((long)n * me / np), hi = (int)((long)n * (me + 1) / np);
	int rows = hi - lo;
	size_t w = (size_t)n;
	u = calloc((size_t)(rows + 2) * w, sizeof *u);
	v = calloc((size_t)(rows + 2) * w, sizeof *v);
	ok = u && v;
	for (i = 1; ok && i <= rows; i++)
		for (j = 0; j < n; j++)
			u[i * w + j] = sin(0.001 * (lo + i) * j);
	MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
	if (!all)
		MPI_Abort(MPI_COMM_WORLD, 2);
	/* Only with neighbours: a pool of halo buffers (a library's
	 * registered memory, say), filled once, and checked on every rank. */
	if (np > 1) {
		size_t hn = (size_t)256 * w;
		halo = malloc(hn * sizeof *halo);
		ok = halo != NULL;
		for (size_t k = 0; ok && k < hn; k++)
			halo[k] = cos(1e-6 * (double)k);
		MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
		if (!all)
			MPI_Abort(MPI_COMM_WORLD, 2);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	int up = me > 0 ? me - 1 : MPI_PROC_NULL;
	int dn = me < np - 1 ? me + 1 : MPI_PROC_NULL;
	for (s = 0; s < steps; s++) {
		MPI_Sendrecv(u + w, n, MPI_DOUBLE, up, 1, u + (rows + 1) * w, n,
			     MPI_DOUBLE, dn, 1, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		MPI_Sendrecv(u + rows * w, n, MPI_DOUBLE, dn, 2, u, n,
			     MPI_DOUBLE, up, 2, MPI_COMM_WORLD,
			     MPI_STATUS_IGNORE);
		res = 0;
		for (i = 1; i <= rows; i++)
			for (j = 1; j < n - 1; j++) {
				double x =
				    0.25 *
				    (u[(i - 1) * w + j] + u[(i + 1) * w + j] +
				     u[i * w + j - 1] + u[i * w + j + 1]);
				res += fabs(x - u[i * w + j]);
				v[i * w + j] = x;
			}
		double *t = u;
		u = v;
		v = t;
		if (s % 5 == 4) {
			MPI_Allreduce(&res, &tot, 1, MPI_DOUBLE, MPI_SUM,
				      MPI_COMM_WORLD);
			mx = res / (rows > 0 ? rows : 1);
			MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_DOUBLE, MPI_MAX,
				      MPI_COMM_WORLD);
		}
	}
	for (i = 1; i <= rows; i++)
		for (j = 0; j < n; j++)
			sum += u[i * w + j];
	MPI_Reduce(me ? &sum : MPI_IN_PLACE, &sum, 1, MPI_DOUBLE, MPI_SUM, 0,
		   MPI_COMM_WORLD);
	if (me == 0)
		printf("checksum %.6e residual %.6e\n", sum, tot);
	free(u);
	free(v);
	free(halo);
	MPI_Finalize();
	return 0;
}
