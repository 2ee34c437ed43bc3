/*
 * memory.c: the memory regime's slowdown and factor (memory.h).
 * Not for: choosing beta (train.c) or measuring the curve (calibrate/).
 */
#include "regress/memory.h"

#include <math.h>
#include <stdio.h>

int mpp_mem_curve_check(const mpp_mem_curve *c, const char *where, char *err,
			size_t errlen)
{
	if (c->npoints < 2 || c->npoints > MPP_MEM_POINTS || c->ncurves < 1 ||
	    c->ncurves > MPP_MEM_CURVES) {
		snprintf(err, errlen,
			 "%s: %d points and %d curves (2..%d points, 1..%d "
			 "curves)",
			 where, c->npoints, c->ncurves, MPP_MEM_POINTS,
			 MPP_MEM_CURVES);
		return -1;
	}
	for (int i = 0; i < c->npoints; i++)
		if (!(c->node_kib[i] > 0) || !isfinite(c->node_kib[i]) ||
		    (i > 0 && !(c->node_kib[i] > c->node_kib[i - 1]))) {
			snprintf(err, errlen,
				 "%s: node_kib[%d] is not a finite number "
				 "above the one before it",
				 where, i);
			return -1;
		}
	for (int k = 0; k < c->ncurves; k++) {
		if (c->ranks[k] < 1 ||
		    (k > 0 && c->ranks[k] <= c->ranks[k - 1])) {
			snprintf(err, errlen,
				 "%s: ranks[%d] is not a count above the one "
				 "before it",
				 where, k);
			return -1;
		}
		for (int i = 0; i < c->npoints; i++)
			if (!(c->ns_per_byte[k][i] > 0) ||
			    !isfinite(c->ns_per_byte[k][i])) {
				snprintf(err, errlen,
					 "%s: ns_per_byte[%d][%d] is not a "
					 "positive number",
					 where, k, i);
				return -1;
			}
	}
	return 0;
}

double mpp_mem_slowdown(const mpp_mem_curve *c, double node_kib,
			double ranks_per_node)
{
	int k = 0, i;

	if (!(node_kib > 0))
		return NAN;
	while (k + 1 < c->ncurves && c->ranks[k + 1] <= ranks_per_node)
		k++;
	const double *t = c->ns_per_byte[k], *x = c->node_kib;
	int n = c->npoints;
	double v;
	if (node_kib <= x[0])
		v = t[0];
	else if (node_kib >= x[n - 1])
		v = t[n - 1];
	else {
		for (i = 1; x[i] < node_kib; i++)
			;
		double w = log(node_kib / x[i - 1]) / log(x[i] / x[i - 1]);
		v = exp(log(t[i - 1]) + w * log(t[i] / t[i - 1]));
	}
	return v / t[0];
}

double mpp_mem_factor(const mpp_mem_curve *c, double beta, double node_kib,
		      double ranks_per_node)
{
	if (beta == 0 || !c)
		return 1;
	return 1 + beta * (mpp_mem_slowdown(c, node_kib, ranks_per_node) - 1);
}
