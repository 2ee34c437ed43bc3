#!/usr/bin/env bash
# Counts the runtime derives through more than one step (issue 34; ABI 5
# scratch and scale triples, collector/mpp_abi.h). CoMD's pair loop skips
# a pair by `if (...) continue;` twice, then runs `for (m = 0; m < 3;
# m++)` loops and an if/else: the statements after a skip run the
# block's count less the skip's then count, a loop of constant trip
# count with nothing counted inside runs that many times per pass, and an
# else is what reaches its if less its then. Counting them cost CoMD's
# force kernel two or three memory increments per pair. Shapes here: that
# pair loop, a skip by break, a skip inside a then-branch, a skip with
# braces, an else-if chain after a skip, while and do loops with a skip,
# and the shapes where nothing may be derived: a constant loop with a
# counted if inside, an empty constant loop, a loop changed by its body,
# a constant loop after an if whose branch may continue.
# Asserted: the rewrite lists scratch and scale triples and leaves no
# increment in the constant loops' bodies; every count equals the
# program's own (it counts in plain variables), with gcc and clang at -O2.
. "$MPP_SRC/tests/instrument/lib.sh"
cat >c.c <<'C'
#include <stdio.h>
static unsigned long long t[33];
static int data[64];
static double pairs(int n, double cut)
{
	double e = 0, f[3] = {0, 0, 0};
	for (int i = 0; i < n; i++) { /* T0 */
		t[0]++;
		for (int j = 0; j < n; j++) { /* T1 */
			t[1]++;
			if (j <= i && (data[j] & 1)) /* T2 */
				continue;
			t[2]++;
			double dr[3], r2 = 0;
			for (int m = 0; m < 3; m++) { /* T3 */
				t[3]++;
				dr[m] = (data[(i + m) % 64] - data[(j + m) % 64]) / 9.0;
				r2 += dr[m] * dr[m];
			}
			if (r2 > cut && ++t[4]) /* T4 */
				continue;
			if (j < n / 2) { /* T5 */
				t[5]++;
				e += r2;
			} else { /* E5 */
				t[6]++;
				e += 0.5 * r2;
			}
			for (int m = 0; m < 3; m++) { /* T7 */
				t[7]++;
				f[m] += dr[m] * r2;
			}
		}
	}
	return e + f[0] + f[1] + f[2];
}
static int shapes(int n)
{
	int s = 0, i = 0;
	for (int k = 0; k < n; k++) { /* T8 */
		t[8]++;
		if (data[k % 64] == 8) /* T9 */
			break;
		t[9]++;
		for (int m = 1; m <= 4; m++) /* T10 */
			s += m * k, t[10]++;
		for (int m = 0; m < 3; m++) { /* T20 */
			t[20]++;
			if (data[(k + m) % 64] == 2) /* T21 */
				s++, t[21]++;
		}
		for (int m = 5; m < 5; m++) /* T22 */
			s++, t[22]++;
		int lim = 4;
		for (int m = 0; m < lim; m++) /* T23 */
			lim -= (data[m] & 1), t[23]++;
		if (data[k % 64] > 4) { /* T11 */
			t[11]++;
			if (k % 3 == 0) /* T12 */
				continue;
			for (int m = 0; m < 2; m++) /* T13 */
				s += m, t[13]++;
			if (k & 1) /* T14 */
				s++, t[14]++;
			else /* E14 */
				s--, t[15]++;
		}
		for (int m = 0; m < 2; m++) /* T32 */
			s -= m, t[32]++;
	}
	for (int k = 0; k < n; k++) { /* T31 */
		t[31]++;
		if (k % 5 == 1) { /* T16 */
			continue;
		}
		if (data[k % 64] == 0) /* T17 */
			s += 3, t[17]++;
		else if (data[k % 64] == 1) /* T18 */
			s += 5, t[18]++;
		else /* E18 */
			s -= 1, t[19]++;
	}
	while (i < n) { /* T24 */
		t[24]++;
		i++;
		if (i % 4 == 0) /* T25 */
			continue;
		if (data[i % 64] < 3) /* T26 */
			s += 2, t[26]++;
		else /* E26 */
			s -= 1, t[27]++;
	}
	i = 0;
	do { /* T28 */
		t[28]++;
		i += 2;
		if (data[i % 64] == 5) /* T29 */
			continue;
		for (int m = 0; m < 6; m += 2) /* T30 */
			s += m, t[30]++;
	} while (i < n);
	return s;
}
int main(void)
{
	double e = 0;
	int s = 0;
	for (int i = 0; i < 64; i++)
		data[i] = (i * 7 + 3) % 9;
	for (int it = 0; it < 5; it++) {
		e += pairs(10 + it, 0.2 + 0.1 * it);
		s += shapes(20 + 9 * it) + shapes(it);
	}
	printf("%.6f %d\n", e, s);
	for (int i = 0; i < 33; i++)
		printf("t%d %llu\n", i, t[i]);
	return 0;
}
C
# The truth, per marker: the user counter that counts the same thing
# (t2, t9, t24 - ... where the user counts the passes after a skip: the
# loop's count is then the passes of its own counter).
cat >truth.txt <<'T'
loop T0 0
loop T1 1
then T2 -
loop T3 3
then T4 4
then T5 5
else T5 6
loop T7 7
loop T8 8
then T9 -
loop T10 10
then T11 11
then T12 -
loop T13 13
then T14 14
else T14 15
loop T32 32
loop T31 31
then T16 -
then T17 17
then T18 18
else T18 19
loop T20 20
then T21 21
loop T22 22
loop T23 23
loop T24 24
then T25 -
then T26 26
else T26 27
loop T28 28
then T29 -
loop T30 30
T
"$INS" -o out c.c 2>notes.txt || fail "rewrite failed: $(cat notes.txt)"
# The derived list: scratch counts (0x20000000 and up, below the scale
# flag 0x40000000) and scale triples (0x40000000 + trip count).
dv=$(grep -o '__mpp_dv_[0-9a-f]*\[\] = {[^}]*}' out/c.c | sed 's/.*{//; s/}//')
scratch=0 scale=0
for v in ${dv//,/ }; do
	[ "$v" -ge $((0x20000000)) ] && [ "$v" -lt $((0x40000000)) ] && scratch=$((scratch + 1))
	[ "$v" -ge $((0x40000000)) ] && [ "$v" -lt $((0x80000000)) ] && scale=$((scale + 1))
done
[ "$scratch" -ge 7 ] || fail "expected scratch counts after the skips in the derived list, got {$dv}"
# T3, T7, T10, T13, T30 (not T20: it counts an if inside; T22 runs 0
# times; T23's body changes its bound; T32 follows an if whose branch
# may continue).
[ "$scale" -eq 5 ] || fail "expected 5 loops of constant trip count derived by scale, got $scale in {$dv}"
for mark in T3 T7 T13; do
	l=$(grep -n "/\\* $mark \\*/" out/c.c | cut -d: -f1)
	sed -n "$l,$((l + 1))p" out/c.c | grep -Eq '__mpp_(c_[0-9a-f]*\[[0-9]*\]|l[0-9]+)(\+\+| \+=)' &&
		fail "expected no count in the constant loop $mark, got: $(sed -n "$l,$((l + 1))p" out/c.c)"
done
check_truth c.c
exit 0
