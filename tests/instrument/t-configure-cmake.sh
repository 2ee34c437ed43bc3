#!/usr/bin/env bash
# The two build systems a centre meets most, driven by the one-word
# wrapper as their C compiler, unchanged otherwise: an autoconf configure
# (generated here by the real autoconf: CC=mpipredict-mpicc ./configure;
# make) and CMake (cmake -DCMAKE_C_COMPILER=mpipredict-mpicc). Both must
# detect the compiler, find MPI, build, print what the plain build prints
# and write a row with the exact loop count.
. "$MPP_SRC/tests/instrument/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PATH=$MPP_BUILD/bin:$PATH

mkdir src
cat >src/main.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 7, s = 0;
	MPI_Init(&argc, &argv);
	for (int i = 0; i < n; i++)
		s += i;
	printf("%d\n", s);
	MPI_Finalize();
	return 0;
}
C
col() { # column-name csv: its value in the last row
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
		END { if (c) print $c; else print "missing" }' "$2"
}
check_run() { # label exe
	got=$(MPIPREDICT_RUNS=runs-$1 "$2" 9 2>err.txt) || fail "$1: $2 exits $?: $(cat err.txt)"
	[ "$got" = 36 ] || fail "$1: expected 36, got '$got'"
	[ "$(col loop:main.c:8:2.max runs-$1/main.csv)" = 9 ] && [ "$(col exit_status runs-$1/main.csv)" = 0 ] ||
		fail "$1: expected loop:main.c:8:2.max 9 and exit_status 0 in runs-$1/main.csv, got: $(head -2 runs-$1/main.csv 2>&1)"
}

ran=0
if command -v autoconf >/dev/null; then
	ran=1
	mkdir ac && cp src/main.c ac/
	cat >ac/configure.ac <<'AC'
AC_INIT([demo], [1.0])
AC_PROG_CC
AC_CHECK_HEADERS([mpi.h], [], [AC_MSG_ERROR([mpi.h not found: CC is no MPI compiler])])
AC_CHECK_FUNC([MPI_Init], [], [AC_MSG_ERROR([MPI_Init does not link])])
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
AC
	printf 'CC = @CC@\nCFLAGS = @CFLAGS@\nmain: main.o\n\t$(CC) $(CFLAGS) main.o -o main\nmain.o: main.c\n\t$(CC) $(CFLAGS) -c main.c\n' >ac/Makefile.in
	(cd ac && autoconf) || fail "autoconf fails"
	(cd ac && CC=mpipredict-mpicc CFLAGS="-O2 $CFLAGS_T" ./configure) >configure.log 2>&1 ||
		{ tail -20 ac/config.log; fail "configure with CC=mpipredict-mpicc fails"; }
	grep -q '^CC = mpipredict-mpicc\( -std=[a-z0-9]*\)\?$' ac/Makefile || fail "expected configure to keep CC=mpipredict-mpicc, got: $(grep "^CC =" ac/Makefile)"
	make -s -C ac >make.log 2>&1 || { cat make.log; fail "make after configure fails"; }
	check_run autoconf ac/main
fi
if command -v cmake >/dev/null; then
	ran=1
	mkdir cm && cp src/main.c cm/
	printf 'cmake_minimum_required(VERSION 3.13)\nproject(demo C)\nadd_executable(main main.c)\n' >cm/CMakeLists.txt
	cmake -S cm -B cm/build -DCMAKE_C_COMPILER=mpipredict-mpicc -DCMAKE_C_FLAGS="$CFLAGS_T" >cmake.log 2>&1 ||
		{ cat cmake.log; fail "cmake -DCMAKE_C_COMPILER=mpipredict-mpicc fails"; }
	grep -q 'C compiler identification is GNU' cmake.log || fail "expected CMake to identify GNU, got: $(grep -i identification cmake.log)"
	cmake --build cm/build >build.log 2>&1 || { cat build.log; fail "cmake --build fails"; }
	check_run cmake cm/build/main
fi
[ $ran = 1 ] || exit 77
exit 0
