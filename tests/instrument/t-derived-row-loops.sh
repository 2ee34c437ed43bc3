#!/usr/bin/env bash
# Row loops counted from their variable (issue 34): hpcg's sparse
# matrix-vector product reads each row's length into a local inside the
# row loop and runs `for (int j = 0; j < len; j++)`; the compiler's own
# count of such a loop costs a comparison and two more instructions per
# row, the loop variable's exit value one addition. In C and in C++, a
# loop from the literal 0 to a bound set in the loop around it counts from
# its variable; not so a bound set outside every loop (the compiler counts
# a whole nest of those), a loop left by break, nor in C++ a loop whose
# body calls a function (it may throw past the count) or a template's
# loop (an operator there may become such a call). Every count must equal
# the program's own, with gcc/g++ and clang/clang++ at -O2 and, in C++,
# also with -fno-exceptions.
. "$MPP_SRC/tests/instrument/lib.sh"

body='
static unsigned long long t[8];
static int lens[40], vals[40 * 8];
static int twice(int v) { return 2 * v; }
static long rows(int nrow, int cap)
{
	long s = 0;
	for (int r = 0; r < nrow; r++) { /* T0 */
		t[0]++;
		const int len = lens[r];
		for (int j = 0; j < len; j++) { /* T1 */
			t[1]++;
			s += vals[r * 8 + j];
		}
		for (int j = 0; j < len; j++) { /* T2 */
			t[2]++;
			if (vals[r * 8 + j] > cap)
				break;
		}
		for (int j = 0; j < len; j++) { /* T3 */
			t[3]++;
			s += twice(j);
		}
	}
	for (int r = 0; r < nrow; r++) /* T4 */
		for (int j = 0; j < cap; j++) { /* T5 */
			t[4]++;
			s -= j;
		}
	return s;
}
'
main='
int main(void)
{
	long s = 0;
	for (int i = 0; i < 40; i++)
		lens[i] = (i * 5 + 1) % 9;
	for (int i = 0; i < 40 * 8; i++)
		vals[i] = (i * 7 + 3) % 11;
	s += rows(40, 6) + rows(0, 3) + rows(7, 0);
	printf("%ld\n", s);
	for (int i = 0; i < 5; i++)
		printf("t%d %llu\n", i, t[i]);
	return 0;
}
'
printf '#include <stdio.h>\n%s%s' "$body" "$main" >rows.c
# The same in C++, with the row loop in a template too (not derived).
printf '#include <cstdio>\n%s%s' "$body" "
template <typename T> static T trows(const T *v, int nrow)
{
	T s = 0;
	for (int r = 0; r < nrow; r++) {
		const int len = lens[r];
		for (int j = 0; j < len; j++)
			s += v[r * 8 + j];
	}
	return s;
}
$(printf '%s' "$main" | sed 's/s += rows(40, 6)/s += trows(vals, 40) + rows(40, 6)/')" >rows.cpp
cat >truth.txt <<'T'
loop T0 0
loop T1 1
loop T2 2
loop T3 3
loop T5 4
T
"$INS" -o out rows.c 2>notes.txt || fail "rewrite of rows.c failed: $(cat notes.txt)"
"$INS" -o out rows.cpp -- -std=c++17 2>notes.txt || fail "rewrite of rows.cpp failed: $(cat notes.txt)"
for f in rows.c rows.cpp; do
	# Only T1 (line 11), and in C T3 too (a call cannot throw in C),
	# count from their variable.
	got=$(grep -o '__mpp_l[0-9]* += __extension__ (unsigned long long)(j)' "out/$f" | wc -l)
	want=$([ $f = rows.c ] && echo 2 || echo 1)
	[ "$got" = "$want" ] ||
		fail "$f: expected $want loops from 0 to a per-row bound counted from their variable, got $got: $(grep -n '(j)' "out/$f" | cut -c1-200)"
	grep -q 'for (int j = 0, __mpp_v[0-9]* __attribute__((__unused__)) = (__mpp_l[0-9]* -= __extension__ (unsigned long long)(j), 0); (j < len)' "out/$f" ||
		fail "$f: expected the row loop T1 counted from its variable: $(grep -n 'j < len' "out/$f" | cut -c1-200)"
	grep -q 'j < cap)' "out/$f" && grep -q 'j < cap) ||' "out/$f" &&
		fail "$f: expected the nest bounded outside every loop (T5) left to the compiler"
done
check_truth rows.c
for cxx in g++ clang++; do
	cc=${cxx%++}
	[ "$cc" = g ] && cc=gcc
	rt=$(testrt_obj "$cc") || exit 1
	for eh in "" -fno-exceptions; do
		# shellcheck disable=SC2086
		$cxx $CFLAGS_T -std=c++17 -O2 $eh -Wall -Wextra -Werror out/rows.cpp "$rt" -o rows.inst ||
			fail "the C++ rewrite does not build with $cxx -O2 $eh -Werror"
		rm -f counts.txt
		./rows.inst >own.txt || fail "$cxx $eh: the rewritten program exits $?"
		truth_holds rows.cpp "$cxx $eh"
	done
done
exit 0
