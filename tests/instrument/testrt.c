/*
 * testrt.c: a test fixture, not the mpipredict runtime. It implements the
 * rewriter's side of collector/mpp_abi.h just enough to check rewritten
 * code: it keeps the registered units and, at exit, writes every counter
 * (the derived ones computed as the runtime does) and every site's call
 * count to $MPP_TESTRT_OUT (default counts.txt), one
 * "name value" per line. Test programs that define their own fake MPI
 * functions call mpp_testrt_hit() from them, which does what the real PMPI
 * layer does with the tag stack: pop the top tag and count the call there
 * (or as unattributed when there is none). Unlike the real layer it does
 * not check that the tag is for the called function.
 */
#include <stdio.h>
#include <stdlib.h>

#include "collector/mpp_abi.h"

_Thread_local struct __mpp_tags __mpp_tags;

void __mpp_tag(struct __mpp_site *site)
{
	__mpp_tag_push(site);
}

static struct __mpp_unit *units;
static unsigned long long unattributed;

void __mpp_register(struct __mpp_unit *u)
{
	for (struct __mpp_unit *p = units; p; p = p->next)
		if (p == u)
			return;
	if (u->abi_version != MPP_ABI_VERSION) {
		fprintf(stderr, "testrt: unit %s has ABI %d\n", u->file,
			u->abi_version);
		return;
	}
	u->next = units;
	units = u;
}

int mpp_testrt_hit(void);
int mpp_testrt_hit(void)
{
	struct __mpp_site *s = NULL;
	if (__mpp_tags.n)
		s = __mpp_tags.site[--__mpp_tags.n % MPP_TAG_DEPTH];
	if (s)
		s->calls++;
	else
		unattributed++;
	return 0;
}

__attribute__((destructor)) static void dump(void)
{
	const char *path = getenv("MPP_TESTRT_OUT");
	FILE *f = fopen(path && *path ? path : "counts.txt", "w");
	if (!f)
		return;
	for (struct __mpp_unit *u = units; u; u = u->next) {
		for (unsigned i = 0; i < u->ncounters; i++)
			fprintf(f, "%s %llu\n", u->counter_names[i],
				__mpp_counter_value(u, i));
		for (unsigned i = 0; i < u->nsites; i++)
			fprintf(f, "call:%s %llu\n", u->site_names[i],
				u->sites[i].calls);
	}
	fprintf(f, "unattributed %llu\n", unattributed);
	fclose(f);
}
