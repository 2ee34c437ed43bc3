/*
 * topo.c: this process's package and the node's shape, with hwloc (see
 * topo.h). The binding (hwloc_get_cpubind) names the package when one
 * package holds it all; a binding that spans packages (an unbound process
 * on a multi-package node) falls back to the PU the process last ran on,
 * which the caller reports in the row. A binding equal to the whole machine
 * is not treated as "unbound" by itself: on a one-package machine it still
 * lies inside the one package.
 *
 * Not for: anything per call. Runs once, at MPI_Init.
 */
#include <hwloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/topo.h"

/* The package holding all of set, or NULL when set spans packages or is
 * empty. hwloc_get_next_obj_covering_cpuset_by_type returns packages that
 * *intersect* set, so inclusion is checked here. */
static hwloc_obj_t package_of(hwloc_topology_t t, hwloc_const_bitmap_t set)
{
	hwloc_obj_t p;

	if (hwloc_bitmap_iszero(set))
		return NULL;
	p = hwloc_get_next_obj_covering_cpuset_by_type(t, set,
						       HWLOC_OBJ_PACKAGE, NULL);
	return p && hwloc_bitmap_isincluded(set, p->cpuset) ? p : NULL;
}

/* MPIPREDICT_TEST_PU: 0 unset, 1 applied to set, -1 malformed. */
static int test_pu(hwloc_topology_t t, hwloc_bitmap_t set, int world_rank,
		   char *err, size_t errlen)
{
	const char *v = getenv("MPIPREDICT_TEST_PU");
	int npu = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	hwloc_obj_t pu;
	char *end;
	long k;

	if (!v || !*v)
		return 0;
	if (!strcmp(v, "rank"))
		k = world_rank;
	else {
		k = strtol(v, &end, 10);
		if (*end || k < 0) {
			snprintf(err, errlen,
				 "MPIPREDICT_TEST_PU=%s: expected rank or a PU "
				 "index",
				 v);
			return -1;
		}
	}
	if (npu <= 0 || !(pu = hwloc_get_obj_by_type(t, HWLOC_OBJ_PU,
						     (unsigned)(k % npu)))) {
		snprintf(err, errlen, "MPIPREDICT_TEST_PU: topology has no PU");
		return -1;
	}
	hwloc_bitmap_copy(set, pu->cpuset);
	return 1;
}

/* hwloc_topology_init, without hwloc's I/O and GPU plugins: loading them
 * (libOpenCL, libxml2, libpciaccess) took 65-120 ms per rank here, more
 * than the rest of MPI_Init's share of this runtime, for objects this
 * file filters out anyway (the built-in XML reader still reads
 * HWLOC_XMLFILE). A user's own HWLOC_PLUGINS_BLACKLIST is left alone. The
 * variable is set only around the call, at MPI_Init. */
static int components_init(hwloc_topology_t *t)
{
	int rc, set = getenv("HWLOC_PLUGINS_BLACKLIST") == NULL;

	if (set)
		setenv("HWLOC_PLUGINS_BLACKLIST",
		       "hwloc_opencl,hwloc_gl,hwloc_pci,hwloc_xml_libxml,"
		       "hwloc_cuda,hwloc_nvml,hwloc_rsmi,hwloc_levelzero",
		       1);
	rc = hwloc_topology_init(t);
	if (set)
		unsetenv("HWLOC_PLUGINS_BLACKLIST");
	return rc;
}

int mpp_topo_locate(struct mpp_place *p, int world_rank, char *err,
		    size_t errlen)
{
	hwloc_topology_t t;
	hwloc_bitmap_t set;
	hwloc_obj_t pkg;
	int rc = -1, hook;

	p->package = -1;
	p->unbound = 0;
	p->npackages = 1;
	p->ncores = 1;
	if (components_init(&t) < 0) {
		snprintf(err, errlen, "hwloc: cannot initialise a topology");
		return -1;
	}
	/* Packages, cores and PUs are all this needs: no caches, no I/O. */
	hwloc_topology_set_all_types_filter(t, HWLOC_TYPE_FILTER_KEEP_NONE);
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_PACKAGE,
				       HWLOC_TYPE_FILTER_KEEP_ALL);
	hwloc_topology_set_type_filter(t, HWLOC_OBJ_CORE,
				       HWLOC_TYPE_FILTER_KEEP_ALL);
	if (hwloc_topology_load(t) < 0) {
		snprintf(err, errlen, "hwloc: cannot load the topology");
		goto out;
	}
	if (!(set = hwloc_bitmap_alloc())) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	p->npackages = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PACKAGE);
	p->ncores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_CORE);
	if (p->npackages < 1)
		p->npackages = 1;
	if (p->ncores < 1)
		p->ncores = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_PU);
	if (p->ncores < 1)
		p->ncores = 1;
	hook = test_pu(t, set, world_rank, err, errlen);
	if (hook < 0)
		goto free_set;
	if (!hook && hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) < 0)
		hwloc_bitmap_copy(set, hwloc_topology_get_topology_cpuset(t));
	pkg = package_of(t, set);
	if (!pkg) {
		/* The binding spans packages: where the process ran last. */
		p->unbound = 1;
		if (hwloc_get_last_cpu_location(t, set,
						HWLOC_CPUBIND_PROCESS) == 0)
			pkg = package_of(t, set);
	}
	/* One package and nothing better known: it is that one. */
	if (!pkg && p->npackages == 1)
		pkg = hwloc_get_obj_by_type(t, HWLOC_OBJ_PACKAGE, 0);
	p->package = pkg ? (int)pkg->logical_index : -1;
	rc = 0;
free_set:
	hwloc_bitmap_free(set);
out:
	hwloc_topology_destroy(t);
	if (rc < 0) {
		p->package = -1;
		p->npackages = p->ncores = 1;
	}
	return rc;
}

int mpp_topo_fake_nodes(int *key, int n, char *err, size_t errlen)
{
	const char *v = getenv("MPIPREDICT_TEST_NODE_KEY");
	char *end;
	long k;
	int i;

	if (!v || !*v)
		return 0;
	if (!strcmp(v, "parity")) {
		for (i = 0; i < n; i++)
			key[i] = i % 2;
		return 1;
	}
	if (!strncmp(v, "block:", 6)) {
		k = strtol(v + 6, &end, 10);
		if (*end == '\0' && k > 0 && k <= n) {
			for (i = 0; i < n; i++)
				key[i] = i / (int)k;
			return 1;
		}
	}
	snprintf(err, errlen,
		 "MPIPREDICT_TEST_NODE_KEY=%s: expected parity or block:K", v);
	return -1;
}
