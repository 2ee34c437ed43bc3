/*
 * gather_io.c: the shape of a code that writes its output through the root
 * rank (serial I/O, as many legacy solvers and "dump every N steps" codes
 * do): every rank holds and updates its part of a field, then rank 0
 * gathers the whole field into one buffer, writes a checksum of it as its
 * "output file" and frees the buffer before MPI_Finalize.
 *
 *   gather_io MIB   each rank's part is MIB MiB of doubles (1..1024)
 *
 * So rank 0's peak memory holds its part plus the whole field (nprocs x MIB
 * MiB more than the others), and at MPI_Finalize that buffer is already
 * gone: only a peak sees it (tests/collector/t-peak-memory.sh).
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, size;
	long mib;
	char *end;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	mib = argc == 2 ? strtol(argv[1], &end, 10) : 0;
	if (argc != 2 || *end || mib < 1 || mib > 1024) {
		if (rank == 0)
			fprintf(stderr, "usage: gather_io MIB (1..1024)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	size_t n = (size_t)mib * 1024 * 1024 / sizeof(double);
	double *part = malloc(n * sizeof *part), *whole = NULL;
	if (!part)
		MPI_Abort(MPI_COMM_WORLD, 3);
	/* A few sweeps over the part, so every page is touched. */
	for (size_t i = 0; i < n; i++)
		part[i] = (double)rank + (double)i * 1e-9;
	for (int step = 0; step < 3; step++)
		for (size_t i = 1; i < n; i++)
			part[i] = 0.5 * (part[i] + part[i - 1]);

	if (rank == 0 && !(whole = malloc((size_t)size * n * sizeof *whole)))
		MPI_Abort(MPI_COMM_WORLD, 3);
	/* The count fits an int for the sizes allowed (at most 2^27). */
	MPI_Gather(part, (int)n, MPI_DOUBLE, whole, (int)n, MPI_DOUBLE, 0,
		   MPI_COMM_WORLD);
	if (rank == 0) {
		double sum = 0;
		for (size_t i = 0; i < (size_t)size * n; i++)
			sum += whole[i];
		printf("checksum %.6e\n", sum);
		free(whole);
	}
	free(part);
	MPI_Finalize();
	return 0;
}
