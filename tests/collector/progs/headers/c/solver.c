/* solver.c: the second unit using stencil.h. */
#include "stencil.h"

double solve(void)
{
	double u[5] = {1, 4, 2, 8, 5}, d = 0;
	d += relax(u, 5);
	d += relax(u, 5);
	return global_sum(d);
}
