/*
 * families.c: an MPI program with known traffic in the call families added
 * after the first table (persistent point-to-point, the remaining
 * nonblocking collectives, neighbourhood collectives, one-sided, MPI-IO),
 * for tests/collector/t-mpi-families.sh. Like traffic.c it carries a
 * hand-built instrumented unit and tags its calls as rewritten code does.
 * Works at any number of ranks (1 included): peers are the ring neighbours.
 *
 * Usage: families SCENARIO... with scenarios persist, icoll, neighbor, rma,
 * io. The expected counts are worked out in the test script.
 * Not for: the families of traffic.c (blocking point-to-point, the first
 * collectives), which t-p2p-traffic.sh and t-collective-traffic.sh test.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpp_abi.h"

#define SITES(X)                                                               \
	X(S_SEND_INIT, MPI_Send_init)                                          \
	X(S_RECV_INIT, MPI_Recv_init)                                          \
	X(S_SSEND_INIT, MPI_Ssend_init)                                        \
	X(S_NULL_INIT, MPI_Send_init)                                          \
	X(S_STARTALL, MPI_Startall)                                            \
	X(S_START_R, MPI_Start)                                                \
	X(S_START_S, MPI_Start)                                                \
	X(S_ISCAN, MPI_Iscan)                                                  \
	X(S_IEXSCAN, MPI_Iexscan)                                              \
	X(S_ISCATTER, MPI_Iscatter)                                            \
	X(S_IGATHER, MPI_Igather)                                              \
	X(S_ISCATTERV, MPI_Iscatterv)                                          \
	X(S_IGATHERV, MPI_Igatherv)                                            \
	X(S_IALLGATHERV, MPI_Iallgatherv)                                      \
	X(S_IALLTOALLV, MPI_Ialltoallv)                                        \
	X(S_IREDSCAT, MPI_Ireduce_scatter)                                     \
	X(S_IREDSCAT_BLOCK, MPI_Ireduce_scatter_block)                         \
	X(S_NB_ALLGATHER, MPI_Neighbor_allgather)                              \
	X(S_NB_ALLTOALL, MPI_Neighbor_alltoall)                                \
	X(S_NB_ALLTOALLV, MPI_Neighbor_alltoallv)                              \
	X(S_INB_ALLGATHERV, MPI_Ineighbor_allgatherv)                          \
	X(S_INB_ALLTOALLW, MPI_Ineighbor_alltoallw)                            \
	X(S_FENCE, MPI_Win_fence)                                              \
	X(S_PUT, MPI_Put)                                                      \
	X(S_GET, MPI_Get)                                                      \
	X(S_ACC, MPI_Accumulate)                                               \
	X(S_GACC, MPI_Get_accumulate)                                          \
	X(S_FOP, MPI_Fetch_and_op)                                             \
	X(S_CAS, MPI_Compare_and_swap)                                         \
	X(S_RPUT, MPI_Rput)                                                    \
	X(S_RGET, MPI_Rget)                                                    \
	X(S_RACC, MPI_Raccumulate)                                             \
	X(S_RGACC, MPI_Rget_accumulate)                                        \
	X(S_PUT_NULL, MPI_Put)                                                 \
	X(S_FOPEN, MPI_File_open)                                              \
	X(S_FWRITE_AT, MPI_File_write_at)                                      \
	X(S_FWRITE_AT_ALL, MPI_File_write_at_all)                              \
	X(S_FREAD_AT, MPI_File_read_at)                                        \
	X(S_FREAD_EOF, MPI_File_read_at)                                       \
	X(S_FIWRITE_AT, MPI_File_iwrite_at)                                    \
	X(S_FIREAD_AT, MPI_File_iread_at)                                      \
	X(S_FREAD_ALL, MPI_File_read_all)                                      \
	X(S_FWRITE, MPI_File_write)                                            \
	X(S_FCLOSE, MPI_File_close)

enum {
#define E(i, fn) i,
	SITES(E)
#undef E
	    NSITES
};

static const char *const site_names[NSITES] = {
#define N(i, fn) [i] = "f.c:" #i ":1:" #fn,
    SITES(N)
#undef N
};

static struct __mpp_site sites[NSITES];
static struct __mpp_unit unit = {
    MPP_ABI_VERSION, "fedcba9876543210", "f.c", NULL, 0, NULL, NULL, NSITES,
    sites,           site_names,         0,
};

__attribute__((constructor)) static void reg(void)
{
	__mpp_register(&unit);
}

/* Tag the next MPI call, as rewritten code does. */
#define AT(i, fn) (__mpp_tag_push(&sites[i]), fn)

static int rank, size, right, left;

/* Send_init (r+1 ints to the right) and Recv_init (from the left) started
 * three times by Startall and twice by Start; an untagged Ssend_init of 2
 * doubles with an untagged Recv_init, started twice by an untagged
 * Startall; a Send_init to MPI_PROC_NULL started once. */
static void persist(void)
{
	int sbuf[16] = {0}, rbuf[16], i;
	double ds[2] = {1, 2}, dr[2];
	MPI_Request rq[2], rq2[2], rnull;

	AT(S_SEND_INIT, MPI_Send_init)
	(sbuf, rank + 1, MPI_INT, right, 1, MPI_COMM_WORLD, &rq[1]);
	AT(S_RECV_INIT, MPI_Recv_init)
	(rbuf, 16, MPI_INT, left, 1, MPI_COMM_WORLD, &rq[0]);
	for (i = 0; i < 3; i++) {
		AT(S_STARTALL, MPI_Startall)(2, rq);
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
	}
	for (i = 0; i < 2; i++) {
		AT(S_START_R, MPI_Start)(&rq[0]);
		AT(S_START_S, MPI_Start)(&rq[1]);
		MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
		MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	}
	MPI_Request_free(&rq[0]);
	MPI_Request_free(&rq[1]);

	MPI_Recv_init(dr, 2, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &rq2[0]);
	MPI_Ssend_init(ds, 2, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &rq2[1]);
	for (i = 0; i < 2; i++) {
		MPI_Startall(2, rq2);
		MPI_Waitall(2, rq2, MPI_STATUSES_IGNORE);
	}
	MPI_Request_free(&rq2[0]);
	MPI_Request_free(&rq2[1]);

	AT(S_NULL_INIT, MPI_Send_init)
	(sbuf, 4, MPI_INT, MPI_PROC_NULL, 3, MPI_COMM_WORLD, &rnull);
	MPI_Start(&rnull);
	MPI_Wait(&rnull, MPI_STATUS_IGNORE);
	MPI_Request_free(&rnull);
}

/* The nonblocking collectives traffic.c does not call, root 0. */
static void icoll(void)
{
	int *a = calloc(64, sizeof *a), *b = calloc(64, sizeof *b);
	int *cnt = malloc((size_t)size * sizeof *cnt);
	int *one = malloc((size_t)size * sizeof *one);
	int *dis = malloc((size_t)size * sizeof *dis);
	double d[2] = {1, 2}, e[2];
	MPI_Request rq[10];
	int i, k = 0;

	for (i = 0; i < size; i++) {
		cnt[i] = i + 1;
		one[i] = 1;
		dis[i] = i * (i + 1) / 2;
	}
	/* a and b hold 64 ints; size is at most 8, so sum(i + 1) <= 36. */
	AT(S_ISCAN, MPI_Iscan)
	(a, b, 3, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k++]);
	AT(S_IEXSCAN, MPI_Iexscan)
	(d, e, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &rq[k++]);
	MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
	k = 0;
	AT(S_ISCATTER, MPI_Iscatter)
	(a, 2, MPI_INT, b, 2, MPI_INT, 0, MPI_COMM_WORLD, &rq[k++]);
	MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
	k = 0;
	AT(S_IGATHER, MPI_Igather)
	(a, 3, MPI_INT, b, 3, MPI_INT, 0, MPI_COMM_WORLD, &rq[k++]);
	MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
	k = 0;
	AT(S_ISCATTERV, MPI_Iscatterv)
	(a, cnt, dis, MPI_INT, b, rank + 1, MPI_INT, 0, MPI_COMM_WORLD,
	 &rq[k++]);
	MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
	k = 0;
	AT(S_IGATHERV, MPI_Igatherv)
	(a, rank + 1, MPI_INT, b, cnt, dis, MPI_INT, 0, MPI_COMM_WORLD,
	 &rq[k++]);
	MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
	k = 0;
	AT(S_IALLGATHERV, MPI_Iallgatherv)
	(a, rank + 1, MPI_INT, b, cnt, dis, MPI_INT, MPI_COMM_WORLD, &rq[k++]);
	MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
	k = 0;
	for (i = 0; i < size; i++)
		dis[i] = i;
	AT(S_IALLTOALLV, MPI_Ialltoallv)
	(a, one, dis, MPI_INT, b, one, dis, MPI_INT, MPI_COMM_WORLD, &rq[k++]);
	MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
	k = 0;
	AT(S_IREDSCAT, MPI_Ireduce_scatter)
	(a, b, cnt, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k++]);
	MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
	k = 0;
	AT(S_IREDSCAT_BLOCK, MPI_Ireduce_scatter_block)
	(a, b, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rq[k++]);
	MPI_Waitall(k, rq, MPI_STATUSES_IGNORE);
	free(a);
	free(b);
	free(cnt);
	free(one);
	free(dis);
}

/* A line and a periodic ring (MPI_Cart_create) and a distributed graph
 * ring (each rank: one weighted edge to the right). */
static void neighbor(void)
{
	int dims[1], per[1] = {0}, s[16] = {0}, r[32], src[1], dst[1],
		     wgt[1] = {1};
	int sc[2] = {1, 1}, rc2[2], dis[2] = {0, 8}, sc1[1], rc1[1],
	    d0[1] = {0};
	MPI_Aint wd[2] = {0, 8};
	MPI_Datatype wt[2] = {MPI_INT, MPI_DOUBLE},
		     rt[2] = {MPI_DOUBLE, MPI_INT};
	double wbuf[4] = {0}, wr[4];
	MPI_Comm line, ring, graph;
	MPI_Request rq[2];

	dims[0] = size;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &line);
	per[0] = 1;
	MPI_Cart_create(MPI_COMM_WORLD, 1, dims, per, 0, &ring);
	src[0] = left;
	dst[0] = right;
	MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, src, wgt, 1, dst, wgt,
				       MPI_INFO_NULL, 0, &graph);
	AT(S_NB_ALLGATHER, MPI_Neighbor_allgather)
	(s, 2, MPI_INT, r, 2, MPI_INT, line);
	AT(S_NB_ALLTOALL, MPI_Neighbor_alltoall)
	(s, 3, MPI_INT, r, 3, MPI_INT, ring);
	sc1[0] = rank + 1;
	rc1[0] = left + 1;
	AT(S_NB_ALLTOALLV, MPI_Neighbor_alltoallv)
	(s, sc1, d0, MPI_INT, r, rc1, d0, MPI_INT, graph);
	/* On the line (unambiguous blocks even at 2 ranks): rank r sends
	 * r + 1 ints to both sides; block 0 goes to the left, so what comes
	 * from the left is the left rank's block 1. */
	rc2[0] = rank;
	rc2[1] = rank + 2;
	AT(S_INB_ALLGATHERV, MPI_Ineighbor_allgatherv)
	(s, rank + 1, MPI_INT, r, rc2, dis, MPI_INT, line, &rq[0]);
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	AT(S_INB_ALLTOALLW, MPI_Ineighbor_alltoallw)
	(wbuf, sc, wd, wt, wr, sc, wd, rt, line, &rq[1]);
	MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
	MPI_Comm_free(&line);
	MPI_Comm_free(&ring);
	MPI_Comm_free(&graph);
}

/* A window on a communicator with the ranks reversed; each rank targets
 * window rank (its window rank + 1) mod size, world rank
 * size - 1 - that. */
static void rma(void)
{
	int *base, buf[8] = {1, 2, 3, 4, 5, 6, 7, 8}, res[8], cmp = 0, t, wr;
	MPI_Comm rev;
	MPI_Win win;
	MPI_Request rq[4];

	MPI_Comm_split(MPI_COMM_WORLD, 0, size - 1 - rank, &rev);
	MPI_Comm_rank(rev, &wr);
	t = (wr + 1) % size;
	/* MPI_Win_allocate: OpenMPI 4.1 here has no one-sided component for
	 * MPI_Win_create on a single rank. */
	MPI_Win_allocate(64 * sizeof *base, sizeof *base, MPI_INFO_NULL, rev,
			 &base, &win);
	memset(base, 0, 64 * sizeof *base);
	AT(S_FENCE, MPI_Win_fence)(0, win);
	AT(S_PUT, MPI_Put)(buf, 4, MPI_INT, t, 0, 4, MPI_INT, win);
	AT(S_GET, MPI_Get)(res, 2, MPI_INT, t, 8, 2, MPI_INT, win);
	AT(S_ACC, MPI_Accumulate)
	(buf, 5, MPI_INT, t, 16, 5, MPI_INT, MPI_SUM, win);
	AT(S_PUT_NULL, MPI_Put)
	(buf, 4, MPI_INT, MPI_PROC_NULL, 0, 4, MPI_INT, win);
	AT(S_FENCE, MPI_Win_fence)(0, win);
	AT(S_GACC, MPI_Get_accumulate)
	(buf, 1, MPI_INT, res, 1, MPI_INT, t, 24, 1, MPI_INT, MPI_SUM, win);
	AT(S_FENCE, MPI_Win_fence)(0, win);
	AT(S_FOP, MPI_Fetch_and_op)(buf, res, MPI_INT, t, 25, MPI_SUM, win);
	AT(S_FENCE, MPI_Win_fence)(0, win);
	AT(S_CAS, MPI_Compare_and_swap)(buf, &cmp, res, MPI_INT, t, 26, win);
	AT(S_FENCE, MPI_Win_fence)(0, win);
	MPI_Win_lock_all(0, win);
	AT(S_RPUT, MPI_Rput)(buf, 2, MPI_INT, t, 32, 2, MPI_INT, win, &rq[0]);
	AT(S_RGET, MPI_Rget)(res, 3, MPI_INT, t, 40, 3, MPI_INT, win, &rq[1]);
	AT(S_RACC, MPI_Raccumulate)
	(buf, 1, MPI_INT, t, 48, 1, MPI_INT, MPI_SUM, win, &rq[2]);
	AT(S_RGACC, MPI_Rget_accumulate)
	(NULL, 0, MPI_INT, res + 4, 2, MPI_INT, t, 50, 2, MPI_INT, MPI_NO_OP,
	 win, &rq[3]);
	MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
	MPI_Win_unlock_all(win);
	MPI_Win_free(&win);
	MPI_Comm_free(&rev);
}

/* One shared file, written and read at per-rank offsets: 64 bytes at
 * r * 64 and 32 bytes at n * 64 + r * 32 (collective); read back 64 bytes,
 * then 100 ints from 8 bytes before the end (8 bytes come back); 16 bytes
 * written and read nonblocking; 64 bytes read collectively through a view;
 * a 0-int write. */
static void io(const char *path)
{
	MPI_File fh;
	MPI_Status st;
	MPI_Request rq[2];
	int w[16], r[100], i;
	MPI_Offset end = (MPI_Offset)size * 96;

	for (i = 0; i < 16; i++)
		w[i] = rank * 100 + i;
	AT(S_FOPEN, MPI_File_open)
	(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
	 &fh);
	AT(S_FWRITE_AT, MPI_File_write_at)
	(fh, (MPI_Offset)rank * 64, w, 16, MPI_INT, &st);
	AT(S_FWRITE_AT_ALL, MPI_File_write_at_all)
	(fh, (MPI_Offset)size * 64 + rank * 32, w, 8, MPI_INT,
	 MPI_STATUS_IGNORE);
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_sync(fh);
	AT(S_FREAD_AT, MPI_File_read_at)
	(fh, (MPI_Offset)rank * 64, r, 16, MPI_INT, MPI_STATUS_IGNORE);
	AT(S_FREAD_EOF, MPI_File_read_at)(fh, end - 8, r, 100, MPI_INT, &st);
	MPI_Barrier(MPI_COMM_WORLD); /* before anyone writes past the end */
	AT(S_FIWRITE_AT, MPI_File_iwrite_at)
	(fh, end + rank * 16, w, 4, MPI_INT, &rq[0]);
	MPI_Wait(&rq[0], MPI_STATUS_IGNORE);
	AT(S_FIREAD_AT, MPI_File_iread_at)
	(fh, (MPI_Offset)rank * 64, r, 4, MPI_INT, &rq[1]);
	MPI_Wait(&rq[1], MPI_STATUS_IGNORE);
	MPI_File_set_view(fh, (MPI_Offset)rank * 64, MPI_INT, MPI_INT, "native",
			  MPI_INFO_NULL);
	AT(S_FREAD_ALL, MPI_File_read_all)(fh, r, 16, MPI_INT, &st);
	AT(S_FWRITE, MPI_File_write)(fh, w, 0, MPI_INT, &st);
	AT(S_FCLOSE, MPI_File_close)(&fh);
	if (r[0] != rank * 100 || r[15] != rank * 100 + 15) {
		fprintf(stderr, "families: rank %d read back %d..%d\n", rank,
			r[0], r[15]);
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
}

int main(int argc, char **argv)
{
	int i;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size > 8) {
		fprintf(stderr, "families: at most 8 ranks\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	right = (rank + 1) % size;
	left = (rank + size - 1) % size;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "persist"))
			persist();
		else if (!strcmp(argv[i], "icoll"))
			icoll();
		else if (!strcmp(argv[i], "neighbor"))
			neighbor();
		else if (!strcmp(argv[i], "rma"))
			rma();
		else if (!strncmp(argv[i], "io=", 3))
			io(argv[i] + 3);
		else {
			fprintf(stderr, "families: unknown scenario %s\n",
				argv[i]);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
	}
	MPI_Finalize();
	return 0;
}
