#!/usr/bin/env bash
# mpipredict-cc as CC in a make-based multi-file MPI build: -c, -o, -I, -D,
# -MMD/-MP, a local "util.h", a .o built by a separate rule, a link-only
# step, and a compile-and-link step mixing .c and .o. The build must
# succeed, its dependency files must name the real sources and headers (so
# that touching util.h rebuilds), the program must print what the plain
# mpicc build prints at 1, 2 and 4 ranks, and the real runtime's run row
# must hold the exact counts of every file's loops, branches and call
# sites (worked out by hand below).
. "$MPP_SRC/tests/instrument/lib.sh"
[ -f "$MPP_BUILD/lib/libmpipredict.so" ] || fail "libmpipredict.so is not built (make collector)"

mkdir -p proj/src proj/lib
cat >proj/src/util.h <<'C'
#define UTIL_FACTOR SCALE
int util_sum(int n);
C
cat >proj/src/util.c <<'C'
#include "util.h"
int util_sum(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += i * UTIL_FACTOR;
	return s;
}
C
cat >proj/lib/extra.c <<'C'
int extra(int x);
int extra(int x)
{
	if (x > 3)
		return x;
	else
		return -x;
}
C
cat >proj/src/main.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include "util.h"
int extra(int x);
int main(int argc, char **argv)
{
	int rank, size, i, t = 0, g = 0;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	for (i = 0; i < 5; i++)
		t += util_sum(i) + extra(i);
	MPI_Allreduce(&t, &g, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("total %d over %d ranks\n", g, size);
	return MPI_Finalize();
}
C
cat >proj/src/single.c <<'C'
#include <stdio.h>
#include "util.h"
int main(void)
{
	printf("single %d\n", util_sum(4));
	return 0;
}
C
cat >proj/Makefile <<'M'
CFLAGS = -O2 -Wall -Isrc -DSCALE=3 -MMD -MP $(SAN)
all: prog single
prog: obj/main.o obj/util.o obj/extra.o
	$(CC) $(SAN) -o $@ $^
single: src/single.c obj/util.o
	$(CC) $(CFLAGS) -o $@ $^
obj/%.o: src/%.c | obj
	$(CC) $(CFLAGS) -c $< -o $@
obj/extra.o: lib/extra.c | obj
	$(CC) $(SAN) -c -o $@ $<
obj:
	mkdir -p obj
-include obj/*.d
M
cp -r proj plain
export SAN=$CFLAGS_T
make -s -C plain CC=mpicc >/dev/null 2>&1 || fail "the plain mpicc build fails"
make -s -C proj CC="$MCC mpicc" >build.log 2>&1 || { cat build.log; fail "the mpipredict-cc build fails"; }
# (The sanitizer build's libasan makes ld warn about tmpnam: not ours.)
grep -v 'libasan.*warning: the use of' build.log >noise.log
[ -s noise.log ] && { cat noise.log; fail "expected a quiet build, got the above"; }

grep -q 'src/main.c' proj/obj/main.d && grep -q 'src/util.h' proj/obj/main.d ||
	fail "expected obj/main.d to name src/main.c and src/util.h, got: $(cat proj/obj/main.d)"
grep -l 'mpp-cc' proj/obj/*.d proj/*.d 2>/dev/null && fail "a dependency file names the temporary copy"
make -q -C proj CC="$MCC mpicc" || fail "expected the build to be up to date after make"
touch proj/src/util.h
make -q -C proj CC="$MCC mpicc" && fail "expected touching util.h to make the build out of date"
make -s -C proj CC="$MCC mpicc" >/dev/null 2>&1 || fail "the rebuild fails"
ldd proj/prog | grep -q libmpipredict || fail "expected prog to link libmpipredict"

[ "$(plain/single)" = "$(proj/single)" ] || fail "single: expected '$(plain/single)', got '$(proj/single)'"
for np in 1 2 4; do
	want=$(cd plain && mpirun -np $np ./prog 2>/dev/null)
	mkdir -p runs$np
	got=$(cd proj && MPIPREDICT_RUNS=$PWD/../runs$np mpirun -np $np ./prog 2>err.txt) ||
		fail "instrumented prog at $np ranks exits $?: $(tail -3 err.txt)"
	[ "$want" = "$got" ] || fail "at $np ranks expected '$want', got '$got'"
done

# Per rank: main's loop runs 5 times; util_sum(i) for i = 0..4 loops
# 0+1+2+3+4 = 10 times; extra(i) takes its then-branch once (i = 4) and
# its else-branch 4 times; one Allreduce; rank 0 alone prints.
col() { # column-name csv: the value in the last row
	awk -F, -v n="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
		END { if (c) print $c; else print "missing" }' "$2"
}
check() { # csv column expected
	local v
	v=$(col "$2" "$1")
	awk -v a="$v" -v b="$3" 'BEGIN { exit !(a != "missing" && a + 0 == b + 0) }' ||
		fail "$2: expected $3, got $v (in $1)"
}
for np in 1 2 4; do
	csv=runs$np/prog.csv
	[ -f "$csv" ] || fail "expected a run row in $csv, got: $(ls "runs$np" 2>&1)"
	check "$csv" loop:src/main.c:11:2.mean 5
	check "$csv" loop:src/util.c:5:2.mean 10
	check "$csv" then:lib/extra.c:4:2.mean 1
	check "$csv" else:lib/extra.c:4:2.max 4
	check "$csv" call:src/main.c:13:2:MPI_Allreduce.mean 1
	check "$csv" then:src/main.c:14:2.max 1
	check "$csv" then:src/main.c:14:2.mean "$(awk -v n=$np 'BEGIN { print 1 / n }')"
done
echo "ok"
