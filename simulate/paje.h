/*
 * paje.h: the link usage SimGrid's own tracing reports (a Paje trace of
 * the replay with tracing/uncategorized: each link's "bandwidth" and
 * "bandwidth_used" variables over simulated time).
 *
 * Not for: other Paje content (states, hosts) or other simulators' traces.
 * Ownership: the caller frees *out with free().
 */
#ifndef MPP_SIM_PAJE_H
#define MPP_SIM_PAJE_H

#include <stddef.h>

struct mpp_link_use {
	char name[64];
	double bandwidth; /* bytes/s */
	double bytes;     /* integral of bandwidth_used over the run */
};

/* Read path; returns 0 and the links, or -1 with err. */
int mpp_paje_links(const char *path, struct mpp_link_use **out, size_t *n,
		   char *err, size_t errlen);

#endif
