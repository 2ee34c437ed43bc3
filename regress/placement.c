/*
 * placement.c: model:comm_s for a job's placement (placement.h). Pure
 * arithmetic on the model; the fit is in placement_fit.c.
 */
#include "regress/placement.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "regress/comm_feature.h"

void mpp_placement_split(const double *totals, double nprocs, double nnodes,
			 int packages_per_node, mpp_loggps_traffic *t)
{
	double rpn = nnodes >= 1 ? ceil(nprocs / nnodes) : nprocs;
	double rpp, peers = nprocs - 1, f[MPP_NLV] = {0, 0, 0};
	int widest = MPP_LV_CMP;

	if (rpn > nprocs)
		rpn = nprocs;
	rpp = ceil(rpn / (packages_per_node > 1 ? packages_per_node : 1));
	if (peers > 0) {
		f[MPP_LV_CMP] = (rpp - 1) / peers;
		f[MPP_LV_SOCKET] = (rpn - rpp) / peers;
		f[MPP_LV_NET] = (nprocs - rpn) / peers;
	}
	if (nprocs > rpn)
		widest = MPP_LV_NET;
	else if (rpn > rpp)
		widest = MPP_LV_SOCKET;
	memset(t, 0, sizeof(*t));
	for (int l = 0; l < MPP_NLV; l++) {
		t->p2p_msgs[l] = totals[MPP_COMM_LAW_P2P_MSGS] * f[l];
		t->p2p_bytes[l] = totals[MPP_COMM_LAW_P2P_BYTES] * f[l];
	}
	t->coll_msgs[widest] = totals[MPP_COMM_LAW_COLL_MSGS];
	t->coll_bytes[widest] = totals[MPP_COMM_LAW_COLL_BYTES];
}

int mpp_placement_active(const mpp_model *m)
{
	return m->comm_profile != NULL;
}

double mpp_placement_nodes(const mpp_model *m, const mpp_params *p)
{
	const double *np = mpp_params_get(p, "nprocs");
	const double *nn = mpp_params_get(p, "nnodes");
	double rpn = 0;

	if (nn && *nn >= 1)
		return *nn;
	if (!np || !(*np >= 1))
		return 0;
	for (size_t i = 0; i < m->nranges; i++)
		if (!strcmp(m->range_names[i], MPP_RANKS_PER_NODE))
			rpn = m->range_hi[i];
	return rpn >= 1 ? ceil(*np / rpn) : 1;
}

/* One traffic law at p (0 for a law that stands for zero). */
static int law(const mpp_param_model *pm, const mpp_params *p, double nprocs,
	       double *x, char *err, size_t errlen)
{
	double l = pm->log_c;

	*x = 0;
	if (!pm->predictable || (pm->zero_serial && nprocs == 1))
		return MPP_OK;
	for (size_t j = 0; j < pm->nvars; j++) {
		const double *v = mpp_params_get(p, pm->vars[j]);
		if (!v || !(*v > 0) || !isfinite(*v)) {
			char hint[256];
			mpp_params_hint(pm->vars[j], NAN, hint, sizeof(hint));
			if (err)
				snprintf(err, errlen,
					 "parameter %s: %s (needed for %s)%s%s",
					 pm->vars[j],
					 v ? "not a positive number"
					   : "missing",
					 MPP_COMM_FEATURE, v ? "" : "; ",
					 v ? "" : hint);
			return MPP_EINVAL;
		}
		l += pm->expo[j] * log(*v);
	}
	*x = exp(l);
	return MPP_OK;
}

int mpp_placement_comm_s(const mpp_model *m, const mpp_params *p, double *x,
			 char *err, size_t errlen)
{
	const double *np = mpp_params_get(p, "nprocs");
	double totals[MPP_NCOMM_LAWS], nnodes;
	mpp_loggps_traffic t;
	char why[256];

	if (!np || !(*np >= 1) || !isfinite(*np)) {
		char hint[256];
		mpp_params_hint("nprocs", NAN, hint, sizeof(hint));
		if (err)
			snprintf(err, errlen,
				 "parameter nprocs: %s (needed for %s)%s%s",
				 np ? "not a positive number" : "missing",
				 MPP_COMM_FEATURE, np ? "" : "; ",
				 np ? "" : hint);
		return MPP_EINVAL;
	}
	nnodes = mpp_placement_nodes(m, p);
	if (!(nnodes >= 1) || !isfinite(nnodes) || nnodes > *np) {
		if (err)
			snprintf(err, errlen,
				 "parameter nnodes: %g is not between 1 and "
				 "nprocs %g (needed for %s)",
				 nnodes, *np, MPP_COMM_FEATURE);
		return MPP_EINVAL;
	}
	for (int k = 0; k < MPP_NCOMM_LAWS; k++)
		if (law(&m->comm_laws[k], p, *np, &totals[k], err, errlen))
			return MPP_EINVAL;
	mpp_placement_split(totals, *np, nnodes,
			    m->comm_profile->packages_per_node, &t);
	if (mpp_loggps_comm_s(m->comm_profile, &t, (int)*np,
			      (int)ceil(*np / nnodes), x, why,
			      sizeof(why)) < 0) {
		if (err)
			snprintf(err, errlen, "%s at %g ranks on %g nodes: %s",
				 MPP_COMM_FEATURE, *np, nnodes, why);
		return MPP_EINVAL;
	}
	return MPP_OK;
}
