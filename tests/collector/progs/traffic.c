/*
 * traffic.c: an MPI program with known traffic, for the collector's tests.
 * It carries a hand-built instrumented unit (what mpipredict-instrument
 * would generate: a counter array, a site array, a struct __mpp_unit and a
 * constructor that registers it) and tags its MPI calls the way rewritten
 * code does, `(__mpp_tag_push(&site[i]), MPI_Send)(...)`.
 *
 * Usage: traffic SCENARIO... with scenarios
 *   p2p      blocking sends and receives (also untagged ones, a Bsend)
 *   nonblock Isend/Irecv completed by Wait, Waitall, Waitany, Testsome; Rsend
 *   sendrecv Sendrecv and Sendrecv_replace around a ring
 *   coll     every collective of the table, some in place, some nonblocking
 *   dtype    a MPI_Type_contiguous(5, MPI_INT) type in p2p and Bcast
 *   split    point-to-point and Allreduce on split communicators
 *   loops    counters and MPI calls whose trip counts depend on the rank
 *   levels   a fixed pattern for the cmp/socket/net split
 *   complete Irecvs completed by Testall, Testany and Waitsome
 *   inplace  Scatter, Scatterv, Gatherv (root 0), Allgatherv, Alltoall and
 *            Alltoallv with MPI_IN_PLACE
 *   exit     exit(3) before MPI_Finalize;  abort  MPI_Abort(.., 5)
 *   abort0   rank 0 calls MPI_Abort(.., 6), the others wait in MPI_Recv
 *            for a message that never comes (the launcher kills them)
 *   termR    rank R sends itself SIGTERM ("term1"), the others wait
 *   segvR    rank R writes through a null pointer, the others wait
 *   sleepN   sleep N seconds ("sleep2"), on the last rank only
 *   wait     a tagged MPI_Barrier (after sleepN: the others wait in it)
 *   ret7     rank 0 returns 7 from main after MPI_Finalize, the others 0
 *            (under OpenMPI, a rank that exits non-zero first makes
 *            mpirun kill the rest, rank 0 maybe inside its exit handler)
 * A first argument "thread" starts MPI with MPI_Init_thread(MULTIPLE).
 * Arguments after "--" are not scenarios (they only show in the row).
 * The expected counts per scenario are written out in the test scripts.
 * The point-to-point scenarios need an even number of ranks (at most 8).
 */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpp_abi.h"

enum {
	S_SEND,
	S_RECV,
	S_SSEND,
	S_RECV_IGN,
	S_BSEND,
	S_RECV_ANY,
	S_IRECV,
	S_ISEND,
	S_WAITALL,
	S_IRECV2,
	S_ISSEND,
	S_WAIT,
	S_IRECV3,
	S_ISEND3,
	S_WAITANY,
	S_IRECV4,
	S_RSEND,
	S_SENDRECV,
	S_REPLACE,
	S_BARRIER,
	S_BCAST,
	S_REDUCE,
	S_ALLREDUCE,
	S_SCAN,
	S_EXSCAN,
	S_SCATTER,
	S_SCATTERV,
	S_GATHER,
	S_GATHERV,
	S_ALLGATHER,
	S_ALLGATHERV,
	S_ALLTOALL,
	S_ALLTOALLV,
	S_REDSCAT,
	S_REDSCAT_BLOCK,
	S_ALLREDUCE_IP,
	S_ALLGATHER_IP,
	S_GATHER_IP,
	S_IALLREDUCE,
	S_IBCAST,
	S_IBARRIER,
	S_DT_SEND,
	S_DT_RECV,
	S_DT_BCAST,
	S_SP_SEND,
	S_SP_RECV,
	S_SP_ALLREDUCE,
	S_LOOP_SR,
	S_LV_RING,
	S_LV_PAIR_SEND,
	S_LV_PAIR_RECV,
	S_LV_FAR,
	S_LV_SPLIT_SEND,
	S_LV_SPLIT_RECV,
	S_LV_IRECV,
	S_LV_SEND,
	S_C_IRECV1,
	S_C_TESTALL,
	S_C_IRECV2,
	S_C_TESTANY,
	S_C_IRECV3,
	S_C_WAITSOME,
	S_IP_SCATTER,
	S_IP_SCATTERV,
	S_IP_GATHERV,
	S_IP_ALLGATHERV,
	S_IP_ALLTOALL,
	S_IP_ALLTOALLV,
	S_WT_BARRIER,
	NSITES
};

static const char *const site_names[NSITES] = {
#define N(i, fn) [i] = "t.c:" #i ":1:" #fn
    N(S_SEND, MPI_Send),
    N(S_RECV, MPI_Recv),
    N(S_SSEND, MPI_Ssend),
    N(S_RECV_IGN, MPI_Recv),
    N(S_BSEND, MPI_Bsend),
    N(S_RECV_ANY, MPI_Recv),
    N(S_IRECV, MPI_Irecv),
    N(S_ISEND, MPI_Isend),
    N(S_WAITALL, MPI_Waitall),
    N(S_IRECV2, MPI_Irecv),
    N(S_ISSEND, MPI_Issend),
    N(S_WAIT, MPI_Wait),
    N(S_IRECV3, MPI_Irecv),
    N(S_ISEND3, MPI_Isend),
    N(S_WAITANY, MPI_Waitany),
    N(S_IRECV4, MPI_Irecv),
    N(S_RSEND, MPI_Rsend),
    N(S_SENDRECV, MPI_Sendrecv),
    N(S_REPLACE, MPI_Sendrecv_replace),
    N(S_BARRIER, MPI_Barrier),
    N(S_BCAST, MPI_Bcast),
    N(S_REDUCE, MPI_Reduce),
    N(S_ALLREDUCE, MPI_Allreduce),
    N(S_SCAN, MPI_Scan),
    N(S_EXSCAN, MPI_Exscan),
    N(S_SCATTER, MPI_Scatter),
    N(S_SCATTERV, MPI_Scatterv),
    N(S_GATHER, MPI_Gather),
    N(S_GATHERV, MPI_Gatherv),
    N(S_ALLGATHER, MPI_Allgather),
    N(S_ALLGATHERV, MPI_Allgatherv),
    N(S_ALLTOALL, MPI_Alltoall),
    N(S_ALLTOALLV, MPI_Alltoallv),
    N(S_REDSCAT, MPI_Reduce_scatter),
    N(S_REDSCAT_BLOCK, MPI_Reduce_scatter_block),
    N(S_ALLREDUCE_IP, MPI_Allreduce),
    N(S_ALLGATHER_IP, MPI_Allgather),
    N(S_GATHER_IP, MPI_Gather),
    N(S_IALLREDUCE, MPI_Iallreduce),
    N(S_IBCAST, MPI_Ibcast),
    N(S_IBARRIER, MPI_Ibarrier),
    N(S_DT_SEND, MPI_Send),
    N(S_DT_RECV, MPI_Recv),
    N(S_DT_BCAST, MPI_Bcast),
    N(S_SP_SEND, MPI_Send),
    N(S_SP_RECV, MPI_Recv),
    N(S_SP_ALLREDUCE, MPI_Allreduce),
    N(S_LOOP_SR, MPI_Sendrecv),
    N(S_LV_RING, MPI_Sendrecv),
    N(S_LV_PAIR_SEND, MPI_Send),
    N(S_LV_PAIR_RECV, MPI_Recv),
    N(S_LV_FAR, MPI_Sendrecv),
    N(S_LV_SPLIT_SEND, MPI_Send),
    N(S_LV_SPLIT_RECV, MPI_Recv),
    N(S_LV_IRECV, MPI_Irecv),
    N(S_LV_SEND, MPI_Send),
    N(S_WT_BARRIER, MPI_Barrier),
    N(S_C_IRECV1, MPI_Irecv),
    N(S_C_TESTALL, MPI_Testall),
    N(S_C_IRECV2, MPI_Irecv),
    N(S_C_TESTANY, MPI_Testany),
    N(S_C_IRECV3, MPI_Irecv),
    N(S_C_WAITSOME, MPI_Waitsome),
    N(S_IP_SCATTER, MPI_Scatter),
    N(S_IP_SCATTERV, MPI_Scatterv),
    N(S_IP_GATHERV, MPI_Gatherv),
    N(S_IP_ALLGATHERV, MPI_Allgatherv),
    N(S_IP_ALLTOALL, MPI_Alltoall),
    N(S_IP_ALLTOALLV, MPI_Alltoallv),
#undef N
};

enum { C_LOOP, C_THEN, C_ELSE, NCOUNTERS };
static const char *const counter_names[NCOUNTERS] = {
    "loop:t.c:200:5",
    "then:t.c:201:9",
    "else:t.c:201:9",
};

static unsigned long long counters[NCOUNTERS];
static struct __mpp_site sites[NSITES];
static struct __mpp_unit unit = {
    MPP_ABI_VERSION,
    "0123456789abcdef",
    "t.c",
    NULL,
    NCOUNTERS,
    counters,
    counter_names,
    NSITES,
    sites,
    site_names,
    0,
};

__attribute__((constructor)) static void reg(void)
{
	__mpp_register(&unit);
	__mpp_register(&unit); /* twice is harmless */
}

/* Tag the next MPI call, as rewritten code does. */
#define AT(i, fn) (__mpp_tag_push(&sites[i]), fn)

static int rank, size, peer;

static void need_pairs(void)
{
	if (size % 2 || size > 8) {
		fprintf(stderr,
			"traffic: needs an even number of ranks, at most 8\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

static void p2p(void)
{
	int buf[100] = {0};
	double d[3] = {1, 2, 3};
	char c = 'x', bsend[256 + MPI_BSEND_OVERHEAD];
	void *old;
	int oldsize;

	if (rank % 2 == 0) {
		AT(S_SEND, MPI_Send)(buf, 10, MPI_INT, peer, 1, MPI_COMM_WORLD);
		AT(S_RECV_IGN, MPI_Recv)
		(d, 3, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		MPI_Send(&c, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD);
		MPI_Buffer_attach(bsend, sizeof bsend);
		AT(S_BSEND, MPI_Bsend)
		(buf, 5, MPI_INT, peer, 4, MPI_COMM_WORLD);
		MPI_Buffer_detach(&old, &oldsize);
	} else {
		MPI_Status st;

		AT(S_RECV, MPI_Recv)
		(buf, 100, MPI_INT, peer, 1, MPI_COMM_WORLD, &st);
		AT(S_SSEND, MPI_Ssend)
		(d, 3, MPI_DOUBLE, peer, 2, MPI_COMM_WORLD);
		MPI_Recv(&c, 1, MPI_CHAR, peer, 3, MPI_COMM_WORLD,
			 MPI_STATUS_IGNORE);
		AT(S_RECV_ANY, MPI_Recv)
		(buf, 100, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
	}
}

static void nonblock(void)
{
	int in[16], out[16] = {0}, in2[2], out2[2] = {0}, in3[4], out3[4] = {0};
	int one = 1, got = 0, idx, outcount, done = 0, idxs[2];
	char cin[7], cout[7] = "abcdef";
	MPI_Request r[2], r3[2];
	MPI_Status st[2];

	/* Irecv + Isend (rank-dependent size) completed by Waitall. */
	AT(S_IRECV, MPI_Irecv)
	(in, 16, MPI_INT, peer, 10, MPI_COMM_WORLD, &r[0]);
	AT(S_ISEND, MPI_Isend)
	(out, rank + 1, MPI_INT, peer, 10, MPI_COMM_WORLD, &r[1]);
	AT(S_WAITALL, MPI_Waitall)(2, r, st);

	/* Irecv + Issend completed by Wait, statuses ignored. */
	AT(S_IRECV2, MPI_Irecv)
	(in2, 2, MPI_INT, peer, 11, MPI_COMM_WORLD, &r[0]);
	AT(S_ISSEND, MPI_Issend)
	(out2, 2, MPI_INT, peer, 11, MPI_COMM_WORLD, &r[1]);
	AT(S_WAIT, MPI_Wait)(&r[0], MPI_STATUS_IGNORE);
	AT(S_WAIT, MPI_Wait)(&r[1], MPI_STATUS_IGNORE);

	/* Two Irecvs from one site (1 and 3 ints) completed by Waitany and
	 * Testsome. */
	AT(S_IRECV3, MPI_Irecv)
	(in3, 4, MPI_INT, peer, 12, MPI_COMM_WORLD, &r3[0]);
	AT(S_IRECV3, MPI_Irecv)
	(in3 + 1, 3, MPI_INT, peer, 13, MPI_COMM_WORLD, &r3[1]);
	AT(S_ISEND3, MPI_Isend)
	(out3, 1, MPI_INT, peer, 12, MPI_COMM_WORLD, &r[0]);
	AT(S_ISEND3, MPI_Isend)
	(out3, 3, MPI_INT, peer, 13, MPI_COMM_WORLD, &r[1]);
	AT(S_WAITANY, MPI_Waitany)(2, r3, &idx, MPI_STATUS_IGNORE);
	while (!done) {
		MPI_Testsome(2, r3, &outcount, idxs, MPI_STATUSES_IGNORE);
		done = outcount == MPI_UNDEFINED;
	}
	MPI_Waitall(2, r, MPI_STATUSES_IGNORE);

	/* Rsend: the receive is posted before the barrier. Test loop. */
	AT(S_IRECV4, MPI_Irecv)
	(&got, 1, MPI_INT, peer, 14, MPI_COMM_WORLD, &r[0]);
	MPI_Barrier(MPI_COMM_WORLD);
	AT(S_RSEND, MPI_Rsend)(&one, 1, MPI_INT, peer, 14, MPI_COMM_WORLD);
	for (done = 0; !done;)
		MPI_Test(&r[0], &done, MPI_STATUS_IGNORE);

	/* Untagged Irecv of 7 chars. */
	MPI_Irecv(cin, 7, MPI_CHAR, peer, 15, MPI_COMM_WORLD, &r[0]);
	MPI_Send(cout, 7, MPI_CHAR, peer, 15, MPI_COMM_WORLD);
	MPI_Waitall(1, r, MPI_STATUSES_IGNORE);
}

static void sendrecv(void)
{
	double out[8] = {0}, in[8];
	int rep[2] = {0};
	int right = (rank + 1) % size, left = (rank + size - 1) % size;

	AT(S_SENDRECV, MPI_Sendrecv)
	(out, rank + 1, MPI_DOUBLE, right, 20, in, 8, MPI_DOUBLE, left, 20,
	 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	AT(S_REPLACE, MPI_Sendrecv_replace)
	(rep, 2, MPI_INT, right, 21, left, 21, MPI_COMM_WORLD,
	 MPI_STATUS_IGNORE);
}

static void coll(void)
{
	int a[64] = {0}, b[64] = {0}, sc[8], rc[8], dis[8], i, total = 0;
	MPI_Request r[3];

	for (i = 0; i < size; i++) {
		sc[i] = i + 1;
		dis[i] = total;
		total += i + 1;
	}
	AT(S_BARRIER, MPI_Barrier)(MPI_COMM_WORLD);
	AT(S_BCAST, MPI_Bcast)(a, 10, MPI_INT, 0, MPI_COMM_WORLD);
	AT(S_REDUCE, MPI_Reduce)(a, b, 5, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
	AT(S_ALLREDUCE, MPI_Allreduce)
	(a, b, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	AT(S_SCAN, MPI_Scan)(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	AT(S_EXSCAN, MPI_Exscan)(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	/* Root 1; the send arguments mean nothing elsewhere (made invalid). */
	AT(S_SCATTER, MPI_Scatter)
	(a, rank == 1 ? 2 : -7, rank == 1 ? MPI_INT : MPI_DATATYPE_NULL, b, 2,
	 MPI_INT, 1, MPI_COMM_WORLD);
	AT(S_SCATTERV, MPI_Scatterv)
	(a, sc, dis, MPI_INT, b, rank + 1, MPI_INT, 0, MPI_COMM_WORLD);
	AT(S_GATHER, MPI_Gather)
	(a, 3, MPI_INT, b, rank == 0 ? 3 : -7,
	 rank == 0 ? MPI_INT : MPI_DATATYPE_NULL, 0, MPI_COMM_WORLD);
	AT(S_GATHERV, MPI_Gatherv)
	(a, rank + 1, MPI_INT, b, rank == 0 ? sc : NULL, dis, MPI_INT, 0,
	 MPI_COMM_WORLD);
	AT(S_ALLGATHER, MPI_Allgather)
	(a, 2, MPI_INT, b, 2, MPI_INT, MPI_COMM_WORLD);
	AT(S_ALLGATHERV, MPI_Allgatherv)
	(a, rank + 1, MPI_INT, b, sc, dis, MPI_INT, MPI_COMM_WORLD);
	AT(S_ALLTOALL, MPI_Alltoall)
	(a, 1, MPI_INT, b, 1, MPI_INT, MPI_COMM_WORLD);
	for (i = 0; i < size; i++)
		rc[i] = rank + 1;
	{
		int sd[8], rd[8];

		for (i = 0; i < size; i++) {
			sd[i] = i == 0 ? 0 : sd[i - 1] + sc[i - 1];
			rd[i] = i * (rank + 1);
		}
		AT(S_ALLTOALLV, MPI_Alltoallv)
		(a, sc, sd, MPI_INT, b, rc, rd, MPI_INT, MPI_COMM_WORLD);
	}
	AT(S_REDSCAT, MPI_Reduce_scatter)
	(a, b, sc, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	AT(S_REDSCAT_BLOCK, MPI_Reduce_scatter_block)
	(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	AT(S_ALLREDUCE_IP, MPI_Allreduce)
	(MPI_IN_PLACE, b, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < 2 * size; i++)
		b[i] = i;
	AT(S_ALLGATHER_IP, MPI_Allgather)
	(MPI_IN_PLACE, -7, MPI_DATATYPE_NULL, b, 2, MPI_INT, MPI_COMM_WORLD);
	AT(S_GATHER_IP, MPI_Gather)
	(rank == 0 ? MPI_IN_PLACE : a, 3, MPI_INT, b, 3, MPI_INT, 0,
	 MPI_COMM_WORLD);
	AT(S_IALLREDUCE, MPI_Iallreduce)
	(a, b, 4, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
	AT(S_IBCAST, MPI_Ibcast)(a + 8, 1, MPI_INT, 0, MPI_COMM_WORLD, &r[1]);
	AT(S_IBARRIER, MPI_Ibarrier)(MPI_COMM_WORLD, &r[2]);
	MPI_Waitall(3, r, MPI_STATUSES_IGNORE);
}

static void dtype(void)
{
	MPI_Datatype five;
	int buf[50] = {0};

	MPI_Type_contiguous(5, MPI_INT, &five);
	MPI_Type_commit(&five);
	if (rank % 2 == 0)
		AT(S_DT_SEND, MPI_Send)(buf, 3, five, peer, 30, MPI_COMM_WORLD);
	else
		AT(S_DT_RECV, MPI_Recv)
	(buf, 10, five, peer, 30, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	AT(S_DT_BCAST, MPI_Bcast)(buf, 2, five, 0, MPI_COMM_WORLD);
	MPI_Type_free(&five);
}

/* Sub-rank 0 sends n bytes to sub-rank 1 of a communicator in which the
 * ranks are reversed, so that sub-ranks differ from world ranks. */
static void split_send(int send_site, int recv_site, int n)
{
	MPI_Comm rev;
	char buf[1000] = {0};
	int sr;

	MPI_Comm_split(MPI_COMM_WORLD, 0, size - rank, &rev);
	MPI_Comm_rank(rev, &sr);
	if (sr == 0)
		AT(send_site, MPI_Send)(buf, n, MPI_CHAR, 1, 40, rev);
	else if (sr == 1)
		AT(recv_site, MPI_Recv)
	(buf, n, MPI_CHAR, 0, 40, rev, MPI_STATUS_IGNORE);
	MPI_Comm_free(&rev);
}

static void split(void)
{
	MPI_Comm half;
	int x = rank, y;

	split_send(S_SP_SEND, S_SP_RECV, 100);
	MPI_Comm_split(MPI_COMM_WORLD, rank % 2, rank, &half);
	AT(S_SP_ALLREDUCE, MPI_Allreduce)(&x, &y, 1, MPI_INT, MPI_MAX, half);
	MPI_Comm_free(&half);
}

static void loops(void)
{
	int i, v = 0, w;

	for (i = 0; i < 10 * (rank + 1); i++) {
		counters[C_LOOP]++;
		if (i % 3 == 0)
			counters[C_THEN]++;
		else
			counters[C_ELSE]++;
	}
	for (i = 0; i <= rank; i++)
		AT(S_LOOP_SR, MPI_Sendrecv)
	(&v, 1, MPI_INT, rank, 50, &w, 1, MPI_INT, rank, 50, MPI_COMM_WORLD,
	 MPI_STATUS_IGNORE);
}

static void levels(void)
{
	char out[2000] = {0}, in[2000];
	int right = (rank + 1) % size, left = (rank + size - 1) % size;
	MPI_Request r;

	AT(S_LV_RING, MPI_Sendrecv)
	(out, 100, MPI_BYTE, right, 60, in, 100, MPI_BYTE, left, 60,
	 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (rank % 2 == 0)
		AT(S_LV_PAIR_SEND, MPI_Send)
	(out, 10, MPI_BYTE, peer, 61, MPI_COMM_WORLD);
	else AT(S_LV_PAIR_RECV, MPI_Recv)(in, 10, MPI_BYTE, peer, 61,
					  MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	AT(S_LV_FAR, MPI_Sendrecv)
	(out, 50, MPI_BYTE, (rank + 2) % size, 62, in, 50, MPI_BYTE,
	 (rank + size - 2) % size, 62, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	split_send(S_LV_SPLIT_SEND, S_LV_SPLIT_RECV, 1000);
	AT(S_LV_IRECV, MPI_Irecv)
	(in, 2000, MPI_BYTE, peer, 63, MPI_COMM_WORLD, &r);
	AT(S_LV_SEND, MPI_Send)(out, 2000, MPI_BYTE, peer, 63, MPI_COMM_WORLD);
	MPI_Wait(&r, MPI_STATUS_IGNORE);
}

/* Irecvs from the partner completed by the other completion calls: 1 and 2
 * ints by Testall, 3 by Testany (beside an inactive request), 1, 2 and 4 by
 * Waitsome. The sends are small enough to be buffered. */
static void complete(void)
{
	int in[16], out[8] = {0}, flag, idx, outcount, idxs[3], done;
	MPI_Request r[3];
	MPI_Status st[3];

	AT(S_C_IRECV1, MPI_Irecv)
	(in, 8, MPI_INT, peer, 70, MPI_COMM_WORLD, &r[0]);
	AT(S_C_IRECV1, MPI_Irecv)
	(in + 8, 8, MPI_INT, peer, 71, MPI_COMM_WORLD, &r[1]);
	MPI_Send(out, 1, MPI_INT, peer, 70, MPI_COMM_WORLD);
	MPI_Send(out, 2, MPI_INT, peer, 71, MPI_COMM_WORLD);
	for (flag = 0; !flag;)
		AT(S_C_TESTALL, MPI_Testall)(2, r, &flag, MPI_STATUSES_IGNORE);

	r[0] = MPI_REQUEST_NULL;
	AT(S_C_IRECV2, MPI_Irecv)
	(in, 8, MPI_INT, peer, 72, MPI_COMM_WORLD, &r[1]);
	MPI_Send(out, 3, MPI_INT, peer, 72, MPI_COMM_WORLD);
	for (flag = 0; !flag;)
		AT(S_C_TESTANY, MPI_Testany)
	(2, r, &idx, &flag, MPI_STATUS_IGNORE);

	AT(S_C_IRECV3, MPI_Irecv)
	(in, 1, MPI_INT, peer, 73, MPI_COMM_WORLD, &r[0]);
	AT(S_C_IRECV3, MPI_Irecv)
	(in + 1, 2, MPI_INT, peer, 74, MPI_COMM_WORLD, &r[1]);
	AT(S_C_IRECV3, MPI_Irecv)
	(in + 3, 4, MPI_INT, peer, 75, MPI_COMM_WORLD, &r[2]);
	MPI_Send(out, 1, MPI_INT, peer, 73, MPI_COMM_WORLD);
	MPI_Send(out, 2, MPI_INT, peer, 74, MPI_COMM_WORLD);
	MPI_Send(out, 4, MPI_INT, peer, 75, MPI_COMM_WORLD);
	for (done = 0; done < 3; done += outcount)
		AT(S_C_WAITSOME, MPI_Waitsome)(3, r, &outcount, idxs, st);
}

/* Collectives with MPI_IN_PLACE; ints, root 0, count i+1 for rank i in the
 * v variants, and c(i,j) = i+j+1 ints between ranks i and j in Alltoallv
 * (in place, the counts must be symmetric). */
static void inplace(void)
{
	int a[64] = {0}, b[64] = {0}, c[8], d[8], i, total = 0;

	for (i = 0; i < size; i++) {
		c[i] = i + 1;
		d[i] = total;
		total += i + 1;
	}
	AT(S_IP_SCATTER, MPI_Scatter)
	(a, 2, MPI_INT, rank == 0 ? MPI_IN_PLACE : b, 2, MPI_INT, 0,
	 MPI_COMM_WORLD);
	AT(S_IP_SCATTERV, MPI_Scatterv)
	(a, c, d, MPI_INT, rank == 0 ? MPI_IN_PLACE : b, rank + 1, MPI_INT, 0,
	 MPI_COMM_WORLD);
	AT(S_IP_GATHERV, MPI_Gatherv)
	(rank == 0 ? MPI_IN_PLACE : a, rank + 1, MPI_INT, b, c, d, MPI_INT, 0,
	 MPI_COMM_WORLD);
	AT(S_IP_ALLGATHERV, MPI_Allgatherv)
	(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, c, d, MPI_INT, MPI_COMM_WORLD);
	AT(S_IP_ALLTOALL, MPI_Alltoall)
	(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, b, 1, MPI_INT, MPI_COMM_WORLD);
	for (i = total = 0; i < size; i++) {
		c[i] = rank + i + 1;
		d[i] = total;
		total += c[i];
	}
	AT(S_IP_ALLTOALLV, MPI_Alltoallv)
	(MPI_IN_PLACE, NULL, NULL, MPI_DATATYPE_NULL, b, c, d, MPI_INT,
	 MPI_COMM_WORLD);
}

/* Rank `who` ends the run (how: 'a' MPI_Abort, 't' SIGTERM to itself, 's'
 * a segmentation fault, which UBSan must not stop first under SANITIZE=1);
 * the others wait for a message that never comes. */
__attribute__((no_sanitize("undefined"))) static void die_on_one_rank(int how,
								      int who)
{
	static volatile int *volatile nowhere;
	int x;

	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == who && how == 'a')
		MPI_Abort(MPI_COMM_WORLD, 6);
	if (rank == who && how == 't')
		raise(SIGTERM);
	if (rank == who && how == 's')
		*nowhere = 1;
	MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD,
		 MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
	int i, provided, ret = 0;

	if (argc > 1 && !strcmp(argv[1], "thread"))
		MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
	else
		MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	peer = rank ^ 1;
	for (i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (!strcmp(s, "thread"))
			continue;
		if (!strcmp(s, "--"))
			break;
		if (!strcmp(s, "ret7"))
			ret = rank == 0 ? 7 : 0;
		else if (!strcmp(s, "p2p"))
			need_pairs(), p2p();
		else if (!strcmp(s, "nonblock"))
			need_pairs(), nonblock();
		else if (!strcmp(s, "sendrecv"))
			need_pairs(), sendrecv();
		else if (!strcmp(s, "coll"))
			need_pairs(), coll();
		else if (!strcmp(s, "dtype"))
			need_pairs(), dtype();
		else if (!strcmp(s, "split"))
			need_pairs(), split();
		else if (!strcmp(s, "loops"))
			loops();
		else if (!strcmp(s, "complete"))
			need_pairs(), complete();
		else if (!strcmp(s, "inplace"))
			need_pairs(), inplace();
		else if (!strcmp(s, "levels"))
			need_pairs(), levels();
		else if (!strcmp(s, "exit"))
			exit(3);
		else if (!strcmp(s, "abort"))
			MPI_Abort(MPI_COMM_WORLD, 5);
		else if (!strcmp(s, "abort0"))
			die_on_one_rank('a', 0);
		else if (!strncmp(s, "term", 4) || !strncmp(s, "segv", 4))
			die_on_one_rank(s[0], atoi(s + 4));
		else if (!strcmp(s, "wait"))
			AT(S_WT_BARRIER, MPI_Barrier)(MPI_COMM_WORLD);
		else if (!strncmp(s, "sleep", 5)) {
			if (rank == size - 1)
				sleep((unsigned)atoi(s + 5));
		} else {
			fprintf(stderr, "traffic: unknown scenario %s\n", s);
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
	}
	MPI_Finalize();
	return ret;
}
