/*
 * lean.c: the list of counters a lean build keeps (see lean.h): reading
 * the file and looking a name up. Nothing else.
 */
#include "instrument/lean.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void strip(char *s)
{
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ' ||
		     s[n - 1] == '\t'))
		s[--n] = 0;
	static const char *const agg[] = {".mean", ".max"};
	for (size_t i = 0; i < 2; i++) {
		size_t a = strlen(agg[i]);
		if (n > a && strcmp(s + n - a, agg[i]) == 0) {
			s[n - a] = 0;
			return;
		}
	}
}

int mpp_lean_read(struct mpp_lean *l, const char *path, char *err,
		  size_t errlen)
{
	memset(l, 0, sizeof(*l));
	if (errlen)
		err[0] = 0;
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "MPIPREDICT_LEAN: %s: %s", path,
			 strerror(errno));
		return -1;
	}
	char line[4096];
	size_t cap = 0;
	unsigned lineno = 0;
	int rc = 0;
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			snprintf(err, errlen,
				 "MPIPREDICT_LEAN: %s:%u: line longer than "
				 "%zu bytes",
				 path, lineno, sizeof(line) - 1);
			rc = -1;
			break;
		}
		strip(line);
		const char *s = line + strspn(line, " \t");
		if (!*s || *s == '#')
			continue;
		if (l->n == cap) {
			size_t c = cap ? cap * 2 : 64;
			char **v = realloc(l->names, c * sizeof(*v));
			if (!v) {
				rc = -1;
				break;
			}
			l->names = v;
			cap = c;
		}
		if (!(l->names[l->n] = strdup(s))) {
			rc = -1;
			break;
		}
		l->n++;
	}
	if (rc == 0 && ferror(f)) {
		snprintf(err, errlen, "MPIPREDICT_LEAN: %s: read error", path);
		rc = -1;
	} else if (rc < 0 && !err[0]) {
		snprintf(err, errlen, "MPIPREDICT_LEAN: %s: out of memory",
			 path);
	}
	fclose(f);
	if (rc < 0) {
		mpp_lean_free(l);
		return -1;
	}
	if (l->n)
		qsort(l->names, l->n, sizeof(*l->names), cmp_str);
	return 0;
}

int mpp_lean_keeps(const struct mpp_lean *l, const char *name)
{
	return l->n && bsearch(&name, l->names, l->n, sizeof(*l->names),
			       cmp_str) != NULL;
}

void mpp_lean_free(struct mpp_lean *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->names[i]);
	free(l->names);
	memset(l, 0, sizeof(*l));
}
