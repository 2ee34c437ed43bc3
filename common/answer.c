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

__extension__ typedef unsigned __int128 u128;

/* The 17 digits of |x| rounded, as an integer q in [1e16, 1e17) with
 * x ~ q * 10^(e10 - 16); 0 when the exact path does not apply. x =
 * f / 2^k exactly, so q = round(f * 10^p / 2^k) with p = 16 - e10 is one
 * 128-bit product (f < 2^53, 10^p <= 10^22 < 2^74) and a shift. */
static int g17_digits(double x, unsigned long long *q, int *e10)
{
	static const unsigned long long p10[] = {
	    1ull,
	    10ull,
	    100ull,
	    1000ull,
	    10000ull,
	    100000ull,
	    1000000ull,
	    10000000ull,
	    100000000ull,
	    1000000000ull,
	    10000000000ull,
	    100000000000ull,
	    1000000000000ull,
	    10000000000000ull,
	    100000000000000ull,
	    1000000000000000ull,
	    10000000000000000ull,
	    100000000000000000ull,
	    1000000000000000000ull,
	    10000000000000000000ull,
	};
	unsigned long long bits;
	memcpy(&bits, &x, sizeof bits);
	int be = (int)(bits >> 52 & 0x7ff);
	if (be == 0 || be == 0x7ff)
		return 0; /* zero, subnormal, not finite */
	unsigned long long f = (bits & ((1ull << 52) - 1)) | 1ull << 52;
	int k = 1075 - be;
	if (k < 0 || k > 120)
		return 0;
	/* log10(2) ~ 78913 / 2^18: the guess is off by at most one. */
	int e = (int)(((long long)(be - 1023) * 78913) >> 18);
	for (int tries = 0; tries < 3; tries++) {
		int p = 16 - e;
		if (e < -4 || e > 16)
			return 0; /* printf writes an exponent */
		u128 n = (u128)f * p10[p > 19 ? 19 : p];
		if (p > 19)
			n *= p10[p - 19];
		u128 d = k ? n >> k : n;
		if (k) {
			u128 rem = n - (d << k), half = (u128)1 << (k - 1);
			if (rem > half || (rem == half && (d & 1)))
				d++;
		}
		if (d >= p10[17]) {
			e++;
			continue;
		}
		if (d < p10[16]) {
			e--;
			continue;
		}
		*q = (unsigned long long)d;
		*e10 = e;
		return 1;
	}
	return 0;
}

size_t mpp_format_g17(double x, char *buf)
{
	unsigned long long q;
	int e;
	if (!g17_digits(x, &q, &e))
		return (size_t)snprintf(buf, MPP_G17_LEN, "%.17g", x);
	char dig[17];
	for (int i = 16; i >= 0; i--, q /= 10)
		dig[i] = (char)('0' + q % 10);
	int nd = 17; /* %g drops the fraction's trailing zeros */
	while (nd > 1 && nd > e + 1 && dig[nd - 1] == '0')
		nd--;
	char *p = buf;
	if (x < 0)
		*p++ = '-';
	if (e >= 0) {
		memcpy(p, dig, (size_t)e + 1);
		p += e + 1;
		if (nd > e + 1) {
			*p++ = '.';
			memcpy(p, dig + e + 1, (size_t)(nd - e - 1));
			p += nd - e - 1;
		}
	} else {
		*p++ = '0';
		*p++ = '.';
		for (int i = 0; i < -e - 1; i++)
			*p++ = '0';
		memcpy(p, dig, (size_t)nd);
		p += nd;
	}
	*p = '\0';
	return (size_t)(p - buf);
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
