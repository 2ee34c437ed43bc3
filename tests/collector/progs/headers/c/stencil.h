/* stencil.h: static inline helpers of a C code, included by main.c and
 * solver.c (t-header-counters.sh): their loop, branches and MPI call are
 * counted once per source location, for both units. */
#ifndef STENCIL_H
#define STENCIL_H
#include <mpi.h>

#define NSTEP 3

static inline double relax(double *u, int n)
{
	double d = 0;
	for (int i = 1; i < n - 1; i++) { /* RELAX */
		double v = 0.5 * (u[i - 1] + u[i + 1]);
		if (i % 2 == 0) /* EVEN */
			d += v - u[i];
		else
			d -= v - u[i];
		u[i] = v;
	}
	return d;
}

static inline double global_sum(double x)
{
	double s = 0;
	MPI_Allreduce(&x, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* ALLREDUCE */
	return s;
}
#endif
