#!/usr/bin/env bash
# A loop whose count is affine in the loops around it gets the count added
# at entry even where a host keeps it in a local (issue 34). XSBench's
# pick_mat: `for (i = 0; i < 12; i++)` around `for (j = i; j > 0; j--)`
# summing constants from a local table, returning from the outer loop's
# body. gcc -O3 folds the original nest to a few compares; with an
# increment in the inner body it ran the inner loop (callgrind on 10^6
# calls: 24.7 M instructions plain, 166.6 M with the increment, 42.1 M
# with the count at entry; XSBench itself in make bench-overhead). A loop
# whose start is a loaded value keeps the increment (is's
# `for (m = hist[v]; m > 0; m--)`, mostly run once: the compare and
# select at every entry cost more). Asserted: the inner loop's count is
# added to its local at entry and its body has no increment; the loaded
# start keeps its increment; every count is exact (the program's own
# arithmetic) with the test runtime, built with gcc -O3 and clang -O3.
. "$MPP_SRC/tests/instrument/lib.sh"
cat >pick.c <<'C'
#include <stdio.h>
static unsigned long long seed = 42;
static double next(void)
{
	seed = (2806196910506780709ULL * seed + 1) % 9223372036854775808ULL;
	return (double)seed / 9223372036854775808.0;
}
int pick(double roll)
{
	double dist[12] = {0.140, 0.052, 0.275, 0.134, 0.154, 0.064,
			   0.066, 0.055, 0.008, 0.015, 0.025, 0.013};
	for (int i = 0; i < 12; i++) {
		double running = 0;
		for (int j = i; j > 0; j--)
			running += dist[j];
		if (roll < running)
			return i;
	}
	return 0;
}
long loaded(const long *hist, int n)
{
	long s = 0;
	for (int v = 0; v < n; v++)
		for (long m = hist[v]; m > 0; m--)
			s += m;
	return s;
}
int main(void)
{
	long hist[5] = {0, 1, 0, 3, 1}, picks[12] = {0}, t = 0;
	for (int k = 0; k < 5000; k++) {
		int p = pick(next());
		picks[p]++;
		t += p;
	}
	printf("%ld %ld\n", t, loaded(hist, 5));
	for (int i = 0; i < 12; i++)
		printf("p%d %ld\n", i, picks[i]);
	return 0;
}
C
"$INS" -o out pick.c 2>notes || fail "mpipredict-instrument exited $?: $(cat notes)"
body=$(awk '/^int pick/,/^}/' out/pick.c)
printf '%s\n' "$body" | grep -Eq 'for \(int j = i, __mpp_t[0-9]+ __attribute__\(\(__unused__\)\) = \(__mpp_l[0-9]+ \+= ' ||
	fail "expected the inner loop's count added to its local at entry, got: $body"
printf '%s\n' "$body" | grep -A1 'for (int j = i' | tail -1 | grep -q '__mpp_l[0-9]*++' &&
	fail "expected no increment in the inner loop's body, got: $body"
awk '/^long loaded/,/^}/' out/pick.c | grep -A1 'for (long m = hist' | grep -q '__mpp_l[0-9]*++' ||
	fail "expected the loop from a loaded value to keep its increment: $(awk '/^long loaded/,/^}/' out/pick.c)"
for cc in gcc clang; do
	run_both "$cc" pick -O3
	# The counts from the picks the program printed: a pick of p > 0 ran
	# the outer body p + 1 times, the inner one 0 + 1 + ... + p times,
	# and returned from the if; a pick of 0 is the fall-through (running
	# is 0 at i = 0, and dist[1..11] sums to 0.86 < roll for some rolls):
	# 12 outer passes, 66 inner ones, no return.
	awk '/^p[0-9]/ { p = substr($1, 2) + 0; n = $2
		if (p == 0) { outer += 12 * n; inner += 66 * n; next }
		outer += n * (p + 1); inner += n * p * (p + 1) / 2; then_ += n }
		END { print "loop:pick.c:12:2", outer; print "loop:pick.c:14:3", inner
		print "then:pick.c:16:3", then_ }' got.out >want.txt
	grep -E '^(loop:pick.c:1[24]:|then:pick.c:16:)' counts.txt | sort >got.txt
	sort want.txt -o want.txt
	expect_same "pick's counts ($cc)" want.txt got.txt
done
exit 0
