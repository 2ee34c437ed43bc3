/*
 * bench.c: the loops of the collector's benchmark (tests/collector/bench.sh).
 * Built twice: plain, and with -DINSTRUMENTED, where it carries a unit and
 * tags its calls as rewritten code does and is linked with libmpipredict.
 *
 * Usage: bench pingpong|allreduce|self ITERATIONS
 *   pingpong  8 bytes from rank 0 to rank 1 and back (MPI_Send, MPI_Recv)
 *   allreduce MPI_Allreduce of one double
 *   self      each rank sends 8 bytes to itself and receives them: the
 *             same calls as pingpong with no waiting, so that the
 *             instructions of a run do not depend on timing (callgrind)
 * Rank 0 prints the loop's wall time per iteration in microseconds (the
 * slowest rank's), after a warm-up of ITERATIONS / 10.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef INSTRUMENTED
#include "mpp_abi.h"

static struct __mpp_site sites[3];
static const char *const site_names[3] = {
    "bench.c:1:1:MPI_Send",
    "bench.c:2:1:MPI_Recv",
    "bench.c:3:1:MPI_Allreduce",
};
static struct __mpp_unit unit = {
    MPP_ABI_VERSION, "bench",    "bench.c", NULL, 0, NULL, NULL, 3,
    sites,           site_names, 0,
};

__attribute__((constructor)) static void reg(void)
{
	__mpp_register(&unit);
}

#define AT(i, fn) (__mpp_tag_push(&sites[i]), fn)
#else
#define AT(i, fn) fn
#endif

enum { PINGPONG, ALLREDUCE, SELF };

static void loop(int kind, long n, int rank)
{
	char buf[8] = {0};
	double x = 1, y;
	long i;

	for (i = 0; i < n; i++) {
		if (kind == SELF) {
			AT(0, MPI_Send)
			(buf, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD);
			AT(1, MPI_Recv)
			(buf, 8, MPI_BYTE, rank, 0, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		} else if (kind == ALLREDUCE) {
			AT(2, MPI_Allreduce)
			(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		} else if (rank == 0) {
			AT(0, MPI_Send)(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
			AT(1, MPI_Recv)
			(buf, 8, MPI_BYTE, 1, 0, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		} else if (rank == 1) {
			AT(1, MPI_Recv)
			(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
			AT(0, MPI_Send)(buf, 8, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
		}
	}
}

int main(int argc, char **argv)
{
	int rank, kind;
	long n;
	double t, tmax;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	kind = argc != 3                       ? -1
	       : !strcmp(argv[1], "pingpong")  ? PINGPONG
	       : !strcmp(argv[1], "allreduce") ? ALLREDUCE
	       : !strcmp(argv[1], "self")      ? SELF
					       : -1;
	if (kind < 0 || (n = atol(argv[2])) <= 0) {
		if (rank == 0)
			fprintf(stderr, "usage: bench pingpong|allreduce|self "
					"ITERATIONS\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	loop(kind, n / 10, rank);
	MPI_Barrier(MPI_COMM_WORLD);
	t = MPI_Wtime();
	loop(kind, n, rank);
	t = MPI_Wtime() - t;
	MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("%.4f\n", 1e6 * tmax / (double)n);
	MPI_Finalize();
	return 0;
}
