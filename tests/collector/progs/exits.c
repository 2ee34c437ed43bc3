/*
 * exits.c: a test program for the run's exit status: MPI_Init,
 * MPI_Finalize, then ends as argv says: `ret N` returns N from main,
 * `exit N` calls exit(N), `rank1 N` has rank 1 alone exit(N). Not for
 * counting anything (no units).
 */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int rank, n = argc > 2 ? atoi(argv[2]) : 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Finalize();
	if (argc > 1 && strcmp(argv[1], "exit") == 0)
		exit(n);
	if (argc > 1 && strcmp(argv[1], "rank1") == 0 && rank == 1)
		exit(n);
	return argc > 1 && strcmp(argv[1], "ret") == 0 ? n : 0;
}
