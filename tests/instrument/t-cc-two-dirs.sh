#!/usr/bin/env bash
# Two files named util.c in two directories of one program, each with its
# own local "local.h":
#  - a recursive make (make -C a, make -C b, each compiling `util.c` from
#    its own directory) must give the two files distinct feature names
#    (a/util.c, b/util.c: relative to the project's root) and the run row
#    must hold both, with the right counts;
#  - one command naming both sources (`mpipredict-cc mpicc a/util.c
#    b/util.c main.c -o prog2`, and `-c` with both) must give each file its
#    own directory for #include "local.h", as the plain compiler does.
. "$MPP_SRC/tests/instrument/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

mkdir -p proj/a proj/b
for d in a b; do
	n=$([ $d = a ] && echo 3 || echo 5)
	printf '#define LOCAL_N %s\n' "$n" >proj/$d/local.h
	cat >proj/$d/util.c <<C
#include "local.h"
int util_$d(void)
{
	int s = 0;
	for (int i = 0; i < LOCAL_N; i++)
		s += i;
	return s;
}
C
	cat >proj/$d/Makefile <<'M'
util.o: util.c local.h
	$(CC) $(CFLAGS) -c util.c -o util.o
M
done
cat >proj/main.c <<'C'
#include <mpi.h>
#include <stdio.h>
int util_a(void);
int util_b(void);
int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	printf("%d %d\n", util_a(), util_b());
	MPI_Finalize();
	return 0;
}
C
cat >proj/Makefile <<'M'
prog: main.c sub
	$(CC) $(CFLAGS) main.c a/util.o b/util.o -o prog
sub:
	$(MAKE) -C a CC="$(CC)" CFLAGS="$(CFLAGS)"
	$(MAKE) -C b CC="$(CC)" CFLAGS="$(CFLAGS)"
.PHONY: sub
M
cp -r proj plain
make -s -C plain CC=mpicc CFLAGS="$CFLAGS_T" >/dev/null 2>&1 || fail "the plain build fails"
want=$(plain/prog)
[ "$want" = "3 10" ] || fail "plain build: expected '3 10', got '$want'"
make -s -C proj CC="$MCC mpicc" CFLAGS="$CFLAGS_T" >build.log 2>&1 || { cat build.log; fail "the mpipredict-cc build fails"; }
mkdir runs
got=$(cd proj && MPIPREDICT_RUNS=$PWD/../runs ./prog) || fail "instrumented prog exits $?"
[ "$got" = "$want" ] || fail "recursive make: expected '$want', got '$got'"
csv=runs/prog.csv
[ -f "$csv" ] || fail "expected a run row in $csv, got: $(ls runs)"
head -1 "$csv" | tr ',' '\n' | sort | uniq -d >dups.txt
[ -s dups.txt ] && fail "expected distinct column names, got twice: $(cat dups.txt)"
col() { # column-name csv: the value in the last row
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
		END { if (c) print $c; else print "missing" }' "$2"
}
for kv in loop:a/util.c:5:2.mean=3 loop:b/util.c:5:2.mean=5; do
	v=$(col "${kv%=*}" "$csv")
	[ "$v" = "${kv#*=}" ] || fail "${kv%=*}: expected ${kv#*=}, got $v (columns: $(head -1 "$csv"))"
done

# MPIPREDICT_SRCROOT sets the root; the path given does not matter.
(cd proj/a && MPIPREDICT_SRCROOT=../.. "$INS" -o ../../rooted util.c 2>/dev/null) || fail "MPIPREDICT_SRCROOT: exit $?"
grep -q "^loop:proj/a/util.c:5:2	" rooted/features.tsv ||
	fail "MPIPREDICT_SRCROOT: expected loop:proj/a/util.c:5:2, got: $(cat rooted/features.tsv)"

# One command, both sources: each must see its own local.h.
(cd plain && mpicc $CFLAGS_T a/util.c b/util.c main.c -o prog2) || fail "plain one-command build fails"
(cd proj && "$MCC" mpicc $CFLAGS_T a/util.c b/util.c main.c -o prog2 2>err.txt) ||
	fail "mpipredict-cc one-command build fails: $(cat proj/err.txt)"
got=$(cd proj && MPIPREDICT_RUNS=$PWD/../runs ./prog2) || fail "prog2 exits $?"
[ "$got" = "$want" ] || fail "one command: expected '$want' (each util.c with its own local.h), got '$got'"
ls "${TMPDIR:-/tmp}" | grep -q '^mpp-cc\.' && fail "temporary directories left behind: $(ls "${TMPDIR:-/tmp}")"
# -c with both: two objects, each from its own header.
mkdir proj/objs && cd proj/objs || exit 1
"$MCC" mpicc $CFLAGS_T -c ../a/util.c ../main.c 2>err.txt || fail "-c with two sources fails: $(cat err.txt)"
[ -f util.o ] && [ -f main.o ] || fail "-c: expected util.o and main.o, got: $(ls)"
nm util.o | grep -q __mpp_register || fail "-c: expected an instrumented util.o"
echo ok
