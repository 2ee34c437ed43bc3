/*
 * loggps.c: the contention-aware LogGPS formulas of loggps.h. Pure
 * arithmetic on a profile; nothing here measures, fits or parses.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "regress/loggps.h"

const char *const mpp_lv_names[MPP_NLV] = {"cmp", "socket", "net"};

void mpp_loggps_profile_clear(mpp_loggps_profile *p)
{
	int i;

	free(p->machine);
	free(p->created_at);
	for (i = 0; i < MPP_NLV; i++) {
		if (p->level[i]) {
			free(p->level[i]->h);
			free(p->level[i]->C);
			free(p->level[i]);
		}
		free(p->missing[i]);
	}
	free(p->mem);
	*p = (mpp_loggps_profile){0};
}

/* v[j - 1] for j = others, or the nearest measured entry as loggps.h says. */
static double contention(const double *v, int n, int others)
{
	int j;

	if (others <= 0 || n <= 0 || !v)
		return 0;
	for (j = others < n ? others : n; j >= 1; j--)
		if (!isnan(v[j - 1]))
			return v[j - 1];
	for (j = 1; j <= n; j++)
		if (!isnan(v[j - 1]))
			return v[j - 1];
	return 0;
}

double mpp_loggps_h(const mpp_loggps_level *l, int others)
{
	return contention(l->h, l->nh, others);
}

double mpp_loggps_C(const mpp_loggps_level *l, int others)
{
	return contention(l->C, l->nh, others);
}

double mpp_loggps_msg_s(const mpp_loggps_level *l, double bytes, int others)
{
	return 2 * l->o + 2 * mpp_loggps_h(l, others) + l->L +
	       bytes * (l->Os + l->Or + l->G + mpp_loggps_C(l, others));
}

int mpp_loggps_comm_s(const mpp_loggps_profile *p, const mpp_loggps_traffic *t,
		      int nprocs, int ranks_per_node, double *out, char *err,
		      size_t errlen)
{
	int others = ranks_per_node > 1 ? ranks_per_node - 1 : 0;
	double rounds = nprocs > 1 ? ceil(log2((double)nprocs)) : 0, s = 0;
	int i;

	for (i = 0; i < MPP_NLV; i++) {
		const mpp_loggps_level *l = p->level[i];
		double n = t->p2p_msgs[i] / 2, b = t->p2p_bytes[i] / 2;
		double cn = t->coll_msgs[i] * rounds, cb = t->coll_bytes[i] / 2;

		if (n + b + cn + cb == 0)
			continue;
		if (!l) {
			snprintf(err, errlen,
				 "the run has %s traffic and the machine "
				 "profile no %s level%s%s",
				 mpp_lv_names[i], mpp_lv_names[i],
				 p->missing[i] ? ": " : "",
				 p->missing[i] ? p->missing[i] : "");
			return -1;
		}
		s +=
		    (n + cn) * mpp_loggps_msg_s(l, 0, others) +
		    (b + cb) * (l->Os + l->Or + l->G + mpp_loggps_C(l, others));
	}
	*out = s;
	return 0;
}
