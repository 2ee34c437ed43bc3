#!/usr/bin/env bash
# Derived counts equal counted ones: a program whose loops and branches
# also count themselves in plain user variables (the truth), in the shapes
# the rewriter derives instead of counting (trip counts added at entry
# where a loop's counter stays in memory; in a host, loops counted from
# their variable, also when left by break, return or goto; else and
# else-if counts as
# entries - then in loop bodies), in canonical for loops of every
# comparison and step, signed and unsigned, empty and negative ranges,
# declaration inits (counted in a host's locals since the compiler adds
# their final value itself), and in shapes where nothing may be derived
# (a break, the bound changed in the body). The rewritten program's counters
# (the test runtime's counts.txt) must equal the program's own, with gcc
# and clang at -O2, and the rewrite must show that it derived them.
. "$MPP_SRC/tests/instrument/lib.sh"

cat >d.c <<'C'
#include <stdio.h>
static unsigned long long t[32];
static int data[64];
static int work(int n, unsigned un, long lo, int step)
{
	int i, s = 0;
	unsigned u;
	for (i = 0; i < n; i++) { /* T0 */
		t[0]++;
		if (data[i % 64] > 3) { /* T1 */
			t[1]++;
			s++;
		} else { /* E1 */
			t[2]++;
		}
		if (data[i % 64] == 1) /* T3 */
			t[3]++;
		else if (data[i % 64] == 2) /* E3 */
			{ t[4]++; t[5]++; }
		else
			t[6]++;
	}
	for (int j = n; j >= -3; j -= 2) /* T7 */
		t[7]++;
	for (u = 2; u <= un; u++) /* T8 */
		t[8]++;
	for (long k = lo; k > lo - 7; --k) /* T9 */
		t[9]++;
	for (i = 5; i < 5; i++) /* T10 */
		t[10]++;
	for (i = 0; i < n; i += 3) { /* T11 */
		t[11]++;
		if (i == 6) /* T12 */
			continue;
		if (data[i % 64] & 1) /* T13 */
			t[12]++;
		else /* E13 */
			t[13]++;
	}
	int m = n;
	for (i = 0; i < m; i++) { /* T14 */
		t[14]++;
		if (i == 3) /* T15 */
			m--;
		else /* E15 */
			t[15]++;
	}
	for (i = 0; i < n; i++) { /* T16 */
		t[16]++;
		if (data[i] == 7) /* T17 */
			break;
	}
	for (i = step; i < n * step; i += step) /* T18 */
		t[18]++;
	return s;
}
/* Too many counters for the outer loop to host them in locals (the inner
 * loops host instead): its counter stays in memory, and that is where a
 * count added at entry pays. */
static int crowd(int n)
{
	int s = 0;
	for (int it = 1; it <= n; it += 2) { /* T19 */
		t[19]++;
		for (int a = 0; a < 3; a++) { /* T20 */
			t[20]++;
			if (a & 1)
				s += a;
			else
				s -= 1;
		}
		for (int b = 4; b > 0; b--) { /* T21 */
			t[21]++;
			if (b == 2)
				s *= 2;
			else
				s++;
		}
		if (s > 40)
			s -= 40;
		else
			s += 3;
	}
	return s;
}
/* Loops left by return, goto and break, stepping by 2 and down by 3:
 * counted from their variable (v taken out at entry, put back at every
 * way out, one more when the body leaves). */
static int leave(int n, int target)
{
	int i;
	for (long d = 3; d * d <= n; d += 2) { /* T22 */
		t[22]++;
		if (n % d == 0)
			return (int)d;
	}
	for (i = n; i > 0 && data[i % 64] != 99; i -= 3) { /* T23 */
		t[23]++;
		if (data[i % 64] == target)
			goto out;
		if (data[i % 64] == target + 1)
			break;
	}
	return 0;
out:
	return -i;
}
int main(void)
{
	int s = 0;
	for (int i = 0; i < 64; i++)
		data[i] = (i * 7 + 3) % 9;
	s += work(20, 6, -4, 1);
	s += work(0, 1, 100, 3);
	s += work(13, 0, 0, 2);
	s += crowd(7) + crowd(0);
	s += leave(221, 5) + leave(97, 2) + leave(100, 7) + leave(35, 99) +
	     leave(1, 0);
	printf("%d\n", s);
	for (int i = 0; i < 24; i++)
		printf("t%d %llu\n", i, t[i]);
	return 0;
}
C
# The truth, per marker: the user counter that counts the same thing.
# kind marker counter: loop Tn -> the loop's; then Tn -> the if's then;
# else En -> the if's else (for an else-if, the evaluations of its test,
# which the user code counts as t4 + t6 there).
cat >truth.txt <<'T'
loop T0 0
then T1 1
else T1 2
then T3 3
else T3 4+6
loop T7 7
loop T8 8
loop T9 9
loop T10 10
loop T11 11
then T12 -
then T13 12
else T13 13
loop T14 14
else T15 15
loop T16 16
loop T18 18
loop T19 19
loop T20 20
loop T21 21
loop T22 22
loop T23 23
T
"$INS" -o out d.c 2>notes.txt || fail "rewrite failed: $(cat notes.txt)"
# A trip count is added at entry where the counter stays in memory (the
# crowded outer loop); a host's loops count in their local, which the
# compiler turns into a final-value addition itself.
grep -q '__mpp_c_[0-9a-f]*\[[0-9]*\] += __extension__ ((' out/d.c ||
	fail "expected a trip count added at entry to a counter in memory"
grep -Eq '__mpp_l[0-9]+ \+= __extension__ \(\([a-z0-9_]+\) [<>]' out/d.c &&
	fail "expected no trip count added to a host's local: $(grep -Eo '__mpp_l[0-9]+ \+= __extension__ \(\([a-z0-9_]+\) [<>]' out/d.c | head -1)"
# Loops left by break, return or goto count from their variable.
grep -q '__mpp_l[0-9]* -= __extension__ (unsigned long long)(d)' out/d.c ||
	fail "expected the loop left by return (T22) to count from its variable"
grep -q '__mpp_l[0-9]* += __extension__ (unsigned long long)(i)' out/d.c ||
	fail "expected the loop going down, left by goto and break (T23), to count from its variable"
grep -Eq '__mpp_l[0-9]* - __mpp_l[0-9]*[;)]' out/d.c || fail "expected an else count derived as entries - then"
check_truth d.c
exit 0
