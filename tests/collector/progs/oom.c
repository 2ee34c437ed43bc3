/*
 * oom.c: an array completion call that runs out of memory inside
 * libmpipredict, for t-out-of-memory.sh. The program defines malloc (over
 * glibc's __libc_malloc), so that libmpipredict's allocations come here;
 * when armed, the second allocation fails: MPI_Waitall of more than 16
 * requests with MPI_STATUSES_IGNORE allocates a request copy and then
 * statuses. Not for sanitizer builds (they define malloc themselves).
 *
 * Usage: oom (2 ranks). Each rank posts 20 MPI_Irecv of 4 bytes from its
 * partner (site "o.c:1:1:MPI_Irecv"), sends them, and completes the
 * receives with one MPI_Waitall, twice: first armed, then not.
 */
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>

#include "mpp_abi.h"

void *__libc_malloc(size_t n);
void *malloc(size_t n);

static int armed; /* allocations to let through before failing one, + 1 */

void *malloc(size_t n)
{
	if (armed && --armed == 1) {
		armed = 0;
		return NULL;
	}
	return __libc_malloc(n);
}

static const char *const site_names[1] = {"o.c:1:1:MPI_Irecv"};
static struct __mpp_site sites[1];
static struct __mpp_unit unit = {
    MPP_ABI_VERSION, "oom", "o.c", NULL, 0, NULL, NULL, 1, sites, site_names, 0,
};

__attribute__((constructor)) static void reg(void)
{
	__mpp_register(&unit);
}

enum { NREQ = 20 };

static void round_trip(int peer, int arm)
{
	int in[NREQ], out[NREQ] = {0}, i;
	MPI_Request r[NREQ], s[NREQ];

	for (i = 0; i < NREQ; i++) {
		__mpp_tag_push(&sites[0]);
		MPI_Irecv(&in[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &r[i]);
	}
	for (i = 0; i < NREQ; i++)
		MPI_Isend(&out[i], 1, MPI_INT, peer, i, MPI_COMM_WORLD, &s[i]);
	armed = arm ? 3 : 0;
	MPI_Waitall(NREQ, r, MPI_STATUSES_IGNORE);
	if (armed)
		fprintf(stderr, "oom: the armed allocations did not happen\n");
	armed = 0;
	MPI_Waitall(NREQ, s, MPI_STATUSES_IGNORE);
}

int main(int argc, char **argv)
{
	int rank;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	round_trip(rank ^ 1, 1);
	round_trip(rank ^ 1, 0);
	MPI_Finalize();
	return 0;
}
