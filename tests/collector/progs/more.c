/* more.c: the MPI calls counted since issue 20's second part, built with
 * mpipredict-cc by t-mpi-more-families.sh: MPI_Alltoallw and
 * MPI_Ialltoallw (a count and a type per peer), the split collective
 * MPI-IO calls (*_begin / *_end), and, where the MPI has them (MPI-4:
 * MPICH 4, not OpenMPI 4.1), persistent collectives started several times
 * and large-count (_c) calls. Every counted call carries a marker comment
 * the test finds its line by; rank 0 prints a checksum of what arrived. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, n, j, off = 0;
	long sum = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	int *sc = malloc(4 * n * sizeof *sc), *rc = sc + n, *sd = sc + 2 * n,
	    *rd = sc + 3 * n;
	MPI_Datatype *st = malloc(2 * n * sizeof *st), *rt = st + n;
	int *sbuf = malloc(n * (n + 1) / 2 * sizeof *sbuf);
	int *rbuf = malloc(n * (rank + 1) * sizeof *rbuf);

	/* To peer j: j + 1 ints; from every peer: rank + 1 ints. */
	for (j = 0; j < n; j++) {
		sc[j] = j + 1;
		sd[j] = off * (int)sizeof(int);
		st[j] = MPI_INT;
		for (int k = 0; k < j + 1; k++)
			sbuf[off + k] = 100 * rank + j;
		off += j + 1;
		rc[j] = rank + 1;
		rd[j] = j * (rank + 1) * (int)sizeof(int);
		rt[j] = MPI_INT;
	}
	MPI_Alltoallw(sbuf, sc, sd, st, rbuf, rc, rd, rt,
		      MPI_COMM_WORLD); /* ALLTOALLW */
	for (j = 0; j < n * (rank + 1); j++)
		sum += rbuf[j];

	/* One double to and from every peer, nonblocking. */
	double *ds = malloc(2 * n * sizeof *ds), *dr = ds + n;
	MPI_Request req;
	for (j = 0; j < n; j++) {
		sc[j] = rc[j] = 1;
		sd[j] = rd[j] = j * (int)sizeof(double);
		st[j] = rt[j] = MPI_DOUBLE;
		ds[j] = rank + 0.5 * j;
	}
	MPI_Ialltoallw(ds, sc, sd, st, dr, rc, rd, rt, MPI_COMM_WORLD,
		       &req); /* IALLTOALLW */
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	for (j = 0; j < n; j++)
		sum += (long)(2 * dr[j]);

	/* Split collective I/O on a file of its own. */
	MPI_File fh;
	MPI_Status status;
	int w[16], r[16];
	double wd[4] = {1, 2, 3, 4}, rdd[4];
	for (j = 0; j < 16; j++)
		w[j] = rank * 16 + j;
	MPI_File_open(MPI_COMM_WORLD, "more.dat",
		      MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL, &fh);
	MPI_File_write_at_all_begin(fh, (MPI_Offset)rank * 64, w, 16,
				    MPI_INT);      /* WAA_BEGIN */
	MPI_File_write_at_all_end(fh, w, &status); /* WAA_END */
	/* Aggregators may write another rank's data: the standard's sync,
	 * barrier, sync makes it visible to the reads (OMPIO needs it). */
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_sync(fh);
	MPI_File_read_at_all_begin(fh, (MPI_Offset)rank * 64, r, 16,
				   MPI_INT);      /* RAA_BEGIN */
	MPI_File_read_at_all_end(fh, r, &status); /* RAA_END */
	for (j = 0; j < 16; j++)
		sum += r[j];
	/* Past every rank's 64 bytes, so that no rank overwrites what
	 * another has yet to read. */
	MPI_File_seek(fh, (MPI_Offset)n * 64 + rank * 32, MPI_SEEK_SET);
	MPI_File_write_all_begin(fh, wd, 4, MPI_DOUBLE);   /* WA_BEGIN */
	MPI_File_write_all_end(fh, wd, MPI_STATUS_IGNORE); /* WA_END */
	MPI_File_seek(fh, (MPI_Offset)n * 64 + rank * 32, MPI_SEEK_SET);
	MPI_File_read_all_begin(fh, rdd, 4, MPI_DOUBLE);   /* RA_BEGIN */
	MPI_File_read_all_end(fh, rdd, MPI_STATUS_IGNORE); /* RA_END */
	MPI_File_seek_shared(fh, (MPI_Offset)n * 96, MPI_SEEK_SET);
	MPI_File_write_ordered_begin(fh, w, 2, MPI_INT); /* WO_BEGIN */
	MPI_File_write_ordered_end(fh, w, &status);      /* WO_END */
	MPI_File_sync(fh);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_File_sync(fh);
	MPI_File_seek_shared(fh, (MPI_Offset)n * 96, MPI_SEEK_SET);
	MPI_File_read_ordered_begin(fh, r, 2, MPI_INT); /* RO_BEGIN */
	MPI_File_read_ordered_end(fh, r, &status);      /* RO_END */
	MPI_File_close(&fh);

#if MPI_VERSION >= 4
	/* Persistent collectives: each started several times. */
	double x[3] = {rank, 1, 2}, y[3];
	int b[5] = {0};
	MPI_Request pr, pq[2];
	if (rank == 0)
		for (j = 0; j < 5; j++)
			b[j] = j + 7;
	MPI_Allreduce_init(x, y, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD,
			   MPI_INFO_NULL, &pr); /* ALLREDUCE_INIT */
	for (j = 0; j < 4; j++) {
		MPI_Start(&pr);
		MPI_Wait(&pr, MPI_STATUS_IGNORE);
		sum += (long)y[0];
	}
	MPI_Bcast_init(b, 5, MPI_INT, 0, MPI_COMM_WORLD, MPI_INFO_NULL,
		       &pq[0]); /* BCAST_INIT */
	MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL,
			 &pq[1]); /* BARRIER_INIT */
	for (j = 0; j < 2; j++) {
		MPI_Startall(2, pq);
		MPI_Waitall(2, pq, MPI_STATUSES_IGNORE);
	}
	sum += b[4];
	MPI_Request_free(&pr);
	MPI_Request_free(&pq[0]);
	MPI_Request_free(&pq[1]);

	/* Large-count calls around a ring. */
	int right = (rank + 1) % n, left = (rank + n - 1) % n, ring[64];
	double three[3] = {1, 2, 3}, got3[3], one = rank, all1 = 0;
	for (j = 0; j < 64; j++)
		ring[j] = rank;
	MPI_Isend_c(ring, rank + 2, MPI_INT, right, 1, MPI_COMM_WORLD,
		    &req); /* ISEND_C */
	MPI_Recv_c(r, 16, MPI_INT, left, 1, MPI_COMM_WORLD,
		   &status); /* RECV_C */
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Irecv_c(got3, 3, MPI_DOUBLE, left, 2, MPI_COMM_WORLD,
		    &req); /* IRECV_C */
	MPI_Send_c(three, 3, MPI_DOUBLE, right, 2, MPI_COMM_WORLD); /* SEND_C */
	MPI_Wait(&req, MPI_STATUS_IGNORE);
	MPI_Allreduce_c(three, got3, 2, MPI_DOUBLE, MPI_SUM,
			MPI_COMM_WORLD);               /* ALLREDUCE_C */
	MPI_Bcast_c(b, 3, MPI_INT, 0, MPI_COMM_WORLD); /* BCAST_C */
	MPI_Reduce_c(&one, &all1, 1, MPI_DOUBLE, MPI_SUM, 0,
		     MPI_COMM_WORLD); /* REDUCE_C */
	sum += r[0] + (long)got3[1] + (long)all1;
	if (rank == 0)
		printf("mpi4\n");
#endif
	long total = 0;
	MPI_Reduce(&sum, &total, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("checksum %ld\n", total);
	free(sc);
	free(st);
	free(sbuf);
	free(rbuf);
	free(ds);
	MPI_Finalize();
	return 0;
}
