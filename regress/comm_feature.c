/*
 * comm_feature.c: the derived column model:comm_s (comm_feature.h).
 * Not for: the formulas (loggps.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regress/comm_feature.h"
#include "regress/model.h"
#include "regress/profile_json.h"

static long column(const mpp_runs *rs, const char *name)
{
	size_t f;

	for (f = 0; f < rs->nfeatures; f++)
		if (!strcmp(rs->features[f], name))
			return (long)f;
	return -1;
}

int mpp_comm_traffic(const mpp_runs *rs, size_t r, mpp_loggps_traffic *t)
{
	static const char *const kind[4] = {"comm", "comm", "coll", "coll"};
	static const char *const what[4] = {"msgs", "bytes", "msgs", "bytes"};
	char name[64];
	int l, k;

	for (l = 0; l < MPP_NLV; l++)
		for (k = 0; k < 4; k++) {
			double *dst[4] = {&t->p2p_msgs[l], &t->p2p_bytes[l],
					  &t->coll_msgs[l], &t->coll_bytes[l]};
			long c;

			snprintf(name, sizeof name, "%s:%s:%s.mean", kind[k],
				 mpp_lv_names[l], what[k]);
			c = column(rs, name);
			if (c < 0 || isnan(rs->runs[r].values[c]))
				return -1;
			*dst[k] = rs->runs[r].values[c];
		}
	return 0;
}

int mpp_runs_add_comm_feature(mpp_runs *rs, const mpp_loggps_profile *p,
			      size_t *nset)
{
	long c = column(rs, MPP_COMM_FEATURE);
	size_t r, nf = rs->nfeatures;
	char err[256];

	*nset = 0;
	if (c < 0) {
		char **names = realloc(rs->features, (nf + 1) * sizeof *names);

		if (!names)
			return MPP_ENOMEM;
		rs->features = names;
		if (!(names[nf] = strdup(MPP_COMM_FEATURE)))
			return MPP_ENOMEM;
		for (r = 0; r < rs->nruns; r++) {
			double *v =
			    realloc(rs->runs[r].values, (nf + 1) * sizeof *v);

			if (!v) {
				/* Runs already grown keep a spare slot. */
				free(names[nf]);
				return MPP_ENOMEM;
			}
			rs->runs[r].values = v;
		}
		rs->nfeatures = nf + 1;
		c = (long)nf;
	}
	for (r = 0; r < rs->nruns; r++) {
		const mpp_run *run = &rs->runs[r];
		mpp_loggps_traffic t;
		double s = NAN;
		int rpn = run->nnodes > 0 ? (int)ceil(run->nprocs / run->nnodes)
					  : (int)run->nprocs;

		if (mpp_comm_traffic(rs, r, &t) == 0 &&
		    mpp_loggps_comm_s(p, &t, (int)run->nprocs, rpn, &s, err,
				      sizeof err) < 0)
			s = NAN;
		rs->runs[r].values[c] = s;
		*nset += !isnan(s);
	}
	return MPP_OK;
}

int mpp_runs_add_comm_feature_json(mpp_runs *rs, const char *name,
				   const char *json, size_t *nset, char *err,
				   size_t errlen)
{
	mpp_loggps_profile p;
	int rc;

	*nset = 0;
	if (mpp_profile_from_json(name, json, &p, err, errlen) < 0)
		return MPP_EINVAL;
	rc = mpp_runs_add_comm_feature(rs, &p, nset);
	mpp_loggps_profile_clear(&p);
	if (rc)
		snprintf(err, errlen, "out of memory");
	return rc;
}
