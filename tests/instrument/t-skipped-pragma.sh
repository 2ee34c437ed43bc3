#!/usr/bin/env bash
# A pragma in text an #if excluded is no pragma (issue 34): hpcg's SPMV
# row loop follows `#ifndef HPCG_NO_OPENMP / #pragma omp parallel for /
# #endif`; built with HPCG_NO_OPENMP it kept its counter in memory, stored
# on every row, as if the pragma had to stay right before the loop. Built
# so, the loop now keeps its counts in locals (a host); built with OpenMP,
# the pragma is real and stays right before the loop, which keeps plain
# counters. Both rewrites compile with -Werror and count the same.
. "$MPP_SRC/tests/instrument/lib.sh"
cat >spmv.c <<'C'
#include <stdio.h>
static void spmv(int n, const int *nnz, const double *v, double *y)
{
#ifndef NO_OMP
#pragma omp parallel for
#endif
	for (int i = 0; i < n; i++) {
		double s = 0;
		for (int j = 0; j < nnz[i]; j++)
			s += v[i * 4 + j];
		y[i] = s;
	}
}
int main(void)
{
	int nnz[3] = {1, 4, 2};
	double v[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, y[3];
	spmv(3, nnz, v, y);
	printf("%g %g %g\n", y[0], y[1], y[2]);
	return 0;
}
C
"$INS" -o off spmv.c -- -DNO_OMP 2>notes-off.txt || fail "rewrite with -DNO_OMP exits $?: $(cat notes-off.txt)"
grep -q '__mpp_l[0-9]* = 0.*; for (int i = 0; i < n; i++)' off/spmv.c ||
	fail "-DNO_OMP: expected the row loop to keep its counts in locals, got: $(grep -n 'for (int i' off/spmv.c)"
"$INS" -o on spmv.c -- -fopenmp 2>notes-on.txt || fail "rewrite with -fopenmp exits $?: $(cat notes-on.txt)"
grep -B1 'for (int i = 0; i < n; i++)' on/spmv.c | head -1 | grep -q '^#endif' ||
	fail "-fopenmp: expected the loop right after the pragma's block, got: $(grep -n -B2 'for (int i' on/spmv.c)"
grep -q '__mpp_l[0-9]* = 0.*; for (int i = 0; i < n; i++)' on/spmv.c &&
	fail "-fopenmp: expected no host around the OpenMP loop"
for v in off on; do
	flags=-DNO_OMP
	[ $v = on ] && flags=-fopenmp
	with_testrt gcc "$v.bin" "$v/spmv.c" -iquote . -Wall -Wextra -Werror $flags ||
		fail "$v: the rewrite does not build with -Werror"
	# One thread: the counters are plain adds, and two threads of the
	# OpenMP build racing on one lost counts (7 became 5 on 2 cores).
	OMP_NUM_THREADS=1 ./"$v.bin" >"$v.out" || fail "$v: exits $?"
	[ "$(cat "$v.out")" = "1 26 19" ] || fail "$v: expected '1 26 19', got $(cat "$v.out")"
	sort counts.txt >"counts-$v.txt"
done
cmp -s counts-off.txt counts-on.txt || fail "expected the same counts both ways: $(diff counts-off.txt counts-on.txt)"
grep -q . counts-off.txt || fail "expected counts from the runs"
exit 0
