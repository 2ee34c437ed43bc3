#!/usr/bin/env bash
# A loop with assert() in its body keeps its counts in a local (a host)
# like any other (issue 34): the failure call inside the system macro
# (__assert_fail) can get no flush before it, but it ends the process by
# SIGABRT, whose crash dump misses a host's locals as it does on any crash
# signal. Before, such a loop counted in memory on every pass (+10 %
# instructions on a stencil sweep). The rewrite must show the host and
# count exactly with gcc and clang at -O2.
. "$MPP_SRC/tests/instrument/lib.sh"
cat >a.c <<'C'
#include <assert.h>
#include <stdio.h>
static unsigned long long t[4];
static double sweep(const double *v, double *w, int n)
{
	double s = 0;
	for (int c = 0; c < n - 2; c++) { /* T0 */
		t[0]++;
		assert(c + 2 < n);
		w[c + 1] = (v[c] + v[c + 1] + v[c + 2]) / 3.0;
		if (w[c + 1] > 1.0) /* T1 */
			t[1]++;
		s += w[c + 1];
	}
	return s;
}
int main(void)
{
	double v[64], w[64], s = 0;
	for (int i = 0; i < 64; i++)
		v[i] = (i % 7) * 0.5;
	for (int r = 0; r < 5; r++)
		s += sweep(v, w, 64 - r);
	printf("%.4f\n", s);
	for (int i = 0; i < 2; i++)
		printf("t%d %llu\n", i, t[i]);
	return 0;
}
C
cat >truth.txt <<'T'
loop T0 0
then T1 1
T
"$INS" -o out a.c 2>notes.txt || fail "rewrite failed: $(cat notes.txt)"
grep -q '__mpp_l[0-9]* = 0[,;].*for (int c = 0' out/a.c ||
	fail "expected the loop with assert() to keep its counts in a local: $(grep -n 'for (int c' out/a.c | cut -c1-200)"
check_truth a.c
exit 0
