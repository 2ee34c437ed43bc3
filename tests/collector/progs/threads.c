/*
 * threads.c: nonblocking traffic from two threads per rank at once under
 * MPI_THREAD_MULTIPLE, for t-threads.sh. Ranks r and r^1 are partners and
 * their threads t talk to each other (distinct tags per pattern). Each
 * thread tags its calls from a hand-built unit (like traffic.c); both
 * threads use different sites and message sizes, so that bytes given to
 * the wrong MPI_Irecv (a request handle reused by the other thread) show.
 *
 * Usage: threads ITERATIONS. Per iteration,
 *   thread 0: Irecv A 8 bytes + Isend 8, Wait, Wait;
 *             untagged Irecv 4 bytes + Isend A2 4, Testall until done
 *   thread 1: Irecv B 24 bytes + Isend 24, Waitall;
 *             Irecv C 16 bytes + Isend 16, Waitany twice;
 *             Irecv D 12 bytes + Isend 12, Test until done, Wait
 * Exits 77 when the MPI library does not provide MPI_THREAD_MULTIPLE.
 */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "mpp_abi.h"

enum {
	IRECV_A,
	ISEND_A,
	WAIT_A,
	ISEND_A2,
	TESTALL_A,
	IRECV_B,
	ISEND_B,
	WAITALL_B,
	IRECV_C,
	ISEND_C,
	WAITANY_C,
	IRECV_D,
	ISEND_D,
	TEST_D,
	WAIT_D,
	NSITES
};
static const char *const site_names[NSITES] = {
#define N(i, fn) [i] = "th.c:" #i ":1:" #fn
    N(IRECV_A, MPI_Irecv),  N(ISEND_A, MPI_Isend),     N(WAIT_A, MPI_Wait),
    N(ISEND_A2, MPI_Isend), N(TESTALL_A, MPI_Testall), N(IRECV_B, MPI_Irecv),
    N(ISEND_B, MPI_Isend),  N(WAITALL_B, MPI_Waitall), N(IRECV_C, MPI_Irecv),
    N(ISEND_C, MPI_Isend),  N(WAITANY_C, MPI_Waitany), N(IRECV_D, MPI_Irecv),
    N(ISEND_D, MPI_Isend),  N(TEST_D, MPI_Test),       N(WAIT_D, MPI_Wait),
#undef N
};
static struct __mpp_site sites[NSITES];
static struct __mpp_unit unit = {
    MPP_ABI_VERSION, "threads", "th.c",     NULL, 0, NULL, NULL,
    NSITES,          sites,     site_names, 0,
};

__attribute__((constructor)) static void reg(void)
{
	__mpp_register(&unit);
}

#define AT(i, fn) (__mpp_tag_push(&sites[i]), fn)

static int peer;
static long iters;

static void *thread0(void *arg)
{
	char in[64], out[64] = {0};
	MPI_Request r[2];
	int done;
	long i;

	(void)arg;
	for (i = 0; i < iters; i++) {
		AT(IRECV_A, MPI_Irecv)
		(in, 64, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &r[0]);
		AT(ISEND_A, MPI_Isend)
		(out, 8, MPI_CHAR, peer, 1, MPI_COMM_WORLD, &r[1]);
		AT(WAIT_A, MPI_Wait)(&r[0], MPI_STATUS_IGNORE);
		AT(WAIT_A, MPI_Wait)(&r[1], MPI_STATUS_IGNORE);

		MPI_Irecv(in, 64, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &r[0]);
		AT(ISEND_A2, MPI_Isend)
		(out, 4, MPI_CHAR, peer, 2, MPI_COMM_WORLD, &r[1]);
		for (done = 0; !done;)
			AT(TESTALL_A, MPI_Testall)
		(2, r, &done, MPI_STATUSES_IGNORE);
	}
	return NULL;
}

static void *thread1(void *arg)
{
	char in[64], out[64] = {0};
	MPI_Request r[2];
	MPI_Status st[2];
	int done, idx;
	long i;

	(void)arg;
	for (i = 0; i < iters; i++) {
		AT(IRECV_B, MPI_Irecv)
		(in, 64, MPI_CHAR, peer, 3, MPI_COMM_WORLD, &r[0]);
		AT(ISEND_B, MPI_Isend)
		(out, 24, MPI_CHAR, peer, 3, MPI_COMM_WORLD, &r[1]);
		AT(WAITALL_B, MPI_Waitall)(2, r, st);

		AT(IRECV_C, MPI_Irecv)
		(in, 64, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &r[0]);
		AT(ISEND_C, MPI_Isend)
		(out, 16, MPI_CHAR, peer, 4, MPI_COMM_WORLD, &r[1]);
		AT(WAITANY_C, MPI_Waitany)(2, r, &idx, MPI_STATUS_IGNORE);
		AT(WAITANY_C, MPI_Waitany)(2, r, &idx, &st[0]);

		AT(IRECV_D, MPI_Irecv)
		(in, 64, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &r[0]);
		AT(ISEND_D, MPI_Isend)
		(out, 12, MPI_CHAR, peer, 5, MPI_COMM_WORLD, &r[1]);
		for (done = 0; !done;)
			AT(TEST_D, MPI_Test)(&r[0], &done, MPI_STATUS_IGNORE);
		AT(WAIT_D, MPI_Wait)(&r[1], MPI_STATUS_IGNORE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int provided, rank, size;
	pthread_t t[2];

	MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (provided != MPI_THREAD_MULTIPLE) {
		if (rank == 0)
			printf("threads: no MPI_THREAD_MULTIPLE (%d)\n",
			       provided);
		MPI_Finalize();
		return 77;
	}
	if (argc != 2 || (iters = atol(argv[1])) <= 0 || size % 2) {
		fprintf(stderr,
			"usage: threads ITERATIONS (even number of ranks)\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	peer = rank ^ 1;
	if (pthread_create(&t[0], NULL, thread0, NULL) ||
	    pthread_create(&t[1], NULL, thread1, NULL)) {
		fprintf(stderr, "threads: pthread_create failed\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	MPI_Finalize();
	return 0;
}
