/*
 * memory.c: the memory curve experiment (memory.h).
 */
#include "calibrate/memory.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MIN_KIB 1024.0

/* Seconds of one triad pass over n elements (the asm barrier makes the
 * compiler keep every pass). It measures the hardware, so it is built
 * without the sanitizers' checks: under them every access costs a shadow
 * lookup and the curve goes flat (0.25 ns/byte from 1 MiB to 1 GiB). */
__attribute__((no_sanitize("address", "undefined"))) static double
pass(double *a, const double *b, const double *c, size_t n)
{
	double t0 = MPI_Wtime();
	for (size_t i = 0; i < n; i++)
		a[i] = b[i] + 1.5 * c[i];
	__asm__ __volatile__("" : : "r"(a) : "memory");
	return MPI_Wtime() - t0;
}

/* The largest node footprint measured, KiB: 1 GiB, or an eighth of the
 * node's memory when that is less. */
static double max_kib(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
	double kib = 1024.0 * 1024.0;

	if (pages > 0 && size > 0 && (double)pages * size / 8 / 1024 < kib)
		kib = (double)pages * size / 8 / 1024;
	return kib;
}

int cal_run_memory(int on_node0, int reps, mpp_mem_curve *c, char *err,
		   size_t errlen)
{
	MPI_Comm node;
	int me, nlocal, ok = 1, all;
	double top = max_kib();
	double *a = NULL, *b = NULL, *x = NULL;

	memset(c, 0, sizeof *c);
	MPI_Comm_split(MPI_COMM_WORLD, on_node0 ? 0 : MPI_UNDEFINED, 0, &node);
	if (node != MPI_COMM_NULL) {
		MPI_Comm_rank(node, &me);
		MPI_Comm_size(node, &nlocal);
		/* The points, the same on every rank of the node. */
		for (double k = MIN_KIB;
		     k <= top * 1.0001 && c->npoints < MPP_MEM_POINTS;
		     k *= 1.41421356237)
			c->node_kib[c->npoints++] = k;
		for (int j = 1; j < nlocal && c->ncurves < MPP_MEM_CURVES - 1;
		     j *= 2)
			c->ranks[c->ncurves++] = j;
		c->ranks[c->ncurves++] = nlocal;
		/* The most this rank streams: the largest point over the
		 * fewest ranks it takes part in (all of it for rank 0). */
		int jmin = nlocal;
		for (int k = c->ncurves - 1; k >= 0; k--)
			if (c->ranks[k] > me)
				jmin = c->ranks[k];
		size_t nmax =
		    (size_t)(c->node_kib[c->npoints - 1] * 1024 / 24 / jmin) +
		    1;
		a = malloc(nmax * sizeof *a);
		b = malloc(nmax * sizeof *b);
		x = malloc(nmax * sizeof *x);
		ok = a && b && x;
		for (size_t i = 0; ok && i < nmax; i++) {
			a[i] = 0;
			b[i] = 1;
			x[i] = 2;
		}
		MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, node);
		for (int k = 0; all && k < c->ncurves; k++)
			for (int p = 0; p < c->npoints; p++) {
				int j = c->ranks[k];
				size_t n =
				    (size_t)(c->node_kib[p] * 1024 / 24 / j);
				double best = 1e30;
				MPI_Barrier(node);
				if (me < j)
					pass(a, b, x, n);
				for (int r = 0; r < reps; r++) {
					MPI_Barrier(node);
					if (me < j) {
						double t = pass(a, b, x, n);
						best = t < best ? t : best;
					}
				}
				c->ns_per_byte[k][p] =
				    best * 1e9 / (24.0 * (double)n);
			}
		ok = all;
		MPI_Comm_free(&node);
	}
	free(a);
	free(b);
	free(x);
	MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (!ok) {
		snprintf(err, errlen,
			 "mem: out of memory for the streaming arrays");
		return -1;
	}
	return 0;
}
