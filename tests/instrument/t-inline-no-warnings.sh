#!/usr/bin/env bash
# The rewriter adds no warning to the user's code under -Wall -Wextra
# (issue 34: "'__mpp_c_...' is static but used in inline function 'f'
# which is not static", 25 times in one code, broke its -Werror build):
# C `inline` functions without `static`, in the file and in a project
# header, with a loop, a branch and an MPI call, built with gcc and clang
# at -O0 and -O2 with -Wall -Wextra -Wmissing-prototypes -Werror as the
# plain build is; the program prints what the plain one prints, nothing
# on stderr, and counts exactly.
. "$MPP_SRC/tests/instrument/lib.sh"
export PATH=$MPP_BUILD/bin:$PATH
mkdir proj && cd proj || exit 1
: >Makefile
cat >util.h <<'C'
#include <mpi.h>
inline int sum_odd(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		if (i % 2)
			s += i;
	return s;
}
inline void share(int *v, MPI_Comm c)
{
	MPI_Bcast(v, 1, MPI_INT, 0, c);
}
C
cat >util.c <<'C'
#include "util.h"
extern int sum_odd(int n);
extern void share(int *v, MPI_Comm c);
C
cat >main.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include "util.h"
inline __attribute__((always_inline)) int twice(int n)
{
	int s = 0;
	while (n-- > 0)
		s += 2;
	return s;
}
inline int thrice(int n)
{
	MPI_Barrier(MPI_COMM_WORLD);
	return 3 * n;
}
extern int thrice(int n);
int main(int argc, char **argv)
{
	int v = 3;
	MPI_Init(&argc, &argv);
	share(&v, MPI_COMM_WORLD);
	printf("%d %d %d %d\n", sum_odd(10), v, twice(4), thrice(2));
	MPI_Finalize();
	return 0;
}
C
W="-std=c11 -Wall -Wextra -Wmissing-prototypes -Werror"
col() { # column-name csv: its value in the last row
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
		END { if (c) print $c; else print "missing" }' "$2"
}
# Under SANITIZE=1 the runtime carries gcc's ASan runtime, which a
# clang-built program's own cannot share: gcc only there.
ccs="gcc clang"
case $CFLAGS_T in *sanitize*) ccs=gcc ;; esac
for cc in $ccs; do
	for o in -O0 -O2; do
		t="$cc $o"
		# shellcheck disable=SC2086
		OMPI_CC=$cc mpicc $W $o $CFLAGS_T main.c util.c -o plain 2>plain.err ||
			fail "$t: the plain build fails (the test's premise): $(cat plain.err)"
		# shellcheck disable=SC2086
		OMPI_CC=$cc mpipredict-mpicc $W $o $CFLAGS_T main.c util.c -o prog 2>build.err ||
			fail "$t: the instrumented build fails under -Werror: $(head -5 build.err)"
		[ -s build.err ] && fail "$t: expected a quiet build, got: $(head -5 build.err)"
		want=$(./plain) || fail "$t: the plain program fails"
		rm -rf runs
		got=$(MPIPREDICT_RUNS=runs ./prog 2>run.err) || fail "$t: the program exits $?: $(cat run.err)"
		[ "$got" = "$want" ] || fail "$t: expected '$want', got '$got'"
		[ -s run.err ] && fail "$t: expected nothing on stderr, got: $(cat run.err)"
		csv=runs/prog.csv
		for c in loop:util.h:5:2=10 then:util.h:6:3=5 call:util.h:12:2:MPI_Bcast=1 \
			loop:main.c:7:2=4 call:main.c:13:2:MPI_Barrier=1; do
			[ "$(col "${c%=*}.max" $csv)" = "${c#*=}" ] ||
				fail "$t: expected ${c%=*} ${c#*=}, got $(col "${c%=*}.max" $csv)"
		done
	done
done
exit 0
