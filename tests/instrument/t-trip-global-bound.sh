#!/usr/bin/env bash
# Loops bounded by globals (issue 34): miniAMR's stencil sweeps read
#     for (k = 1; k <= z_block_size; k++) work[i][j][k] = ...;
# with the block sizes globals, set from the command line. A global, unlike
# a local, may be changed by any call and by a store through an integer
# lvalue; a body with neither (stores of doubles, of named variables)
# leaves it as it was (C11 6.5p7), and the count is known at entry. Such
# loops were counted from their variable at every exit, about 9
# instructions per entry of a k-loop run 6-12 times.
# Asserted, on a program with the shapes (built with gcc -O3 and clang -O3
# against the test runtime; every count is the program's own, which counts
# each loop's passes in plain variables):
#   - the stencil's nests, i, j and k loops bounded by globals with each
#     k loop the whole body of its j loop and each j loop that of its i
#     loop: the k loop's count is added once per i loop (its count times
#     j's times i's), in the host's local, and nothing counts in the k
#     loop nor at the j loop's entry; a k loop beside another statement, one bounded
#     by the j loop's variable, and a loop bounded by a static local get
#     their counts at their own entry, no increment left in their bodies
#     (gcc did not fold the increment in miniAMR);
#   - a loop bounded by a global whose body calls a function that changes
#     it, and one whose body stores through a pointer to it, are counted
#     from the loop variable, and their counts are right;
#   - a loop of many counters (no host) bounded by a global gets its count
#     added at entry, with no increment left in its body; the same loop
#     storing through an `int *` to its bound keeps its increment, and
#     both counts are right.
. "$MPP_SRC/tests/instrument/lib.sh"
cat >g.c <<'C'
#include <stdio.h>
int x_size, y_size, z_size, n_blocks;
static int shrink_at = 3;
static long n_cell, n_copy, n_call, n_ptr, n_static, n_block, n_block_ptr, n_row, n_tri;
static double a[10][10][40], w[10][10][40], v[64];
static void shrink(void) { z_size--; }
static void stencil(void)
{
	int i, j, k;
	for (i = 1; i <= x_size; i++)
		for (j = 1; j <= y_size; j++)
			for (k = 1; k <= z_size; k++) {
				w[i][j][k] = (a[i][j][k - 1] + a[i][j][k] + a[i][j][k + 1]) / 3.0;
				n_cell++;
			}
	for (i = 1; i <= x_size; i++)
		for (j = 1; j <= y_size; j++)
			for (k = 1; k <= z_size; k++) {
				a[i][j][k] = w[i][j][k];
				n_copy++;
			}
}
static void rows(void)
{
	for (int j = 0; j < y_size; j++) {
		n_row += j;
		for (int k = 0; k < z_size; k++)
			w[1][j][k] = 0.5 * a[1][j][k];
	}
	for (int j = 0; j < y_size; j++)
		for (int k = 0; k < j; k++) {
			w[2][j][k] = a[2][j][k];
			n_tri++;
		}
}
static void calls(void)
{
	for (int k = 0; k < z_size; k++) {
		n_call++;
		if (k == shrink_at)
			shrink();
	}
}
static void through(int *p)
{
	for (int k = 0; k < z_size; k++) {
		n_ptr++;
		if (k == 2)
			*p -= 1;
	}
}
static void statics(void)
{
	static int lim = 5;
	for (int k = 0; k < lim; k++)
		n_static++;
	lim++;
}
/* Seven counters inside: more than a host keeps. */
static void blocks(void)
{
	for (int b = 0; b < n_blocks; b++) {
		n_block++;
		for (int q = 0; q < 8; q++) {
			double s = v[(b + q) & 63];
			if (s > 0.5) v[q] += 0.25; else v[q] -= 0.25;
			if (s > 0.75) v[q + 8] += 1; else v[q + 8] -= 0.5;
			if (s < 0.1) v[q + 16] *= 0.5; else v[q + 16] += 0.1;
		}
	}
}
static void blocks_ptr(int *p)
{
	for (int b = 0; b < n_blocks; b++) {
		n_block_ptr++;
		if (b == 1)
			*p -= 1;
		for (int q = 0; q < 8; q++) {
			double s = v[(b + q) & 63];
			if (s > 0.5) v[q] += 0.25; else v[q] -= 0.25;
			if (s > 0.75) v[q + 8] += 1; else v[q + 8] -= 0.5;
			if (s < 0.1) v[q + 16] *= 0.5; else v[q + 16] += 0.1;
		}
	}
}
int main(int argc, char **argv)
{
	(void)argv;
	x_size = 6 + argc, y_size = 5, z_size = 30;
	for (int i = 0; i < 10; i++)
		for (int j = 0; j < 10; j++)
			for (int k = 0; k < 40; k++)
				a[i][j][k] = i + 0.5 * j + 0.25 * k;
	for (int q = 0; q < 64; q++)
		v[q] = (q * 37 % 64) / 64.0;
	for (int it = 0; it < 20; it++) {
		stencil();
		rows();
		calls();
		through(&z_size);
		statics();
		n_blocks = 4 + it % 5;
		blocks();
		blocks_ptr(&n_blocks);
	}
	printf("%.6f %.6f\n", a[3][3][3], v[5]);
	printf("cell %ld\ncopy %ld\ncall %ld\nptr %ld\nstatic %ld\nblock %ld\nblock_ptr %ld\ntri %ld\n",
	       n_cell, n_copy, n_call, n_ptr, n_static, n_block, n_block_ptr, n_tri);
	return 0;
}
C
"$INS" -o out g.c 2>notes || fail "mpipredict-instrument exited $?: $(cat notes)"
line() { grep -n -- "$2" "$1" | head -1 | cut -d: -f1; }
has() { # FILE LINE PATTERN: the line holds the pattern
	sed -n "$2p" "$1" | grep -Eq -- "$3"
}
iv='__mpp_v[0-9]+ __attribute__'
inc='__mpp_(c_[0-9a-f]*\[[0-9]*\]|l[0-9]+)\+\+'
trip='\+= __extension__ \(\(' # TRIP: ((v) OP (B) ? ... : 0)
# the stencil's k loops: the whole body of their j loop, itself the whole
# body of its i loop: counted at the i loop's entry
p='k <= z_size; k++) {'
for l in $(grep -n -- "$p" out/g.c | cut -d: -f1); do
	has out/g.c "$((l - 2))" "$trip.* \* \(\(.* \* \(\(" ||
		fail "expected the count of the loop '$p' added at the entry of the i loop around its j loop (three counts multiplied), got: $(sed -n "$((l - 2))p" out/g.c)"
	has out/g.c "$((l - 1))" "$trip" &&
		fail "expected nothing added at the entry of the j loop around '$p', got: $(sed -n "$((l - 1))p" out/g.c)"
	sed -n "$l,$((l + 1))p" out/g.c | grep -Eq "$inc|$iv" &&
		fail "expected no count in or at the loop '$p' itself, got: $(sed -n "$l,$((l + 1))p" out/g.c)"
done
# a loop bounded by a static local; a k loop beside another statement in
# its j loop; one whose bound is the j loop's variable: each its own
for p in 'k < lim' 'k < z_size; k++)$' 'k < j; k++) {'; do
	l=$(line out/g.c "$p")
	has out/g.c "$l" "$trip" && ! has out/g.c "$l" "$iv" ||
		fail "expected the loop '$p' counted at its own entry, got: $(sed -n "${l}p" out/g.c)"
	has out/g.c "$((l + 1))" "$inc" && fail "expected no increment in the body of the loop '$p', got: $(sed -n "$l,$((l + 1))p" out/g.c)"
done
for f in calls through; do
	l=$(($(line out/g.c "^static void $f") + 2))
	has out/g.c "$l" "$iv" || fail "expected the loop of $f() counted from its variable, got: $(sed -n "${l}p" out/g.c)"
done
l=$(($(line out/g.c '^static void blocks(void)') + 2))
has out/g.c "$l" "$trip" || fail "expected the count of blocks()' loop added at entry, got: $(sed -n "${l}p" out/g.c)"
has out/g.c "$((l + 1))" "$inc" && fail "expected no increment in the body of blocks()' loop, got: $(sed -n "$l,$((l + 1))p" out/g.c)"
l=$(($(line out/g.c '^static void blocks_ptr') + 2))
has out/g.c "$l" "$trip" && fail "expected blocks_ptr()' loop (a store through int *) not counted at entry, got: $(sed -n "${l}p" out/g.c)"
for cc in gcc clang; do
	run_both "$cc" g -O3
	for x in "cell 'k <= z_size; k++) {'" "call 'k < z_size; k++) {'" "static 'k < lim'" \
	    "block 'b < n_blocks; b++) {'" "tri 'k < j; k++) {'"; do
		p=${x#* }
		loop_counted g.c "${x%% *}" "$(line g.c "${p//\'/}")" "$cc"
	done
	loop_counted g.c copy "$(($(line g.c 'a\[i\]\[j\]\[k\] = w') - 1))" "$cc"
	loop_counted g.c ptr "$(($(line g.c '^static void through') + 2))" "$cc"
	loop_counted g.c block_ptr "$(($(line g.c '^static void blocks_ptr') + 2))" "$cc"
done
exit 0
