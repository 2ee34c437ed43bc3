#!/usr/bin/env bash
# Loops and macros (issue 34: hundreds of "not instrumented" notes on real
# codes): a loop whose keyword comes from a macro defined in the file
# (ITERATE_CELLS(c, n) { ... }) is counted exactly; the `do { ... }
# while (0)` of a statement macro (TIMED) is not a loop to count and gets
# no note, nor does assert's if (a system macro); a loop written inside a macro's argument or body gets a note
# that says how to get it counted, and doing what it says (the loop in a
# function the macro calls) counts it. gcc and clang, -Wall -Wextra.
# A loop whose head is a whole macro (ITERATE_CELLS: `for (...)` and
# nothing else) keeps its counts in a local like a written loop (a host
# around the invocation and the body); not one whose macro does more
# before the loop (AFTER_RESET).
. "$MPP_SRC/tests/instrument/lib.sh"
cat >m.c <<'C'
#include <assert.h>
#include <stdio.h>
static double now(void) { return 1.0; }
#define TIMED(t, stmt) do { double t0_ = now(); stmt; (t) += now() - t0_; } while (0)
#define ITERATE_CELLS(c, n) for ((c) = 0; (c) < (n); (c)++)
#define SUM_TO(s, n) for (int k_ = 0; k_ < (n); k_++) (s) += k_
static int work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += i;
	return s;
}
int main(void)
{
	double t = 0;
	int s = 0, c;
	TIMED(t, for (int i = 0; i < 5; i++) { s += i; });
	TIMED(t, s += work(7));
	ITERATE_CELLS(c, 4) {
		s++;
	}
	SUM_TO(s, 6);
	assert(s > 0);
	printf("%d %g\n", s, t);
	return 0;
}
C
"$INS" -o out m.c 2>notes.txt || fail "mpipredict-instrument exits $?: $(cat notes.txt)"
grep -q 'loop body of do' notes.txt && fail "expected no note for TIMED's do-while(0), got: $(cat notes.txt)"
n=$(grep -c 'not instrumented' notes.txt)
[ "$n" = 2 ] || fail "expected 2 notes (the loop in TIMED's argument, SUM_TO's loop; none for assert), got: $(cat notes.txt)"
grep -q '^m.c:18: not instrumented: .*macro TIMED (to count it, .*function the macro calls)' notes.txt ||
	fail "expected the note for line 18 to say how to count the loop, got: $(cat notes.txt)"
grep -q '^m.c:23: not instrumented: loop body of for inside macro SUM_TO (to count it' notes.txt ||
	fail "expected the note for SUM_TO to say how to count it, got: $(cat notes.txt)"
cat >want.counts <<'T'
loop:m.c:20:2 4
loop:m.c:10:2 7
T
for cc in gcc clang; do
	$cc -Wall -Wextra -Werror -c out/m.c -o /dev/null || fail "the rewrite warns or fails with $cc -Wall -Wextra -Werror"
	with_testrt "$cc" orig m.c || fail "the original does not build with $cc"
	with_testrt "$cc" inst out/m.c || fail "the rewrite does not link with $cc"
	./orig >want.out || fail "the original exits $?"
	rm -f counts.txt
	./inst >got.out || fail "the rewrite exits $? ($cc)"
	expect_same "output ($cc)" want.out got.out
	grep -v "^unattributed 0$" counts.txt | sort >got.counts
	sort want.counts >want.sorted
	expect_same "counts ($cc)" want.sorted got.counts
done

cat >h.c <<'C'
#include <stdio.h>
#define ITERATE_CELLS(c, n) for ((c) = 0; (c) < (n); (c)++)
#define AFTER_RESET(c, n) (c) = 0; for ((c) = 0; (c) < (n); (c)++)
int main(void)
{
	int s = 0, c;
	ITERATE_CELLS(c, 9) {
		s += c;
	}
	AFTER_RESET(c, 5) {
		s -= c;
	}
	printf("%d\n", s);
	return 0;
}
C
"$INS" -o out h.c 2>notes.txt || fail "mpipredict-instrument exits $? on h.c: $(cat notes.txt)"
grep -q '__mpp_l[0-9]* = 0; ITERATE_CELLS(c, 9)' out/h.c ||
	fail "expected ITERATE_CELLS' loop to keep its count in a local, got: $(grep -n 'ITERATE_CELLS(c' out/h.c)"
grep -q '__mpp_l[0-9]* = 0; AFTER_RESET' out/h.c &&
	fail "expected no host around AFTER_RESET (its macro does more than a loop head), got: $(grep -n 'AFTER_RESET(c' out/h.c)"
printf 'loop:h.c:10:2 5\nloop:h.c:7:2 9\n' >want.counts
for cc in gcc clang; do
	$cc -Wall -Wextra -Werror -c out/h.c -o /dev/null || fail "h.c's rewrite warns or fails with $cc -Wall -Wextra -Werror"
	run_both "$cc" h
	grep -v "^unattributed 0$" counts.txt | sort >got.counts
	expect_same "h.c counts ($cc)" want.counts got.counts
done
exit 0
