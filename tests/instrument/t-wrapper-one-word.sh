#!/usr/bin/env bash
# One-word compiler wrappers (issue 14): a Makefile that prints
# `which $(CC)` into a header must get one path with CC=mpipredict-mpicc,
# and the build must count as with `mpipredict-cc mpicc`. The named
# wrappers pass --version to the compiler (configure and CMake ask it);
# --mpipredict-version is ours. Any compiler by a link's name
# (mpipredict-<compiler>) or by MPIPREDICT_CC.
. "$MPP_SRC/tests/instrument/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PATH=$MPP_BUILD/bin:$PATH

mkdir proj
cat >proj/main.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include "compiler.h"
int main(int argc, char **argv)
{
	int s = 0;
	MPI_Init(&argc, &argv);
	for (int i = 0; i < 10; i++)
		s += i;
	printf("built by %s: %d\n", COMPILER, s);
	MPI_Finalize();
	return 0;
}
C
cat >proj/Makefile <<'M'
prog: main.c compiler.h
	$(CC) $(SAN) -O2 main.c -o prog
compiler.h:
	echo "#define COMPILER \"$$(which $(CC))\"" >compiler.h
M
make -s -C proj CC=mpipredict-mpicc SAN="$CFLAGS_T" >build.log 2>&1 || { cat build.log; fail "the CC=mpipredict-mpicc build fails"; }
want="#define COMPILER \"$MPP_BUILD/bin/mpipredict-mpicc\""
[ "$(cat proj/compiler.h)" = "$want" ] || fail "expected compiler.h '$want', got '$(cat proj/compiler.h)'"
out=$(cd proj && MPIPREDICT_RUNS=../runs ./prog) || fail "prog exits $?"
[ "$out" = "built by $MPP_BUILD/bin/mpipredict-mpicc: 45" ] || fail "unexpected output '$out'"
csv=runs/prog.csv
[ -f $csv ] || fail "expected a row in $csv, got: $(ls -R runs 2>&1)"
col() { # column-name: its value in the last row
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
		END { if (c) print $c; else print "missing" }' $csv
}
[ "$(col loop:main.c:8:2.max)" = 10 ] || fail "expected loop:main.c:8:2.max 10, got $(col loop:main.c:8:2.max) in $(head -1 $csv)"

# --version and --help are the compiler's; ours under --mpipredict-*.
[ "$(mpipredict-mpicc --version 2>&1)" = "$(mpicc --version 2>&1)" ] ||
	fail "expected mpipredict-mpicc --version to print mpicc's, got $(mpipredict-mpicc --version 2>&1 | head -1)"
mpipredict-mpicc --mpipredict-version | grep -q '^mpipredict-mpicc [0-9]' ||
	fail "expected --mpipredict-version to print ours under its own name"
mpipredict-mpicc --mpipredict-help | grep -q 'mpipredict-<compiler>' ||
	fail "expected --mpipredict-help to describe the named wrappers"
mpipredict-cc --help | grep -q 'mpipredict-<compiler>' || fail "expected mpipredict-cc --help to describe the named wrappers"

# Any compiler: a link named mpipredict-<compiler>; MPIPREDICT_CC wins.
mkdir bin
ln -s "$MPP_BUILD/bin/mpipredict-cc" bin/mpipredict-gcc
ln -s "$MPP_BUILD/bin/mpipredict-cc" bin/mpipredict-mycc
printf 'int main(void)\n{\n\tint s = 0;\n\tfor (int i = 0; i < 3; i++)\n\t\ts++;\n\treturn s - 3;\n}\n' >plain.c
bin/mpipredict-gcc $CFLAGS_T -v plain.c -o plain 2>gcc.log || fail "mpipredict-gcc fails: $(tail -3 gcc.log)"
grep -q 'gcc version' gcc.log || fail "expected mpipredict-gcc to run gcc"
./plain || fail "plain built by mpipredict-gcc exits $?"
bin/mpipredict-mycc -c plain.c 2>err.txt && fail "expected mpipredict-mycc to fail: no compiler mycc"
grep -q 'mycc' err.txt || fail "expected the error to name mycc, got: $(cat err.txt)"
MPIPREDICT_CC=mpicc bin/mpipredict-mycc $CFLAGS_T -c "$MPP_SRC/tests/apps/prime.c" -o prime.o 2>err.txt ||
	fail "MPIPREDICT_CC=mpicc mpipredict-mycc fails: $(cat err.txt)"
nm prime.o | grep -q '__mpp_register' || fail "expected prime.o to be instrumented"
exit 0
