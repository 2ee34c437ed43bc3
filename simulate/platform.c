/*
 * platform.c: from a calibration profile to a SimGrid platform (nested
 * zones: host = package, a loopback link per package for the cmp level, a
 * link between the packages of a node for the socket level, a port and a
 * NIC per node for the net level) and the SMPI configuration.
 *
 * How the LogGPS parameters become SimGrid's (message time of the profile:
 * 2o + 2h + L + k(Os + Or + G + C)):
 *   - smpi/os and smpi/or: startup o + h[0], per byte Os / Or, of the base
 *     level (the lowest present: the CPU cost of an MPI call); smpi/ois the
 *     same as smpi/os;
 *   - a level's link: latency L + 2(o - o_base) + 2(h0 - h0_base), time per
 *     byte G + C[0] + (Os + Or) - (Os_base + Or_base) (a level's own CPU
 *     costs beyond the base level's go into its link);
 *   - smpi/bw-factor and smpi/lat-factor are 1 (SimGrid's defaults were
 *     fitted on another cluster; the profile's figures are end to end);
 *   - contention: max-min sharing (network/model:SMPI). A node's flows
 *     leave through one shared NIC link whose capacity is the mean over
 *     m >= 1 of (m + 1) / (G + C[m]) (the aggregate the profile saw with m
 *     other cores sending); each flow is also capped at one flow's rate by
 *     its own port link. Without C[m] the NIC carries one flow's rate.
 *
 * A real profile (mpipredict-calibrate) may carry a fitted G <= 0 (the fit
 * gave the per-byte time to Os/Or, which it measures below 2 KiB only) and
 * null h[m]/C[m] (not measured): the level's whole per-byte time
 * Os + Or + G then goes to its link (the message time is kept; refused if
 * it is not > 0), and null entries count as absent. A fitted L below 0
 * but within two standard errors of 0 is 0.
 *
 * Not for: reading traces or running SimGrid.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "simulate/platform.h"

const char *const mpp_level_names[MPP_NLV] = {"cmp", "socket", "net"};

static int num(json_t *o, const char *k, double *v, const char *path,
	       const char *lv, char *err, size_t errlen)
{
	json_t *x = json_object_get(o, k);
	if (!json_is_number(x) || !isfinite(json_number_value(x)) ||
	    json_number_value(x) < 0) {
		snprintf(err, errlen,
			 "%s: levels.%s.%s: expected a number >= 0", path, lv,
			 k);
		return -1;
	}
	*v = json_number_value(x);
	return 0;
}

/* L, which a real calibration can fit below 0 when the wire latency is
 * smaller than its noise (cmp on this machine: -31 ns, standard error 76
 * ns): within two of its standard errors (residual.L) of 0 it is 0; below
 * that the profile is refused. */
static int latency(json_t *o, double *L, const char *path, const char *lv,
		   char *err, size_t errlen)
{
	json_t *x = json_object_get(o, "L");
	json_t *se = json_object_get(json_object_get(o, "residual"), "L");
	double v = json_is_number(x) ? json_number_value(x) : NAN;
	double s = json_is_number(se) ? json_number_value(se) : 0;
	if (!isfinite(v) || (v < 0 && !(isfinite(s) && -v <= 2 * s))) {
		snprintf(err, errlen,
			 "%s: levels.%s.L: expected a number >= 0 (or "
			 "within two standard errors, residual.L, of 0)",
			 path, lv);
		return -1;
	}
	*L = v > 0 ? v : 0;
	return 0;
}

static int arr(json_t *o, const char *k, double *v, size_t *n, const char *path,
	       const char *lv, char *err, size_t errlen)
{
	json_t *x = json_object_get(o, k), *e;
	size_t i;
	*n = 0;
	if (!x || json_is_null(x))
		return 0;
	if (!json_is_array(x) || json_array_size(x) > 64) {
		snprintf(err, errlen,
			 "%s: levels.%s.%s: expected an array of at most 64 "
			 "numbers",
			 path, lv, k);
		return -1;
	}
	json_array_foreach(x, i, e)
	{
		if (json_is_null(e)) { /* not measured (calibrate's README) */
			v[i] = NAN;
			continue;
		}
		if (!json_is_number(e)) {
			snprintf(err, errlen,
				 "%s: levels.%s.%s[%zu]: expected a number or "
				 "null",
				 path, lv, k, i);
			return -1;
		}
		v[i] = json_number_value(e);
	}
	*n = json_array_size(x);
	return 0;
}

int mpp_profile_read(const char *path, struct mpp_profile *p, char *err,
		     size_t errlen)
{
	json_error_t je;
	json_t *root = json_load_file(path, 0, &je), *levels, *x;
	int rc = -1, any = 0;

	memset(p, 0, sizeof *p);
	if (!root) {
		snprintf(err, errlen, "%s:%d: %s", path, je.line, je.text);
		return -1;
	}
	x = json_object_get(root, "machine");
	snprintf(p->machine, sizeof p->machine, "%s",
		 json_is_string(x) ? json_string_value(x) : "unnamed");
	x = json_object_get(root, "packages_per_node");
	if (!json_is_integer(x) || json_integer_value(x) < 1 ||
	    json_integer_value(x) > 64) {
		snprintf(err, errlen,
			 "%s: packages_per_node: expected an integer in "
			 "[1, 64]",
			 path);
		goto out;
	}
	p->packages_per_node = (int)json_integer_value(x);
	x = json_object_get(root, "cores_per_node");
	if (!json_is_integer(x) || json_integer_value(x) < 1 ||
	    json_integer_value(x) > 4096 ||
	    json_integer_value(x) % p->packages_per_node) {
		snprintf(err, errlen,
			 "%s: cores_per_node: expected an integer in [1, "
			 "4096], a multiple of packages_per_node",
			 path);
		goto out;
	}
	p->cores_per_node = (int)json_integer_value(x);
	levels = json_object_get(root, "levels");
	if (!json_is_object(levels)) {
		snprintf(err, errlen, "%s: levels: expected an object", path);
		goto out;
	}
	for (int l = 0; l < MPP_NLV; l++) {
		const char *n = mpp_level_names[l];
		struct mpp_level *v = &p->lv[l];
		json_t *o = json_object_get(levels, n);
		if (!o || json_is_null(o))
			continue;
		if (!json_is_object(o)) {
			snprintf(err, errlen,
				 "%s: levels.%s: expected an object or null",
				 path, n);
			goto out;
		}
		if (num(o, "o", &v->o, path, n, err, errlen) ||
		    num(o, "Os", &v->Os, path, n, err, errlen) ||
		    num(o, "Or", &v->Or, path, n, err, errlen) ||
		    num(o, "g", &v->g, path, n, err, errlen) ||
		    latency(o, &v->L, path, n, err, errlen) ||
		    arr(o, "h", v->h, &v->nh, path, n, err, errlen) ||
		    arr(o, "C", v->C, &v->nC, path, n, err, errlen))
			goto out;
		x = json_object_get(o, "G");
		v->G = json_is_number(x) ? json_number_value(x) : NAN;
		if (!isfinite(v->G) || v->Os + v->Or + v->G <= 0) {
			snprintf(err, errlen,
				 "%s: levels.%s.G: expected a number with "
				 "Os + Or + G > 0",
				 path, n);
			goto out;
		}
		/* A fitted G at or below 0 (the fit gave the per-byte time to
		 * the CPU terms Os/Or, measured only below 2 KiB): the level's
		 * whole per-byte time Os + Or + G goes to its link, so the
		 * message time of the profile is kept and SimGrid gets a
		 * finite bandwidth. */
		if (v->G <= 0) {
			v->G += v->Os + v->Or;
			v->Os = v->Or = 0;
			v->folded = 1;
		}
		v->present = 1;
		any = 1;
	}
	if (!any) {
		snprintf(err, errlen, "%s: levels: no level is present", path);
		goto out;
	}
	rc = 0;
out:
	json_decref(root);
	return rc;
}

static int base_level(const struct mpp_profile *p)
{
	for (int l = 0; l < MPP_NLV; l++)
		if (p->lv[l].present)
			return l;
	return MPP_LV_NET;
}

void mpp_level_link(const struct mpp_profile *p, int lv, double *lat,
		    double *bw)
{
	const struct mpp_level *b = &p->lv[base_level(p)], *v = &p->lv[lv];
	double h0 = v->nh && isfinite(v->h[0]) ? v->h[0] : 0;
	double hb = b->nh && isfinite(b->h[0]) ? b->h[0] : 0;
	double c0 = v->nC && isfinite(v->C[0]) ? v->C[0] : 0;
	double l = v->L + 2 * (v->o - b->o) + 2 * (h0 - hb);
	double g = v->G + c0 + (v->Os + v->Or) - (b->Os + b->Or);
	*lat = l > 0 ? l : 0;
	*bw = 1.0 / (g > 1e-13 ? g : 1e-13);
}

/* The NIC's capacity (see the top of the file). */
static double nic_capacity(const struct mpp_profile *p)
{
	const struct mpp_level *v = &p->lv[MPP_LV_NET];
	double lat, bw, s = 0;
	size_t m, k = 0;
	mpp_level_link(p, MPP_LV_NET, &lat, &bw);
	for (m = 1; m < v->nC; m++)
		if (isfinite(v->C[m]) && v->G + v->C[m] > 0) {
			s += (double)(m + 1) / (v->G + v->C[m]);
			k++;
		}
	return k ? s / (double)k : bw;
}

static int pkg_cores(const struct mpp_profile *p)
{
	return p->cores_per_node / p->packages_per_node;
}

int mpp_rank_host(const struct mpp_profile *p, const struct mpp_placement *pl,
		  int r)
{
	int node = r / pl->rpn, slot = r % pl->rpn;
	int pkg = (slot / pkg_cores(p)) % p->packages_per_node;
	return node * p->packages_per_node + pkg;
}

int mpp_rank_level(const struct mpp_profile *p, const struct mpp_placement *pl,
		   int a, int b)
{
	int ha = mpp_rank_host(p, pl, a), hb = mpp_rank_host(p, pl, b);
	if (ha == hb)
		return MPP_LV_CMP;
	if (ha / p->packages_per_node == hb / p->packages_per_node)
		return MPP_LV_SOCKET;
	return MPP_LV_NET;
}

void mpp_rank_others(const struct mpp_profile *p,
		     const struct mpp_placement *pl, int r, int out[])
{
	int node = r / pl->rpn, on = pl->ranks - node * pl->rpn, same = 0;
	int h = mpp_rank_host(p, pl, r);
	if (on > pl->rpn)
		on = pl->rpn;
	for (int s = 0; s < on; s++)
		same += mpp_rank_host(p, pl, node * pl->rpn + s) == h;
	out[MPP_LV_CMP] = same - 1;
	out[MPP_LV_SOCKET] = on - same;
	out[MPP_LV_NET] = pl->ranks - on;
}

static const char *bw_s(double bw, char *b, size_t n)
{
	snprintf(b, n, "%.6gBps", bw);
	return b;
}

static const char *lat_s(double lat, char *b, size_t n)
{
	snprintf(b, n, "%.6gs", lat);
	return b;
}

/* The links of the route from host a to host b (host = node * P + pkg),
 * as the nested platform routes them: the package's loopback, or the
 * node's socket link, or (socket link to the node's first package,) port,
 * NIC, NIC, port (, socket link). */
static void route_links(const struct mpp_profile *p, int a, int b, FILE *f)
{
	int P = p->packages_per_node, na = a / P, nb = b / P;
	if (a == b) {
		if (p->lv[MPP_LV_CMP].present)
			fprintf(f, "<link_ctn id=\"n%dp%d_cmp\"/>", na, a % P);
		return;
	}
	if (na == nb) {
		fprintf(f, "<link_ctn id=\"n%d_socket\"/>", na);
		return;
	}
	if (a % P)
		fprintf(f, "<link_ctn id=\"n%d_socket\"/>", na);
	fprintf(f,
		"<link_ctn id=\"n%d_port\"/><link_ctn id=\"n%d_nic\"/>"
		"<link_ctn id=\"n%d_nic\"/><link_ctn id=\"n%d_port\"/>",
		na, na, nb, nb);
	if (b % P)
		fprintf(f, "<link_ctn id=\"n%d_socket\"/>", nb);
}

/* The same platform as one flat zone with a route per pair of hosts:
 * SimGrid 3.32's platform tracing (tracing/uncategorized, the links' Paje
 * variables) aborts while parsing nested zones joined by zoneRoutes, so
 * the replay runs on this equivalent (same links, same routes). */
static int write_flat(const struct mpp_profile *p,
		      const struct mpp_placement *pl, const char *path,
		      const double *lat, const double *bw, char *err,
		      size_t errlen)
{
	int P = p->packages_per_node, H = P * pl->nodes;
	char b1[64], b2[64], b3[64];
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "<?xml version='1.0'?>\n"
		   "<!DOCTYPE platform SYSTEM "
		   "\"https://simgrid.org/simgrid.dtd\">\n"
		   "<!-- Generated by mpipredict-simulate: platform.xml as one "
		   "flat zone. -->\n"
		   "<platform version=\"4.1\">\n"
		   "  <zone id=\"world\" routing=\"Full\">\n");
	for (int h = 0; h < H; h++)
		fprintf(f,
			"    <host id=\"n%dp%d\" speed=\"1Gf\" core=\"%d\"/>\n",
			h / P, h % P, pkg_cores(p));
	for (int h = 0; h < H; h++)
		if (p->lv[MPP_LV_CMP].present)
			fprintf(f,
				"    <link id=\"n%dp%d_cmp\" bandwidth=\"%s\" "
				"latency=\"%s\" sharing_policy=\"FATPIPE\"/>\n",
				h / P, h % P,
				bw_s(bw[MPP_LV_CMP], b1, sizeof b1),
				lat_s(lat[MPP_LV_CMP], b2, sizeof b2));
	for (int n = 0; n < pl->nodes; n++) {
		if (P > 1 && p->lv[MPP_LV_SOCKET].present)
			fprintf(f,
				"    <link id=\"n%d_socket\" bandwidth=\"%s\" "
				"latency=\"%s\"/>\n",
				n, bw_s(bw[MPP_LV_SOCKET], b1, sizeof b1),
				lat_s(lat[MPP_LV_SOCKET], b2, sizeof b2));
		if (pl->nodes > 1)
			fprintf(f,
				"    <link id=\"n%d_port\" bandwidth=\"%s\" "
				"latency=\"%s\" sharing_policy=\"FATPIPE\"/>\n"
				"    <link id=\"n%d_nic\" bandwidth=\"%s\" "
				"latency=\"0s\"/>\n",
				n, bw_s(bw[MPP_LV_NET], b1, sizeof b1),
				lat_s(lat[MPP_LV_NET] / 2, b2, sizeof b2), n,
				bw_s(nic_capacity(p), b3, sizeof b3));
	}
	for (int a = 0; a < H; a++)
		for (int b = a; b < H; b++) {
			if (a == b && !p->lv[MPP_LV_CMP].present)
				continue;
			fprintf(f, "    <route src=\"n%dp%d\" dst=\"n%dp%d\">",
				a / P, a % P, b / P, b % P);
			route_links(p, a, b, f);
			fprintf(f, "</route>\n");
		}
	fprintf(f, "  </zone>\n</platform>\n");
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

int mpp_platform_write(const struct mpp_profile *p,
		       const struct mpp_placement *pl, const char *dir,
		       char *err, size_t errlen)
{
	char path[4096], b1[64], b2[64], b3[64];
	int need[MPP_NLV] = {0}, P = p->packages_per_node;
	double lat[MPP_NLV] = {0}, bw[MPP_NLV] = {0};
	FILE *f;

	if (pl->ranks < 1 || pl->nodes < 1 || pl->rpn < 1 ||
	    (long)pl->nodes * pl->rpn < pl->ranks) {
		snprintf(err, errlen,
			 "placement: %d ranks do not fit on %d nodes x %d "
			 "ranks per node",
			 pl->ranks, pl->nodes, pl->rpn);
		return -1;
	}
	if (pl->nodes > 512) {
		snprintf(err, errlen, "placement: at most 512 nodes");
		return -1;
	}
	for (int r = 0; r < pl->ranks; r++) {
		int o[MPP_NLV];
		mpp_rank_others(p, pl, r, o);
		for (int l = 0; l < MPP_NLV; l++)
			need[l] |= o[l] > 0;
	}
	for (int l = 0; l < MPP_NLV; l++) {
		if (need[l] && !p->lv[l].present) {
			snprintf(
			    err, errlen,
			    "profile: levels.%s is null (not measured) but "
			    "the placement (%d ranks, %d nodes, %d per "
			    "node) has %s messages",
			    mpp_level_names[l], pl->ranks, pl->nodes, pl->rpn,
			    mpp_level_names[l]);
			return -1;
		}
		if (p->lv[l].present)
			mpp_level_link(p, l, &lat[l], &bw[l]);
	}
	snprintf(path, sizeof path, "%s/platform.xml", dir);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f,
		"<?xml version='1.0'?>\n"
		"<!DOCTYPE platform SYSTEM "
		"\"https://simgrid.org/simgrid.dtd\">\n"
		"<!-- Generated by mpipredict-simulate from the profile of "
		"machine '%s': do not edit. -->\n"
		"<platform version=\"4.1\">\n"
		"  <zone id=\"world\" routing=\"%s\">\n",
		p->machine, pl->nodes > 1 ? "DijkstraCache" : "Full");
	for (int n = 0; n < pl->nodes; n++) {
		fprintf(f, "    <zone id=\"n%d\" routing=\"Full\">\n", n);
		for (int k = 0; k < P; k++)
			fprintf(f,
				"      <host id=\"n%dp%d\" speed=\"1Gf\" "
				"core=\"%d\"/>\n",
				n, k, pkg_cores(p));
		if (p->lv[MPP_LV_CMP].present)
			for (int k = 0; k < P; k++)
				fprintf(f,
					"      <link id=\"n%dp%d_cmp\" "
					"bandwidth=\"%s\" latency=\"%s\" "
					"sharing_policy=\"FATPIPE\"/>\n",
					n, k,
					bw_s(bw[MPP_LV_CMP], b1, sizeof b1),
					lat_s(lat[MPP_LV_CMP], b2, sizeof b2));
		if (P > 1 && p->lv[MPP_LV_SOCKET].present)
			fprintf(
			    f,
			    "      <link id=\"n%d_socket\" bandwidth=\"%s\" "
			    "latency=\"%s\"/>\n",
			    n, bw_s(bw[MPP_LV_SOCKET], b1, sizeof b1),
			    lat_s(lat[MPP_LV_SOCKET], b2, sizeof b2));
		if (p->lv[MPP_LV_CMP].present)
			for (int k = 0; k < P; k++)
				fprintf(f,
					"      <route src=\"n%dp%d\" "
					"dst=\"n%dp%d\"><link_ctn "
					"id=\"n%dp%d_cmp\"/></route>\n",
					n, k, n, k, n, k);
		if (P > 1 && p->lv[MPP_LV_SOCKET].present)
			for (int a = 0; a < P; a++)
				for (int b = a + 1; b < P; b++)
					fprintf(f,
						"      <route src=\"n%dp%d\" "
						"dst=\"n%dp%d\"><link_ctn "
						"id=\"n%d_socket\"/></route>\n",
						n, a, n, b, n);
		fprintf(f, "    </zone>\n");
	}
	if (pl->nodes > 1) {
		double cap = nic_capacity(p);
		/* A star: each node's port and NIC lead to a switch (a router
		 * in a zone of its own: SimGrid's DTD takes no router beside
		 * zones), and SimGrid finds the route between two nodes
		 * (port, NIC, NIC, port) when first asked. A route per pair
		 * of nodes was 24 MB of XML at 512 nodes, parsed at every
		 * run. SimGrid lists an edge's links in reverse: declared
		 * NIC first, the route reads port, NIC, NIC, port. */
		fprintf(f, "    <zone id=\"sw\" routing=\"Full\"><router "
			   "id=\"sw_r\"/></zone>\n");
		for (int n = 0; n < pl->nodes; n++)
			fprintf(f,
				"    <link id=\"n%d_port\" bandwidth=\"%s\" "
				"latency=\"%s\" sharing_policy=\"FATPIPE\"/>\n"
				"    <link id=\"n%d_nic\" bandwidth=\"%s\" "
				"latency=\"0s\"/>\n",
				n, bw_s(bw[MPP_LV_NET], b1, sizeof b1),
				lat_s(lat[MPP_LV_NET] / 2, b2, sizeof b2), n,
				bw_s(cap, b3, sizeof b3));
		for (int n = 0; n < pl->nodes; n++)
			fprintf(f,
				"    <zoneRoute src=\"n%d\" dst=\"sw\" "
				"gw_src=\"n%dp0\" gw_dst=\"sw_r\">"
				"<link_ctn id=\"n%d_nic\"/><link_ctn "
				"id=\"n%d_port\"/></zoneRoute>\n",
				n, n, n, n);
	}
	fprintf(f, "  </zone>\n</platform>\n");
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof path, "%s/platform-flat.xml", dir);
	if (P * pl->nodes <= MPP_FLAT_MAX_HOSTS) {
		if (write_flat(p, pl, path, lat, bw, err, errlen) < 0)
			return -1;
	} else {
		unlink(path);
	}

	snprintf(path, sizeof path, "%s/hostfile", dir);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (int r = 0; r < pl->ranks; r++) {
		int h = mpp_rank_host(p, pl, r);
		fprintf(f, "n%dp%d\n", h / P, h % P);
	}
	fclose(f);

	const struct mpp_level *b = &p->lv[base_level(p)];
	double h0 = b->nh && isfinite(b->h[0]) ? b->h[0] : 0;
	snprintf(path, sizeof path, "%s/smpi.cfg", dir);
	f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f,
		"network/model:SMPI\n"
		"smpi/bw-factor:0:1\n"
		"smpi/lat-factor:0:1\n"
		"smpi/os:0:%.9g:%.9g\n"
		"smpi/ois:0:%.9g:%.9g\n"
		"smpi/or:0:%.9g:%.9g\n"
		"smpi/host-speed:1Gf\n",
		b->o + h0, b->Os, b->o + h0, b->Os, b->o + h0, b->Or);
	if (fclose(f) != 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}
