/*
 * t_fit.c: mpipredict-calibrate's least squares (calibrate/fit.c) on
 * timings generated from known parameters, the profile's JSON round trip
 * (regress/profile_json.c) and the model's arithmetic (regress/loggps.c).
 * Exact timings must give back the parameters (relative error < 1e-6);
 * contention steps not measured stay null; a profile written and read back
 * is the same; a run's modelled time is the formula of loggps.h worked by
 * hand. The memory curve (regress/memory.h): its JSON round trip, the
 * slowdown worked by hand (log-log between points, flat beyond them, the
 * curve of the most ranks not above the node's), the regime's factor, and
 * six unusable curves each refused in one line naming the field.
 * Exit 0 pass, 1 fail (each failure says what it expected and got).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibrate/fit.h"
#include "regress/memory.h"
#include "regress/profile_json.h"

static int failed;

static void near(const char *what, double got, double want)
{
	if (!(fabs(got - want) <= 1e-6 * fabs(want) + 1e-18)) {
		printf("%s: expected %.9g, got %.9g\n", what, want, got);
		failed = 1;
	}
}

int main(void)
{
	const double o = 1e-6, Os = 1e-9, Or = 2e-9, L = 3e-6, G = 5e-10,
		     g = 4e-7, h2 = 2e-6, C2 = 3e-10;
	double gap[4] = {g - 1e-8, g + 1e-8, g - 2e-8, g + 2e-8};
	double cont[1][CAL_NCONT];
	int cont_j[1] = {2}, s;
	struct cal_timings t = {0};
	mpp_loggps_level l, *back;
	mpp_loggps_profile p = {0}, q;
	mpp_loggps_traffic tr = {0};
	char err[256], *json;
	double got, want;

	for (s = 0; s < CAL_NOVER; s++) {
		t.send[s] = o + cal_over_sizes[s] * Os;
		t.recv[s] = o + cal_over_sizes[s] * Or;
	}
	for (s = 0; s < CAL_NRT; s++)
		t.rt[s] = 2 * o + L + cal_rt_sizes[s] * (Os + Or + G);
	for (s = 0; s < CAL_NCONT; s++)
		cont[0][s] =
		    2 * o + 2 * h2 + L + cal_cont_sizes[s] * (Os + Or + G + C2);
	t.gap = gap;
	t.ngap = 4;
	t.cont = cont;
	t.cont_j = cont_j;
	t.ncont = 1;
	t.samples = 123;
	if (cal_fit_level(&t, 4, &l, err, sizeof err) < 0) {
		printf("cal_fit_level failed: %s\n", err);
		return 1;
	}
	near("o", l.o, o);
	near("Os", l.Os, Os);
	near("Or", l.Or, Or);
	near("L", l.L, L);
	near("G", l.G, G);
	near("g", l.g, g);
	near("h(2)", l.h[1], h2);
	near("C(2)", l.C[1], C2);
	near("residual of g", l.residual.g,
	     sqrt((2 * 1e-16 + 2 * 4e-16) / 3 / 4));
	if (l.nh != 4 || !isnan(l.h[0]) || !isnan(l.h[2]) || !isnan(l.C[3])) {
		printf("expected 4 contention entries, only j = 2 measured; "
		       "got nh %d, h[0] %g, h[2] %g, C[3] %g\n",
		       l.nh, l.h[0], l.h[2], l.C[3]);
		failed = 1;
	}
	if (!(l.residual.o < 1e-12 && l.residual.L < 1e-12)) {
		printf("expected residuals ~0 on exact data, got o %g L %g\n",
		       l.residual.o, l.residual.L);
		failed = 1;
	}
	/* h and C of j = 3 fall back to j = 2, j = 1 to the smallest. */
	near("h(3)", mpp_loggps_h(&l, 3), h2);
	near("h(1)", mpp_loggps_h(&l, 1), h2);
	near("h(0)", mpp_loggps_h(&l, 0), 0);
	near("message of 1000 B, 2 others", mpp_loggps_msg_s(&l, 1000, 2),
	     2 * o + 2 * h2 + L + 1000 * (Os + Or + G + C2));

	/* JSON round trip. */
	p.machine = strdup("m1");
	p.created_at = strdup("2026-11-24T03:00:00Z");
	p.nodes_seen = 1;
	p.packages_per_node = 1;
	p.cores_per_node = 4;
	p.level[MPP_LV_CMP] = malloc(sizeof l);
	*p.level[MPP_LV_CMP] = l;
	p.missing[MPP_LV_SOCKET] = strdup("one package");
	p.missing[MPP_LV_NET] = strdup("one node");
	json = mpp_profile_to_json(&p);
	if (!json ||
	    mpp_profile_from_json("t", json, &q, err, sizeof err) < 0) {
		printf("JSON round trip failed: %s\n", json ? err : "no JSON");
		return 1;
	}
	back = q.level[MPP_LV_CMP];
	if (!back || q.level[MPP_LV_SOCKET] || q.level[MPP_LV_NET] ||
	    strcmp(q.missing[MPP_LV_NET], "one node") ||
	    strcmp(q.machine, "m1") || q.cores_per_node != 4) {
		printf("JSON round trip: expected cmp only, net missing 'one "
		       "node', machine m1, 4 cores; got %s\n",
		       json);
		failed = 1;
	} else {
		near("o after JSON", back->o, o);
		near("h(2) after JSON", back->h[1], h2);
		if (!isnan(back->h[0])) {
			printf("expected h[0] null after JSON, got %g\n",
			       back->h[0]);
			failed = 1;
		}
	}
	/* Modelled time: 4 ranks per node, 8 ranks; 100 p2p messages (50
	 * sent) of 1000 B in total at cmp, 3 collectives of 80 B. */
	tr.p2p_msgs[MPP_LV_CMP] = 100;
	tr.p2p_bytes[MPP_LV_CMP] = 100000;
	tr.coll_msgs[MPP_LV_CMP] = 3;
	tr.coll_bytes[MPP_LV_CMP] = 240;
	if (mpp_loggps_comm_s(&q, &tr, 8, 4, &got, err, sizeof err) < 0) {
		printf("comm_s failed: %s\n", err);
		failed = 1;
	}
	want = (50 + 3 * 3) * (2 * o + 2 * h2 + L) +
	       (50000 + 120) * (Os + Or + G + C2);
	near("comm_s", got, want);
	tr.p2p_msgs[MPP_LV_NET] = 2;
	if (mpp_loggps_comm_s(&q, &tr, 8, 4, &got, err, sizeof err) == 0 ||
	    !strstr(err, "one node")) {
		printf("expected comm_s to refuse net traffic without a net "
		       "level, naming why; got %s\n",
		       err);
		failed = 1;
	}
	free(json);
	mpp_loggps_profile_clear(&q);

	/* The memory curve (regress/memory.h): its JSON round trip, the
	 * slowdown it gives and the regime's factor. Points 1, 4, 16 MiB;
	 * 1 rank 1, 1, 4 ns/B; 2 ranks 1, 2, 8 ns/B. */
	mpp_mem_curve *mc = calloc(1, sizeof *mc);
	*mc = (mpp_mem_curve){.npoints = 3, .ncurves = 2};
	mc->node_kib[0] = 1024;
	mc->node_kib[1] = 4096;
	mc->node_kib[2] = 16384;
	mc->ranks[0] = 1;
	mc->ranks[1] = 2;
	double t1[] = {1, 1, 4}, t2[] = {1, 2, 8};
	for (int i = 0; i < 3; i++) {
		mc->ns_per_byte[0][i] = t1[i];
		mc->ns_per_byte[1][i] = t2[i];
	}
	p.mem = mc;
	json = mpp_profile_to_json(&p);
	if (!json ||
	    mpp_profile_from_json("t", json, &q, err, sizeof err) < 0 ||
	    !q.mem) {
		printf("memory curve JSON round trip failed: %s\n",
		       json ? err : "no JSON");
		return 1;
	}
	if (q.mem->npoints != 3 || q.mem->ncurves != 2 || q.mem->ranks[1] != 2)
		printf("memory curve after JSON: expected 3 points, 2 curves, "
		       "ranks 1 and 2; got %s\n",
		       json),
		    failed = 1;
	near("ns_per_byte[1][2] after JSON", q.mem->ns_per_byte[1][2], 8);
	/* 8 MiB: halfway in log between 4 and 16 MiB, 1 rank: sqrt(1 * 4). */
	near("slowdown at 8 MiB, 1 rank", mpp_mem_slowdown(q.mem, 8192, 1), 2);
	near("slowdown at 8 MiB, 3 ranks (the 2-rank curve)",
	     mpp_mem_slowdown(q.mem, 8192, 3), 4);
	near("slowdown past the last point", mpp_mem_slowdown(q.mem, 1e6, 1),
	     4);
	near("slowdown below the first point", mpp_mem_slowdown(q.mem, 10, 2),
	     1);
	near("factor, beta 0", mpp_mem_factor(q.mem, 0, 1e6, 1), 1);
	near("factor, beta 1/2, 16 MiB, 1 rank",
	     mpp_mem_factor(q.mem, 0.5, 16384, 1), 2.5);
	if (!isnan(mpp_mem_slowdown(q.mem, 0, 1)))
		printf("expected no slowdown for a footprint of 0\n"),
		    failed = 1;
	free(json);
	mpp_loggps_profile_clear(&q);

	/* Curves that are not usable: one line naming the field. */
	static const char *const bad[][2] = {
	    {"\"memory\": {\"node_kib\": [1024, 1024], \"curves\": "
	     "[{\"ranks\": 1, \"ns_per_byte\": [1, 2]}]}",
	     "memory: node_kib[1]"},
	    {"\"memory\": {\"node_kib\": [1024, 2048], \"curves\": "
	     "[{\"ranks\": 1, \"ns_per_byte\": [1]}]}",
	     "memory.curves[0]: field \"ns_per_byte\""},
	    {"\"memory\": {\"node_kib\": [1024, 2048], \"curves\": "
	     "[{\"ranks\": 0, \"ns_per_byte\": [1, 2]}]}",
	     "memory: ranks[0]"},
	    {"\"memory\": {\"node_kib\": [1024, 2048], \"curves\": "
	     "[{\"ns_per_byte\": [1, 2]}]}",
	     "memory.curves[0]: field \"ranks\" is missing"},
	    {"\"memory\": {\"node_kib\": [1024, 2048], \"curves\": "
	     "[{\"ranks\": 1, \"ns_per_byte\": [1, \"x\"]}]}",
	     "memory: ns_per_byte[0][1]"},
	    {"\"memory\": [1, 2]", "memory: expected an object"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char doc[512];
		snprintf(doc, sizeof doc,
			 "{\"machine\": \"m\", \"created_at\": \"t\", "
			 "\"nodes_seen\": 1, \"packages_per_node\": 1, "
			 "\"cores_per_node\": 2, \"levels\": {}, %s}",
			 bad[i][0]);
		err[0] = 0;
		if (mpp_profile_from_json("p.json", doc, &q, err, sizeof err) ==
			0 ||
		    !strstr(err, bad[i][1]) || strchr(err, '\n')) {
			printf("bad curve %zu: expected one line naming '%s', "
			       "got '%s'\n",
			       i, bad[i][1], err);
			failed = 1;
		}
		mpp_loggps_profile_clear(&q);
	}
	mpp_loggps_profile_clear(&p);
	return failed;
}
