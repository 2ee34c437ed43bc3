#!/usr/bin/env bash
# A Makefile that compiles with $(CC) = mpipredict-mpicc and links with
# $(LD) = mpicc (no -lmpipredict) must link, and its runs must count as
# those of a program linked by mpipredict-cc (the units find the runtime
# missing and load it with dlopen): same output at 1
# and 2 ranks, exact counts, the user's own LD_PRELOAD seen unchanged by
# the program. When the runtime cannot be found either: the program runs
# as usual and one line names mpipredict and the fix.
. "$MPP_SRC/tests/instrument/lib.sh"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export PATH=$MPP_BUILD/bin:$PATH

mkdir proj
cat >proj/main.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
int work(int n);
int main(int argc, char **argv)
{
	int r, s = 0;
	const char *p;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &r);
	s = work(6);
	MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	p = getenv("LD_PRELOAD");
	if (r == 0)
		printf("sum %d preload [%s]\n", s, p ? p : "unset");
	MPI_Finalize();
	return 0;
}
C
cat >proj/work.c <<'C'
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
cat >proj/Makefile <<'M'
LD = mpicc
OBJS = main.o work.o
prog: $(OBJS)
	$(LD) $(SAN) $(OBJS) -o prog
%.o: %.c
	$(CC) $(SAN) -O2 -c $< -o $@
M
cp -r proj plain
make -s -C plain CC=mpicc SAN="$CFLAGS_T" >/dev/null 2>&1 || fail "the plain build fails"
make -C proj CC=mpipredict-mpicc SAN="$CFLAGS_T" >build.log 2>&1 || { cat build.log; fail "the build with LD=mpicc fails"; }
grep -q '^mpicc .*-o prog' build.log || fail "expected the link by \$(LD), got: $(cat build.log)"
ldd proj/prog | grep -q libmpipredict && fail "expected prog linked without libmpipredict (the test's premise)"

col() { # column-name csv: its value in the last row
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
		END { if (c) print $c; else print "missing" }' "$2"
}
for np in 1 2; do
	want=$(cd plain && mpirun -np $np ./prog 2>/dev/null)
	got=$(cd proj && MPIPREDICT_RUNS=../runs$np mpirun -np $np ./prog 2>err.txt) ||
		fail "$np ranks: prog exits $?: $(cat proj/err.txt)"
	[ "$got" = "$want" ] || fail "$np ranks: expected '$want', got '$got'"
	[ -s proj/err.txt ] && fail "$np ranks: expected nothing on stderr, got: $(cat proj/err.txt)"
	csv=runs$np/prog.csv
	[ -f $csv ] || fail "$np ranks: expected a row in $csv"
	# work(6): the loop runs 6 times, its then-branch 3 times (n = 5, 3, 1).
	[ "$(col loop:work.c:5:2.max $csv)" = 6 ] || fail "$np ranks: expected loop:work.c:5:2.max 6, got $(col loop:work.c:5:2.max $csv)"
	[ "$(col then:work.c:6:3.mean $csv)" = 3 ] || fail "$np ranks: expected then:work.c:6:3.mean 3, got $(col then:work.c:6:3.mean $csv)"
	[ "$(col call:main.c:12:2:MPI_Allreduce.max $csv)" = 1 ] ||
		fail "$np ranks: expected the Allreduce site tagged once, got $(col call:main.c:12:2:MPI_Allreduce.max $csv)"
	[ "$(col nprocs $csv)" = $np ] || fail "expected nprocs $np"
done

# Full RELRO (-z now, as hardened builds link): the GOT the runtime
# rebinds is read-only by then; the run must still be counted, tags too.
(cd proj && mpicc $CFLAGS_T -Wl,-z,now,-z,relro main.o work.o -o prog-now) || fail "the -z now link fails"
got=$(cd proj && MPIPREDICT_RUNS=../runs-now ./prog-now 2>err.txt) || fail "-z now: exit $?: $(cat proj/err.txt)"
[ "$got" = "sum 9 preload [unset]" ] || fail "-z now: expected the usual output, got '$got'"
[ "$(col call:main.c:12:2:MPI_Allreduce.max runs-now/prog-now.csv)" = 1 ] ||
	fail "-z now: expected the Allreduce site tagged once, got $(col call:main.c:12:2:MPI_Allreduce.max runs-now/prog-now.csv)"
[ "$(col loop:work.c:5:2.max runs-now/prog-now.csv)" = 6 ] || fail "-z now: expected loop:work.c:5:2.max 6"

# The user's LD_PRELOAD: what the program sees is what the user set.
libm=$(ldd plain/prog | awk '/libm\.so/ { print $3 }')
[ -n "$libm" ] || libm=$(ldd "$(command -v mpicc)" | awk '/libc\.so/ { print $3 }')
# (Under SANITIZE=1 ASan wants its runtime first in the list: told not to
# check, as a user preloading a library into a sanitized program would.)
got=$(cd proj && ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 \
	LD_PRELOAD=$libm MPIPREDICT_RUNS=../runsp ./prog 2>err.txt) || fail "with LD_PRELOAD: exit $?: $(cat proj/err.txt)"
[ "$got" = "sum 9 preload [$libm]" ] || fail "expected the program to see LD_PRELOAD=$libm, got '$got'"
[ -f runsp/prog.csv ] || fail "with LD_PRELOAD: expected a row"

# The runtime missing too: the run goes on, one line says what to do.
rm proj/*.o
MPIPREDICT_LIBDIR=/nonexistent make -s -C proj CC=mpipredict-mpicc SAN="$CFLAGS_T" >/dev/null 2>&1 || fail "the build with a wrong MPIPREDICT_LIBDIR fails"
got=$(cd proj && MPIPREDICT_RUNS=../runsx ./prog 2>err.txt) || fail "no runtime: expected exit 0, got $?"
[ "$got" = "sum 9 preload [unset]" ] || fail "no runtime: expected the usual output, got '$got'"
n=$(grep -c 'mpipredict: .*not linked with libmpipredict.*link with mpipredict-mpicc or add -lmpipredict' proj/err.txt)
[ "$n" = 1 ] || fail "no runtime: expected one line naming mpipredict and the fix, got: $(cat proj/err.txt)"
[ -e runsx ] && fail "no runtime: expected no row"
exit 0
