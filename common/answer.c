/*
 * answer.c: see answer.h.
 */
#include "common/answer.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long long mpp_slurm_limit(double upper_s, char *buf, size_t len)
{
	if (len)
		buf[0] = '\0';
	/* 100 years: far past any partition's MaxTime, and well inside a
	 * long long; beyond it the answer bounds nothing a scheduler uses. */
	if (!(upper_s > 0) || !(upper_s <= 100 * 365.0 * 86400))
		return -1;
	long long s = (long long)ceil(upper_s / 60) * 60;
	if (s < 60)
		s = 60;
	if (len == 0)
		return s;
	/* "D-HH:MM:SS", written by hand: the daemon writes one per answer,
	 * and snprintf's format machinery cost ~2,000 instructions of it. */
	char t[32], *e = t + sizeof t, *p = e;
	long long f[] = {s % 60, s / 60 % 60, s / 3600 % 24};
	for (int i = 0; i < 3; i++) {
		*--p = (char)('0' + f[i] % 10);
		*--p = (char)('0' + f[i] / 10);
		*--p = i < 2 ? ':' : '-';
	}
	long long d = s / 86400;
	do
		*--p = (char)('0' + d % 10);
	while ((d /= 10) > 0);
	size_t n = (size_t)(e - p) < len ? (size_t)(e - p) : len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return s;
}

/* Levenshtein distance of a and b, case folded, with one row of
 * strlen(b) + 1 cells; SIZE_MAX when out of memory (sorts last). */
static size_t distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t *row = malloc((lb + 1) * sizeof(*row));

	if (!row)
		return (size_t)-1;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			int same = tolower((unsigned char)a[i - 1]) ==
				   tolower((unsigned char)b[j - 1]);
			size_t best = diag + !same;
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	size_t d = row[lb];
	free(row);
	return d;
}

/* How name relates to the query q, case folded: 0 when it contains q
 * ("test_HPCCG" for "hpccg": the query is a shortened name), 1 when q
 * contains it ("cg"), 2 otherwise. */
static size_t kinship(const char *q, const char *name)
{
	return strcasestr(name, q) ? 0 : strcasestr(q, name) ? 1 : 2;
}

void mpp_names_nearest(const char *name, const char **names, size_t n)
{
	size_t *key = malloc((n ? n : 1) * sizeof(*key));

	if (!key)
		return;
	/* Kinship first, then the distance: "hpccg" is 5 edits from
	 * test_HPCCG but 3 from "cg", and test_HPCCG is what was meant. */
	for (size_t i = 0; i < n; i++) {
		size_t d = distance(name, names[i]), far = (size_t)-1 / 4;
		key[i] =
		    d >= far ? (size_t)-1 : kinship(name, names[i]) * far + d;
	}
	/* Insertion sort: stable, and an app list is short. */
	for (size_t i = 1; i < n; i++) {
		const char *s = names[i];
		size_t k = key[i], j = i;
		for (; j > 0 && key[j - 1] > k; j--) {
			key[j] = key[j - 1];
			names[j] = names[j - 1];
		}
		key[j] = k;
		names[j] = s;
	}
	free(key);
}
