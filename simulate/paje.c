/*
 * paje.c: link usage from SimGrid 3.32's Paje trace (paje.h).
 *
 * The trace defines its event numbers in a %EventDef header; this reader
 * takes them from there (PajeDefineVariableType, PajeCreateContainer,
 * PajeSetVariable, PajeAddVariable, PajeSubVariable) rather than assuming
 * them, keeps the containers and the variable types named "bandwidth" and
 * "bandwidth_used", and integrates bandwidth_used, a step function of
 * simulated time, per link container. Lines are whitespace-separated
 * fields; names are double-quoted without spaces in our platforms.
 *
 * Not for: anything but links.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simulate/paje.h"

enum { EV_DEFVAR, EV_CREATE, EV_SET, EV_ADD, EV_SUB, EV_N };

struct cont {
	char id[32];
	char name[64];
	double bw, used, last, bytes;
	int is_link;
};

static struct cont *find(struct cont *c, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(c[i].id, id))
			return &c[i];
	return NULL;
}

int mpp_paje_links(const char *path, struct mpp_link_use **out, size_t *n,
		   char *err, size_t errlen)
{
	static const char *const evname[EV_N] = {
	    "PajeDefineVariableType", "PajeCreateContainer", "PajeSetVariable",
	    "PajeAddVariable", "PajeSubVariable"};
	int ev[EV_N] = {-1, -1, -1, -1, -1};
	char line[4096], bw_id[8][32], used_id[8][32];
	size_t nbw = 0, nused = 0, nc = 0, cap = 0;
	struct cont *c = NULL;
	FILE *f = fopen(path, "r");
	double end = 0;

	*out = NULL;
	*n = 0;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		char a[5][256] = {{0}};
		int k, code;
		if (!strncmp(line, "%EventDef ", 10)) {
			char nm[64];
			if (sscanf(line + 10, "%63s %d", nm, &code) == 2)
				for (k = 0; k < EV_N; k++)
					if (!strcmp(nm, evname[k]))
						ev[k] = code;
			continue;
		}
		if (line[0] == '%' || line[0] == '#')
			continue;
		if (sscanf(line, "%d %255s %255s %255s %255s %255s", &code,
			   a[0], a[1], a[2], a[3], a[4]) < 4)
			continue;
		if (code == ev[EV_DEFVAR]) {
			/* id containertype name color */
			if (!strcmp(a[2], "bandwidth") && nbw < 8)
				snprintf(bw_id[nbw++], 32, "%.31s", a[0]);
			else if (!strcmp(a[2], "bandwidth_used") && nused < 8)
				snprintf(used_id[nused++], 32, "%.31s", a[0]);
		} else if (code == ev[EV_CREATE]) {
			/* time id type parent "name" */
			if (nc == cap) {
				size_t nn = cap ? 2 * cap : 64;
				struct cont *t = realloc(c, nn * sizeof *t);
				if (!t) {
					fclose(f);
					free(c);
					snprintf(err, errlen, "out of memory");
					return -1;
				}
				c = t;
				cap = nn;
			}
			memset(&c[nc], 0, sizeof c[nc]);
			snprintf(c[nc].id, sizeof c[nc].id, "%.31s", a[1]);
			char *q = a[4][0] == '"' ? a[4] + 1 : a[4];
			q[strcspn(q, "\"")] = '\0';
			snprintf(c[nc].name, sizeof c[nc].name, "%.63s", q);
			nc++;
		} else if (code == ev[EV_SET] || code == ev[EV_ADD] ||
			   code == ev[EV_SUB]) {
			/* time type container value */
			double t = strtod(a[0], NULL), v = strtod(a[3], NULL);
			struct cont *x = find(c, nc, a[2]);
			int isbw = 0, isused = 0;
			for (size_t i = 0; i < nbw; i++)
				isbw |= !strcmp(a[1], bw_id[i]);
			for (size_t i = 0; i < nused; i++)
				isused |= !strcmp(a[1], used_id[i]);
			end = t > end ? t : end;
			if (!x)
				continue;
			if (isbw) {
				x->bw = v;
				x->is_link = 1;
			} else if (isused) {
				x->bytes += x->used * (t - x->last);
				x->last = t;
				if (code == ev[EV_SET])
					x->used = v;
				else if (code == ev[EV_ADD])
					x->used += v;
				else
					x->used -= v;
				x->is_link = 1;
			}
		}
	}
	fclose(f);
	if (ev[EV_CREATE] < 0 || ev[EV_SET] < 0) {
		free(c);
		snprintf(err, errlen, "%s: not a Paje trace (no event header)",
			 path);
		return -1;
	}
	size_t m = 0;
	for (size_t i = 0; i < nc; i++)
		m += c[i].is_link;
	*out = calloc(m ? m : 1, sizeof **out);
	if (!*out) {
		free(c);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < nc; i++) {
		if (!c[i].is_link)
			continue;
		c[i].bytes += c[i].used * (end - c[i].last);
		struct mpp_link_use *u = &(*out)[(*n)++];
		snprintf(u->name, sizeof u->name, "%s", c[i].name);
		u->bandwidth = c[i].bw;
		u->bytes = c[i].bytes;
	}
	free(c);
	return 0;
}
