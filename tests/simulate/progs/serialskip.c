/*
 * serialskip.c: PENNANT's shape (its Parallel.cc): every MPI call is in a
 * wrapper that returns at once when there is one rank (a global sum,
 * a gather, a halo exchange among neighbours), so a 1-rank run calls MPI
 * only to start and stop, and its trace is one init>finalize segment. An
 * n x n grid, rows split over the ranks, STEPS relaxation sweeps with a
 * halo exchange (MPI_Irecv, MPI_Send, MPI_Waitall) and a global sum each,
 * then rank 0 gathers the row sums and, alone, writes the output (as
 * PENNANT writes its .xy file after gathering every zone: here n x n
 * values formatted into memory), whatever the rank count.
 *
 * Usage: serialskip [-n N] [-s STEPS]. Prints the checksum on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np;

/* the wrappers: nothing to do at one rank, as PENNANT's */
static double global_sum(double x)
{
	double y;
	if (np == 1)
		return x;
	MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	return y;
}

static void exchange(double *u, int rows, int n)
{
	MPI_Request rq[2];
	int k = 0;
	if (np == 1)
		return;
	if (me > 0)
		MPI_Irecv(u, n, MPI_DOUBLE, me - 1, 0, MPI_COMM_WORLD,
			  &rq[k++]);
	if (me < np - 1)
		MPI_Irecv(u + (size_t)(rows + 1) * n, n, MPI_DOUBLE, me + 1, 0,
			  MPI_COMM_WORLD, &rq[k++]);
	if (me > 0)
		MPI_Send(u + n, n, MPI_DOUBLE, me - 1, 0, MPI_COMM_WORLD);
	if (me < np - 1)
		MPI_Send(u + (size_t)rows * n, n, MPI_DOUBLE, me + 1, 0,
			 MPI_COMM_WORLD);
	MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
}

static void gather(double x, double *all)
{
	if (np == 1) {
		all[0] = x;
		return;
	}
	MPI_Gather(&x, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
	int n = 256, steps = 20, i, j, s;
	double *u, *v, *all, res = 0, tot = 0;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-n"))
			n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-s"))
			steps = atoi(argv[i + 1]);
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	int rows = n / np + (me < n % np);
	u = calloc((size_t)(rows + 2) * n, sizeof *u);
	v = calloc((size_t)(rows + 2) * n, sizeof *v);
	all = calloc((size_t)np, sizeof *all);
	if (!u || !v || !all)
		MPI_Abort(MPI_COMM_WORLD, 1);
	for (i = 1; i <= rows; i++)
		for (j = 0; j < n; j++)
			u[(size_t)i * n + j] = (i + j) % 7;
	for (s = 0; s < steps; s++) {
		exchange(u, rows, n);
		double d = 0;
		for (i = 1; i <= rows; i++)
			for (j = 1; j + 1 < n; j++) {
				size_t c = (size_t)i * n + j;
				v[c] = 0.25 * (u[c - n] + u[c + n] + u[c - 1] +
					       u[c + 1]);
				d += v[c] - u[c];
			}
		double *t = u;
		u = v;
		v = t;
		res = global_sum(d);
	}
	for (i = 1; i <= rows; i++)
		for (j = 0; j < n; j++)
			tot += u[(size_t)i * n + j];
	gather(tot, all);
	if (me == 0) {
		char line[64];
		size_t out = 0;
		for (tot = 0, i = 0; i < np; i++)
			tot += all[i];
		for (i = 0; i < n; i++)
			for (j = 0; j < n; j++)
				out += (size_t)snprintf(
				    line, sizeof line, "%5d %18.8e\n",
				    i * n + j, tot / (i + j + 1));
		printf("serialskip n %d steps %d checksum %.6e %.3e out %zu\n",
		       n, steps, tot, res, out);
	}
	free(u);
	free(v);
	free(all);
	MPI_Finalize();
	return 0;
}
