#!/usr/bin/env bash
# Else counts the runtime derives instead of the program counting them
# (issue 34). XSBench's cross-section lookup (calculate_micro_xs: an
# if / else-if / else on the grid type at the top of the function, an
# if/else in each branch, an if / else-if / else and an if/else in the
# last one; 16 counters outside any loop) grew past gcc's inlining limit
# with its increments, and the caller's loop paid a call per lookup:
# the training build ran 1.40x the plain build's instructions. An if that
# runs once per pass of a counted block has else = block - then; an
# else-if counted in its condition, `if ((c++, test))`, whose own count
# nothing gives, is then + else of the if it starts. Rewritten here in
# that shape; asserted:
#   - the rewrite keeps 9 increments for the 16 counters and lists 7
#     derivations (mpp_abi.h derived), none in a condition;
#   - every count is exact (checked against the loop's own arithmetic) with
#     the test runtime and in the real runtime's row (mpipredict-mpicc,
#     which reads the counters through the same __mpp_counter_value);
#   - gcc -O3 inlines the lookup into its caller in the rewrite as in the
#     original (no call left to it).
. "$MPP_SRC/tests/instrument/lib.sh"
export PATH=$MPP_BUILD/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_plm=isolated
cat >xs.c <<'C'
#include <mpi.h>
#include <stdio.h>
static long search(const double *g, long n, double e)
{
	long lo = 0, hi = n - 1;
	while (hi - lo > 1) {
		long mid = (lo + hi) / 2;
		if (g[mid] > e)
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}
void lookup(int type, long idx, long n, const double *g, const long *ix,
	    double e, double *out)
{
	long lo;
	if (type == 0) {
		lo = search(g, n, e);
		if (lo == n - 1)
			lo = n - 2;
		else
			lo = lo + 0;
	} else if (type == 1) {
		if (ix[idx] == n - 1)
			lo = n - 2;
		else
			lo = ix[idx];
	} else {
		long u = ix[idx], v;
		if (idx == 5)
			v = n - 1;
		else
			v = ix[idx + 1] + 1;
		if (e <= g[u])
			lo = 0;
		else if (e >= g[v])
			lo = n - 1;
		else
			lo = u;
		if (lo == n - 1)
			lo = n - 2;
		else
			lo = lo + 0;
	}
	*out += (g[lo + 1] - e) / (g[lo + 1] - g[lo]);
}
int main(int argc, char **argv)
{
	double g[8] = {0, 1, 2, 3, 4, 5, 6, 7}, s = 0;
	long ix[7] = {0, 1, 2, 3, 4, 5, 6};
	MPI_Init(&argc, &argv);
	for (int i = 0; i < 600; i++)
		lookup(i % 3, i % 6, 8, g, ix, (i % 9) * 0.75, &s);
	printf("%.4f\n", s);
	MPI_Finalize();
	return 0;
}
C
"$INS" -o out xs.c 2>notes || fail "mpipredict-instrument exited $?: $(cat notes)"
body=$(awk '/^void lookup/,/^}/' out/xs.c)
n=$(printf '%s\n' "$body" | grep -o '__mpp_c_[0-9a-f]*\[[0-9]*\]++' | wc -l)
[ "$n" = 9 ] || fail "expected 9 increments left in lookup (16 counters, 7 derived), got $n: $body"
printf '%s\n' "$body" | grep -q 'if ((__mpp_c' && fail "expected no increment in an else-if's test, got: $body"
dv=$(grep -o '__mpp_dv_[0-9a-f]*\[\] = {[^}]*}' out/xs.c | sed 's/.*{//; s/}//' | tr -d ' ')
[ "$(echo "$dv" | tr ',' '\n' | grep -c .)" = 22 ] ||
	fail "expected 7 derivations (21 numbers and the closing 0), got {$dv}"

# The counts by the program's own arithmetic: i % 3 picks the branch,
# i % 6 the index, (i % 9) * 0.75 the energy.
awk 'BEGIN {
	split("19:2 21:3 25:9 26:3 32:3 36:3 38:8 42:3", at, " ")
	for (k in at) { c["then:xs.c:" at[k]] = 0; c["else:xs.c:" at[k]] = 0 }
	for (i = 0; i < 600; i++) {
		t = i % 3; x = i % 6; e = (i % 9) * 0.75
		if (t == 0) { c["then:xs.c:19:2"]++; lo = int(e); if (lo > 6) lo = 6
			if (lo == 7) c["then:xs.c:21:3"]++; else c["else:xs.c:21:3"]++ }
		else { c["else:xs.c:19:2"]++
			if (t == 1) { c["then:xs.c:25:9"]++
				if (x == 7) c["then:xs.c:26:3"]++; else c["else:xs.c:26:3"]++ }
			else { c["else:xs.c:25:9"]++; u = x
				if (x == 5) { c["then:xs.c:32:3"]++; v = 7 } else { c["else:xs.c:32:3"]++; v = x + 2 }
				if (e <= u) { c["then:xs.c:36:3"]++; lo = 0 }
				else { c["else:xs.c:36:3"]++
					if (e >= v) { c["then:xs.c:38:8"]++; lo = 7 } else { c["else:xs.c:38:8"]++; lo = u } }
				if (lo == 7) c["then:xs.c:42:3"]++; else c["else:xs.c:42:3"]++ } } }
	for (k in c) print k, c[k] }' | sort >want.txt
with_testrt mpicc xs.t out/xs.c ||
	fail "the rewrite does not build with the test runtime"
./xs.t >/dev/null || fail "the rewrite exits $?"
grep -E '^(then|else):xs.c:(19|2[0-9]|3[0-9]|4[0-9]):' counts.txt | sort >got.txt
expect_same "the lookup's counts (test runtime)" want.txt got.txt

# The real runtime's row.
# shellcheck disable=SC2086
mpipredict-mpicc $CFLAGS_T -O2 xs.c -o xs.cc 2>build.err || fail "mpipredict-mpicc fails: $(cat build.err)"
MPIPREDICT_RUNS=runs ./xs.cc >/dev/null || fail "the instrumented program exits $?"
row=$(ls runs/*.csv) || fail "expected a row in runs/"
while read -r name want; do
	got=$(awk -F, -v n="$name.mean" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
		END { print c ? $c : "missing" }' "$row")
	[ "$got" = "$want" ] || fail "row: expected $name.mean $want, got $got"
done <want.txt

# Inlined in the rewrite as in the original.
mpicc -O3 -c xs.c -o plain.o && mpicc -O3 -iquote . -c out/xs.c -o inst.o || fail "-O3 builds fail"
calls() { objdump -dr "$1" | grep -cE 'R_X86_64_PLT32[[:space:]]+lookup'; }
[ "$(calls plain.o)" = 0 ] || { echo "SKIP: this gcc does not inline the original lookup"; exit 77; }
[ "$(calls inst.o)" = 0 ] || fail "expected gcc -O3 to inline the rewritten lookup as it does the original"
exit 0
