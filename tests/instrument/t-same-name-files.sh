#!/usr/bin/env bash
# Two files named utils.c in src/ and generator/ of one program whose top
# has no Makefile (a build script runs make in each folder): their
# features must never share a name. In a git checkout they are named from
# its top (src/utils.c, generator/utils.c); outside any checkout the
# runtime tells them apart by build id, and the link by mpipredict-cc
# says so in one line with how to get stable names (MPIPREDICT_SRCROOT,
# which then gives src/utils.c again); the runs say nothing (issue 34:
# a line per rank on every run made outputs differ from the plain build's).
. "$MPP_SRC/tests/instrument/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PATH=$MPP_BUILD/bin:$PATH

mkdir -p proj/src proj/generator
for d in src generator; do
	n=$([ $d = src ] && echo 3 || echo 5)
	cat >proj/$d/utils.c <<C
int utils_$d(void);
int utils_$d(void)
{
	int s = 0;
	for (int i = 0; i < $n; i++)
		s += i;
	return s;
}
C
	printf 'utils.o: utils.c\n\t$(CC) $(SAN) -O2 -c utils.c -o utils.o\n' >proj/$d/Makefile
done
cat >proj/main.c <<'C'
#include <mpi.h>
#include <stdio.h>
int utils_src(void);
int utils_generator(void);
int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	printf("%d %d\n", utils_src(), utils_generator());
	MPI_Finalize();
	return 0;
}
C
cat >proj/build.sh <<'S'
#!/bin/sh
set -e
cd "$(dirname "$0")"
make -s -C src
make -s -C generator
$CC $SAN main.c src/utils.o generator/utils.o -o prog
S
chmod +x proj/build.sh

header() { head -1 "$1" | tr , '\n'; }
build_run() { # label: build and run proj, the row to runs-<label>/prog.csv
	rm -f proj/*/utils.o proj/prog
	(export CC=mpipredict-mpicc SAN="$CFLAGS_T"; proj/build.sh) >build.log 2>&1 || { cat build.log; fail "$1: build fails"; }
	got=$(cd proj && MPIPREDICT_RUNS=../runs-$1 ./prog 2>../err-$1.txt) || fail "$1: prog exits $?"
	[ "$got" = "3 10" ] || fail "$1: expected '3 10', got '$got'"
	[ -f runs-$1/prog.csv ] || fail "$1: expected a row, got: $(cat err-$1.txt)"
	header runs-$1/prog.csv | sort | uniq -d >dups.txt
	[ -s dups.txt ] && fail "$1: expected distinct columns, got twice: $(cat dups.txt)"
	header runs-$1/prog.csv | grep '^loop:' | sort >loops-$1.txt
	[ "$(wc -l <loops-$1.txt)" = 4 ] || fail "$1: expected the two loops' .mean and .max, got: $(cat loops-$1.txt)"
}

# Outside a checkout: told apart at run time, and said so once.
build_run plain
grep -q '^loop:utils.c@[0-9a-f]\{8\}:5:2.mean$' loops-plain.txt ||
	fail "plain: expected loop:utils.c@<build id>:5:2 columns, got: $(cat loops-plain.txt)"
n=$(grep -c 'mpipredict-cc: .*both named utils.c.*MPIPREDICT_SRCROOT' build.log)
[ "$n" = 1 ] || fail "plain: expected the link to say in one line that two files are named utils.c, naming MPIPREDICT_SRCROOT, got: $(cat build.log)"
[ -s err-plain.txt ] && fail "plain: expected nothing on stderr at run time, got: $(cat err-plain.txt)"

# MPIPREDICT_SRCROOT at build time: names relative to it.
MPIPREDICT_SRCROOT=$PWD/proj build_run srcroot
printf '%s\n' loop:generator/utils.c:5:2.max loop:generator/utils.c:5:2.mean \
	loop:src/utils.c:5:2.max loop:src/utils.c:5:2.mean >want.txt
cmp -s want.txt loops-srcroot.txt || fail "srcroot: expected $(cat want.txt), got $(cat loops-srcroot.txt)"
[ -s err-srcroot.txt ] && fail "srcroot: expected nothing on stderr, got: $(cat err-srcroot.txt)"
grep -q 'both named' build.log && fail "srcroot: expected no same-name line from the build, got: $(cat build.log)"

# A git checkout: names from its top, no variable needed.
if command -v git >/dev/null; then
	git init -q proj
	build_run git
	cmp -s want.txt loops-git.txt || fail "git: expected $(cat want.txt), got $(cat loops-git.txt)"
fi
exit 0
