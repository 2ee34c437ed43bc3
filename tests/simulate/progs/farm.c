/*
 * farm.c: a test program in the shape of a master/worker task farm, for
 * the simulate tests. `farm NTASKS SIZE`: task i carries
 * SIZE x (1 + 7i mod 5) doubles (sizes vary, so workers finish out of
 * order). Rank 0 is the master: it takes each worker's "ready" from
 * MPI_ANY_SOURCE (MPI_STATUS_IGNORE: the message names the worker), then
 * results of varying length (MPI_Probe from MPI_ANY_SOURCE, then
 * MPI_Get_count, MPI_Recv from the probed source and tag),
 * and hands the next task to whichever worker answered, until none is
 * left: then a zero-length message with the stop tag. Workers probe for
 * a task (MPI_Probe, MPI_Get_count: its length is not known in advance),
 * compute, send a result whose length depends on the task, and after the
 * stop tag report how many tasks they did (the master takes the reports
 * with MPI_ANY_SOURCE and MPI_ANY_TAG, and checks the tag in the status).
 * `farm NTASKS SIZE nonblocking`: the master posts those wildcard
 * receives with MPI_Irecv instead, finishing each "ready" with
 * MPI_Waitany (MPI_STATUS_IGNORE) and the reports with MPI_Waitsome (its
 * statuses checked), as masters that overlap their receives do.
 * At 1 rank the master does the tasks itself.
 * Rank 0 prints the number of tasks and a checksum of the results summed
 * in task order: the same line at any rank count.
 *
 * Not for: load balancing studies (no look-ahead, one task in flight per
 * worker); the call pattern is what the tests need.
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	TAG_READY = 1,
	TAG_TASK = 2,
	TAG_RESULT = 3,
	TAG_STOP = 4,
	TAG_DONE = 5
};

static int task_len(int i, int size)
{
	return size * (1 + 7 * i % 5);
}

/* The task's data: element 0 is the task's index. */
static void task_fill(double *t, int i, int len)
{
	t[0] = i;
	for (int j = 1; j < len; j++)
		t[j] = 1.0 / (1.0 + i + j);
}

/* The result of task t (len doubles): element 0 is the task's index,
 * 1 + len / 4 elements in all. A few sweeps over the data per element. */
static int task_run(const double *t, int len, double *r)
{
	int n = 1 + len / 4;
	r[0] = t[0];
	for (int k = 1; k < n; k++) {
		double s = 0;
		for (int rep = 0; rep < 8; rep++)
			for (int j = 1; j < len; j++)
				s += sin(t[j] * (k + rep));
		r[k] = s;
	}
	return n;
}

static double result_sum(const double *r, int n)
{
	double s = 0;
	for (int k = 1; k < n; k++)
		s += r[k] * k;
	return s;
}

int main(int argc, char **argv)
{
	int rank, nprocs;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
	int ntasks = argc > 2 ? atoi(argv[1]) : 0,
	    size = argc > 2 ? atoi(argv[2]) : 0;
	int nb = argc > 3 && !strcmp(argv[3], "nonblocking");
	if (ntasks < 1 || size < 1 || ntasks > 100000 || size > 100000 ||
	    (argc > 3 && !nb)) {
		if (rank == 0)
			fprintf(stderr,
				"usage: farm NTASKS SIZE [nonblocking]\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int maxlen = 5 * size; /* the largest task: 7i mod 5 = 4 */
	double *t = malloc((size_t)maxlen * sizeof *t);
	double *r = malloc((size_t)(1 + maxlen / 4) * sizeof *r);
	double *sums = calloc((size_t)ntasks, sizeof *sums);
	if (!t || !r || !sums)
		MPI_Abort(MPI_COMM_WORLD, 3);

	if (rank == 0 && nprocs == 1) {
		for (int i = 0; i < ntasks; i++) {
			task_fill(t, i, task_len(i, size));
			sums[i] =
			    result_sum(r, task_run(t, task_len(i, size), r));
		}
	} else if (rank == 0) {
		int next = 0, stopped = 0, got = 0, w, n;
		MPI_Status st;
		/* Each worker's "ready" first: nothing else is in flight until
		 * the master answers, so any source will do, and the message
		 * says who it is (no status). Then, for every message (a
		 * result), the next task or the stop tag to its sender. */
		for (int k = 0; k < nprocs - 1 || stopped < nprocs - 1; k++) {
			if (k < nprocs - 1 && nb) {
				MPI_Request rq;
				int idx;
				MPI_Irecv(&w, 1, MPI_INT, MPI_ANY_SOURCE,
					  TAG_READY, MPI_COMM_WORLD, &rq);
				MPI_Waitany(1, &rq, &idx, MPI_STATUS_IGNORE);
			} else if (k < nprocs - 1) {
				MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE,
					 TAG_READY, MPI_COMM_WORLD,
					 MPI_STATUS_IGNORE);
			} else {
				/* the result tag: a stopped worker's
				 * report may already be here */
				MPI_Probe(MPI_ANY_SOURCE, TAG_RESULT,
					  MPI_COMM_WORLD, &st);
				MPI_Get_count(&st, MPI_DOUBLE, &n);
				w = st.MPI_SOURCE;
				MPI_Recv(r, n, MPI_DOUBLE, w, st.MPI_TAG,
					 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				int i = (int)r[0];
				if (st.MPI_TAG != TAG_RESULT || n < 1 ||
				    i < 0 || i >= ntasks)
					MPI_Abort(MPI_COMM_WORLD, 4);
				sums[i] = result_sum(r, n);
			}
			if (w < 1 || w >= nprocs)
				MPI_Abort(MPI_COMM_WORLD, 4);
			if (next < ntasks) {
				int len = task_len(next, size);
				task_fill(t, next, len);
				MPI_Send(t, len, MPI_DOUBLE, w, TAG_TASK,
					 MPI_COMM_WORLD);
				next++;
			} else {
				MPI_Send(NULL, 0, MPI_DOUBLE, w, TAG_STOP,
					 MPI_COMM_WORLD);
				stopped++;
			}
		}
		/* every worker's count of tasks done, in any order */
		for (int k = 0; k < nprocs - 1 && !nb; k++) {
			MPI_Recv(&n, 1, MPI_INT, MPI_ANY_SOURCE, MPI_ANY_TAG,
				 MPI_COMM_WORLD, &st);
			if (st.MPI_TAG != TAG_DONE)
				MPI_Abort(MPI_COMM_WORLD, 4);
			got += n;
		}
		if (nb) {
			int m = nprocs - 1, left = m, outc;
			int *cnt = malloc((size_t)m * sizeof *cnt);
			int *idx = malloc((size_t)m * sizeof *idx);
			MPI_Request *rq = malloc((size_t)m * sizeof *rq);
			MPI_Status *sts = malloc((size_t)m * sizeof *sts);
			if (!cnt || !idx || !rq || !sts)
				MPI_Abort(MPI_COMM_WORLD, 3);
			for (int k = 0; k < m; k++)
				MPI_Irecv(&cnt[k], 1, MPI_INT, MPI_ANY_SOURCE,
					  MPI_ANY_TAG, MPI_COMM_WORLD, &rq[k]);
			while (left > 0) {
				MPI_Waitsome(m, rq, &outc, idx, sts);
				for (int j = 0; j < outc; j++) {
					if (sts[j].MPI_TAG != TAG_DONE)
						MPI_Abort(MPI_COMM_WORLD, 4);
					got += cnt[idx[j]];
				}
				left -= outc;
			}
			free(cnt);
			free(idx);
			free(rq);
			free(sts);
		}
		if (got != ntasks)
			MPI_Abort(MPI_COMM_WORLD, 4);
	} else {
		int n = 0;
		MPI_Status st;
		MPI_Send(&rank, 1, MPI_INT, 0, TAG_READY, MPI_COMM_WORLD);
		for (;;) {
			int len;
			MPI_Probe(0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_DOUBLE, &len);
			MPI_Recv(t, len, MPI_DOUBLE, 0, st.MPI_TAG,
				 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			if (st.MPI_TAG == TAG_STOP)
				break;
			int rn = task_run(t, len, r);
			MPI_Send(r, rn, MPI_DOUBLE, 0, TAG_RESULT,
				 MPI_COMM_WORLD);
			n++;
		}
		MPI_Send(&n, 1, MPI_INT, 0, TAG_DONE, MPI_COMM_WORLD);
	}
	if (rank == 0) {
		double s = 0;
		for (int i = 0; i < ntasks; i++)
			s += sums[i];
		printf("farm tasks %d checksum %.10e\n", ntasks, s);
	}
	free(t);
	free(r);
	free(sums);
	MPI_Finalize();
	return 0;
}
