#!/usr/bin/env bash
# A count flushed where a function returns from inside its loop reaches
# memory while the program runs, also when the compiler inlines that
# function into a call-free nest of its caller (prime's trial division,
# tests/apps/prime.c, in a smaller program): a running job's progress
# reads it there (issue 37). gdb attaches to the program in that nest and
# reads the unit's counter array: the divisor loop's count must be above
# 0. A plain `+=` at the return fails this (GCC then keeps the slot in a
# register until the nest ends: 0); instrument/README.md, "Hot loops".
# Skipped where gdb is missing or may not attach (ptrace).
. "$MPP_SRC/tests/instrument/tools.sh"
command -v gdb >/dev/null || { echo "SKIP: gdb is not installed (Debian package gdb)"; exit 77; }
cat >nest.c <<'C'
#include <mpi.h>
#include <stdio.h>

static int composite(long n)
{
	for (long d = 3; d * d <= n; d += 2)
		if (n % d == 0)
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	long hits = 0;
	MPI_Init(&argc, &argv);
	printf("in the nest\n");
	fflush(stdout);
	/* Minutes of work: the test stops it once it has read the count. */
	for (long r = 0; r < 100000; r++)
		for (long c = 3; c < 2000000; c += 2)
			hits += composite(c);
	printf("%ld\n", hits);
	MPI_Finalize();
	return 0;
}
C
# shellcheck disable=SC2086
mpipredict-mpicc $CFLAGS_T -O2 -o nest nest.c >build.log 2>&1 || fail "the instrumented build fails: $(cat build.log)"
sym=$(nm nest | awk '$3 ~ /^__mpp_c_/ { print $3; exit }')
[ -n "$sym" ] || fail "expected the unit's counter array in nest's symbols: $(nm nest | grep __mpp | head)"
ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 MPIPREDICT_RUNS=runs ./nest >out.txt 2>&1 &
pid=$!
trap 'kill -9 $pid 2>/dev/null' EXIT
for _ in $(seq 300); do
	grep -q '^in the nest$' out.txt && break
	kill -0 $pid 2>/dev/null || fail "the program ended before its nest: $(cat out.txt)"
	sleep 0.1
done
grep -q '^in the nest$' out.txt || fail "the program did not reach its nest in 30 s: $(cat out.txt)"
sleep 1
gdb -q -nx -batch -p $pid -ex "print (unsigned long long[2])$sym" >gdb.out 2>&1 </dev/null
if ! grep -q '^\$1 = ' gdb.out; then
	grep -qi 'ptrace' gdb.out && { echo "SKIP: gdb may not attach here: $(grep -i ptrace gdb.out | head -1)"; exit 77; }
	fail "expected gdb to print the counters: $(cat gdb.out)"
fi
kill -0 $pid 2>/dev/null || fail "the program left its nest before gdb read it (the test's premise): $(cat out.txt)"
# The unit's first counter is composite's loop (the file's first loop).
loops=$(sed -n 's/^\$1 = {\([0-9]*\),.*/\1/p' gdb.out)
[ -n "$loops" ] && [ "$loops" -gt 0 ] ||
	fail "expected composite's loop count in memory while the nest runs (above 0), got '$loops': $(cat gdb.out)"
echo "composite's loop count read while the nest runs: $loops"
