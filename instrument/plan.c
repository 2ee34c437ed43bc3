/*
 * plan.c: freeing a plan (see plan.h); the visitor fills it.
 */
#include "instrument/plan.h"

#include <stdlib.h>
#include <string.h>

void mpp_plan_free(struct mpp_plan *p)
{
	for (size_t i = 0; i < p->ncounters; i++)
		free(p->counters[i].func);
	for (size_t i = 0; i < p->nsites; i++)
		free(p->sites[i].func);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->counters);
	free(p->sites);
	free(p->notes);
	free(p->derived);
	mpp_edits_free(&p->edits);
	memset(p, 0, sizeof(*p));
}
