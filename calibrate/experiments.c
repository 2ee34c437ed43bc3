/*
 * experiments.c: the MPI side of mpipredict-calibrate (experiments.h).
 * Every rank calls cal_run_pair with the same arguments; what it does
 * depends on its role. Tags separate the experiments, so a late message of
 * one cannot be taken for another.
 *
 * Not for: fitting, storing, choosing pairs.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/experiments.h"

enum {
	TAG_READY = 100,
	TAG_SEND,
	TAG_RECV,
	TAG_ACK,
	TAG_RT,
	TAG_GAP,
	TAG_CONT,
	TAG_STOP,
	TAG_RESULT,
	CONT_BYTES = 65536,
	MAX_BYTES = 1048576,
};

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof *v, cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* a: reps timed round trips of k bytes with b; one-way median. b: echo. */
static double round_trips(int me, int a, int b, char *buf, int k, int reps,
			  double *tmp)
{
	int r;

	for (r = -1; r < reps; r++) { /* r = -1: warm-up */
		if (me == a) {
			double t0 = MPI_Wtime();

			MPI_Send(buf, k, MPI_BYTE, b, TAG_RT, MPI_COMM_WORLD);
			MPI_Recv(buf, k, MPI_BYTE, b, TAG_RT, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (r >= 0)
				tmp[r] = (MPI_Wtime() - t0) / 2;
		} else {
			MPI_Recv(buf, k, MPI_BYTE, a, TAG_RT, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(buf, k, MPI_BYTE, a, TAG_RT, MPI_COMM_WORLD);
		}
	}
	return me == a ? median(tmp, reps) : 0;
}

/* Send overhead (a times MPI_Send into b's posted receive) and receive
 * overhead (b times MPI_Recv of a message already there), medians. */
static void overheads(int me, int a, int b, char *buf, int k, int reps,
		      double *tmp, double *send, double *recv)
{
	MPI_Request rq;
	int r, flag;

	for (r = -1; r < reps; r++) {
		if (me == b) {
			MPI_Irecv(buf, k, MPI_BYTE, a, TAG_SEND, MPI_COMM_WORLD,
				  &rq);
			MPI_Send(NULL, 0, MPI_BYTE, a, TAG_READY,
				 MPI_COMM_WORLD);
			MPI_Wait(&rq, MPI_STATUS_IGNORE);
		} else {
			double t0;

			MPI_Recv(NULL, 0, MPI_BYTE, b, TAG_READY,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			t0 = MPI_Wtime();
			MPI_Send(buf, k, MPI_BYTE, b, TAG_SEND, MPI_COMM_WORLD);
			if (r >= 0)
				tmp[r] = MPI_Wtime() - t0;
		}
	}
	if (me == a)
		*send = median(tmp, reps);
	for (r = -1; r < reps; r++) {
		if (me == a) {
			MPI_Send(buf, k, MPI_BYTE, b, TAG_RECV, MPI_COMM_WORLD);
			MPI_Recv(NULL, 0, MPI_BYTE, b, TAG_ACK, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			double t0;

			/* Wait until the whole message is there: probe, then
			 * poll a little longer than its transfer. */
			do
				MPI_Iprobe(a, TAG_RECV, MPI_COMM_WORLD, &flag,
					   MPI_STATUS_IGNORE);
			while (!flag);
			t0 = MPI_Wtime();
			while (MPI_Wtime() - t0 < 20e-6)
				;
			t0 = MPI_Wtime();
			MPI_Recv(buf, k, MPI_BYTE, a, TAG_RECV, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			if (r >= 0)
				tmp[r] = MPI_Wtime() - t0;
			MPI_Send(NULL, 0, MPI_BYTE, a, TAG_ACK, MPI_COMM_WORLD);
		}
	}
	if (me == b)
		*recv = median(tmp, reps);
}

/* Gap: a times GAP_BURST 8-byte Isends and their Waitall; per message. */
static void gaps(int me, int a, int b, char *buf, int reps, double *out)
{
	MPI_Request rq[GAP_BURST];
	int r, i;

	for (r = -1; r < reps; r++) {
		if (me == a) {
			double t0;

			MPI_Recv(NULL, 0, MPI_BYTE, b, TAG_READY,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			t0 = MPI_Wtime();
			for (i = 0; i < GAP_BURST; i++)
				MPI_Isend(buf + 8 * i, 8, MPI_BYTE, b, TAG_GAP,
					  MPI_COMM_WORLD, &rq[i]);
			MPI_Waitall(GAP_BURST, rq, MPI_STATUSES_IGNORE);
			if (r >= 0)
				out[r] = (MPI_Wtime() - t0) / GAP_BURST;
		} else {
			for (i = 0; i < GAP_BURST; i++)
				MPI_Irecv(buf + 8 * i, 8, MPI_BYTE, a, TAG_GAP,
					  MPI_COMM_WORLD, &rq[i]);
			MPI_Send(NULL, 0, MPI_BYTE, a, TAG_READY,
				 MPI_COMM_WORLD);
			MPI_Waitall(GAP_BURST, rq, MPI_STATUSES_IGNORE);
		}
	}
}

/* A contender pair (x leads, y echoes): 64 KiB ping-pongs until x sees
 * a's stop message; the stop travels to y in the first byte. */
static void contend(int me, int x, int y, int a, char *buf)
{
	int flag = 0;

	for (;;) {
		if (me == x) {
			MPI_Iprobe(a, TAG_STOP, MPI_COMM_WORLD, &flag,
				   MPI_STATUS_IGNORE);
			if (flag)
				MPI_Recv(NULL, 0, MPI_BYTE, a, TAG_STOP,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			buf[0] = (char)flag;
			MPI_Send(buf, CONT_BYTES, MPI_BYTE, y, TAG_CONT,
				 MPI_COMM_WORLD);
			MPI_Recv(buf, CONT_BYTES, MPI_BYTE, y, TAG_CONT,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, CONT_BYTES, MPI_BYTE, x, TAG_CONT,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, CONT_BYTES, MPI_BYTE, x, TAG_CONT,
				 MPI_COMM_WORLD);
			flag = buf[0];
		}
		if (flag)
			return;
	}
}

void cal_timings_free(struct cal_timings *t)
{
	free(t->gap);
	free(t->cont);
	free(t->cont_j);
	memset(t, 0, sizeof *t);
}

int cal_run_pair(int a, int b, const int *contenders, int ncontenders, int reps,
		 struct cal_timings *t, char *err, size_t errlen)
{
	int me, i, s, step, nsteps = ncontenders / 2, ok = 1, all_ok;
	char *buf = calloc(MAX_BYTES, 1);
	double *tmp = calloc((size_t)reps, sizeof *tmp);

	memset(t, 0, sizeof *t);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	t->gap = calloc((size_t)reps, sizeof *t->gap);
	t->cont = calloc((size_t)nsteps + 1, sizeof *t->cont);
	t->cont_j = calloc((size_t)nsteps + 1, sizeof *t->cont_j);
	if (!buf || !tmp || !t->gap || !t->cont || !t->cont_j)
		ok = 0;
	MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!all_ok) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (me == a || me == b) {
		for (s = 0; s < CAL_NOVER; s++)
			overheads(me, a, b, buf, (int)cal_over_sizes[s], reps,
				  tmp, &t->send[s], &t->recv[s]);
		for (s = 0; s < CAL_NRT; s++)
			t->rt[s] = round_trips(me, a, b, buf,
					       (int)cal_rt_sizes[s], reps, tmp);
		gaps(me, a, b, buf, reps, t->gap);
		t->ngap = reps;
	}
	/* b's receive overheads go to a. */
	if (me == b)
		MPI_Send(t->recv, CAL_NOVER, MPI_DOUBLE, a, TAG_RESULT,
			 MPI_COMM_WORLD);
	if (me == a)
		MPI_Recv(t->recv, CAL_NOVER, MPI_DOUBLE, b, TAG_RESULT,
			 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	MPI_Barrier(MPI_COMM_WORLD);
	/* Contention: step j runs the first j contenders (j/2 pairs). */
	for (step = 0; step < nsteps; step++) {
		int j = 2 * (step + 1), role = -1;

		for (i = 0; i < j; i++)
			if (contenders[i] == me)
				role = i;
		if (role >= 0)
			contend(me, contenders[role & ~1], contenders[role | 1],
				a, buf);
		else if (me == a || me == b) {
			/* Let the contenders get going first. */
			double t0 = MPI_Wtime();

			while (MPI_Wtime() - t0 < 2e-3)
				;
			for (s = 0; s < CAL_NCONT; s++)
				t->cont[step][s] = round_trips(
				    me, a, b, buf, (int)cal_cont_sizes[s], reps,
				    tmp);
			if (me == a)
				for (i = 0; i < j; i += 2)
					MPI_Send(NULL, 0, MPI_BYTE,
						 contenders[i], TAG_STOP,
						 MPI_COMM_WORLD);
		}
		t->cont_j[step] = j;
		MPI_Barrier(MPI_COMM_WORLD);
	}
	t->ncont = nsteps;
	t->samples = (long)reps *
		     (2 * CAL_NOVER + CAL_NRT + 1 + (long)nsteps * CAL_NCONT);
	free(buf);
	free(tmp);
	return 0;
fail:
	free(buf);
	free(tmp);
	cal_timings_free(t);
	return -1;
}
