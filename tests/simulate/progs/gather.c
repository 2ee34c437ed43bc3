/*
 * gather.c: an unstructured code's inner loop in the shape of PENNANT's
 * and miniFE's: an index array (the mesh's connectivity) built once, then
 * each step gathers values through it and sums them over the ranks with
 * MPI_Allreduce. With the large allocations shared by all ranks (SimGrid's
 * folding: mpipredict-simulate --share-malloc) the index array and the
 * values live on the same pages, the indices read back as the values'
 * bits, and the gather leaves the arrays (PENNANT so crashed).
 *
 * Usage: gather [-n N] [-s STEPS]. Prints the sum on rank 0.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int n = 1 << 16, steps = 10, me, np;
	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "-n"))
			n = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "-s"))
			steps = atoi(argv[i + 1]);
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	int *idx = malloc((size_t)n * sizeof *idx);
	double *val = malloc((size_t)n * sizeof *val);
	if (!idx || !val || n < 2)
		MPI_Abort(MPI_COMM_WORLD, 2);
	for (int i = 0; i < n; i++)
		idx[i] = (int)(((long)i * 7919 + me) % n);
	for (int i = 0; i < n; i++)
		val[i] = 1e300 / (i + 1);
	double sum = 0, tot = 0;
	for (int s = 0; s < steps; s++) {
		double part = 0;
		for (int i = 0; i < n; i++)
			part += val[idx[i]] * 1e-300;
		MPI_Allreduce(&part, &tot, 1, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
		sum += tot;
	}
	if (me == 0)
		printf("sum %.6e\n", sum);
	free(idx);
	free(val);
	MPI_Finalize();
	return 0;
}
