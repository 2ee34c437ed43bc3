# tools.sh: sourced by t-tool-*.sh. Builds one instrumented MPI program
# (two files, compiled by mpipredict-mpicc) linked both ways: prog-ld by
# $(LD) = mpicc (no -lmpipredict: the units load the runtime themselves)
# and prog-cc by mpipredict-mpicc; plain/prog is the uninstrumented build.
# check_row DIR PROG then checks that a run under a tool was counted
# exactly, tagged call site included (which needs the runtime's MPI
# wrappers bound in the same process).
. "$MPP_SRC/tests/instrument/lib.sh"
export PATH=$MPP_BUILD/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# No OpenMPI component may fork helpers under a tool; a singleton needs none.
export OMPI_MCA_plm=isolated OMPI_MCA_btl_vader_single_copy_mechanism=none

mkdir -p src plain
cat >src/main.c <<'C'
#include <mpi.h>
#include <stdio.h>
int work(int n);
int main(int argc, char **argv)
{
	int s;
	MPI_Init(&argc, &argv);
	s = work(6);
	MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("sum %d\n", s);
	MPI_Finalize();
	return 0;
}
C
cat >src/work.c <<'C'
int work(int n);
int work(int n)
{
	int s = 0;
	while (n-- > 0)
		if (n % 2)
			s += n;
	return s;
}
C
# $1: extra flags (sanitizers); the tests that run valgrind pass none.
build_tools_prog() {
	(cd src && mpipredict-mpicc $1 -O1 -g -c main.c -o main.o &&
		mpipredict-mpicc $1 -O1 -g -c work.c -o work.o &&
		mpicc $1 main.o work.o -o ../prog-ld &&
		mpipredict-mpicc $1 main.o work.o -o ../prog-cc) >build.log 2>&1 ||
		fail "the instrumented build fails: $(cat build.log)"
	mpicc $1 -O1 src/main.c src/work.c -o plain/prog || fail "the plain build fails"
	ldd prog-ld | grep -q libmpipredict && fail "expected prog-ld linked without libmpipredict (the test's premise)"
	ldd prog-cc | grep -q libmpipredict || fail "expected prog-cc linked with libmpipredict"
	want=$(plain/prog) || fail "the plain program fails"
	[ "$want" = "sum 9" ] || fail "the plain program printed '$want'"
}

col() { # column-name csv: its value in the last row
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
		END { if (c) print $c; else print "missing" }' "$2"
}

# check_row RUNS_DIR PROG WHAT: the row of one run of PROG, counted exactly.
check_row() {
	local csv=$1/$2.csv
	[ -f "$csv" ] || fail "$3: expected a row in $csv (the run was not counted)"
	[ "$(wc -l <"$csv")" = 2 ] || fail "$3: expected one row in $csv, got $(($(wc -l <"$csv") - 1))"
	# work(6): the loop runs 6 times, its then-branch 3 times (n = 5, 3, 1).
	[ "$(col loop:work.c:5:2.max "$csv")" = 6 ] || fail "$3: expected loop:work.c:5:2.max 6, got $(col loop:work.c:5:2.max "$csv")"
	[ "$(col then:work.c:6:3.max "$csv")" = 3 ] || fail "$3: expected then:work.c:6:3.max 3, got $(col then:work.c:6:3.max "$csv")"
	[ "$(col call:main.c:9:2:MPI_Allreduce.max "$csv")" = 1 ] ||
		fail "$3: expected the Allreduce site tagged once, got $(col call:main.c:9:2:MPI_Allreduce.max "$csv")"
}

# Sanitizer builds (MPP_TEST_CFLAGS) cannot run under valgrind.
skip_if_sanitized() {
	case $CFLAGS_T in
	*sanitize*)
		echo "SKIP: $1 cannot run programs built with sanitizers ($CFLAGS_T)"
		exit 77
		;;
	esac
}
