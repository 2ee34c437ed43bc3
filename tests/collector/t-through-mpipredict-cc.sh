#!/usr/bin/env bash
# End to end: a plain MPI program (progs/e2e.c) built with mpipredict-cc
# (the rewriter tags its calls and adds its counters), run at 4 ranks under
# OpenMPI and MPICH (MPIPREDICT_LIBDIR points mpipredict-cc at the MPICH
# build of libmpipredict): the row has the loop, branch and call-site
# columns with the exact mean and max. Ranks r and r^1 loop 5(r/2+1) times;
# the even one sends r/2+1 ints per iteration, the odd one receives them.
. "$MPP_SRC/tests/collector/lib.sh"
command -v mpipredict-cc >/dev/null || { echo "mpipredict-cc is not built"; exit 77; }

cp "$progs/e2e.c" .
line() { grep -n "/\* $1 \*/" e2e.c | cut -d: -f1; }
col() { # the one header column matching the regular expression $1
	local c
	c=$(csvget -H "$file" | grep -x "$1") && [ "$(printf '%s\n' "$c" | wc -l)" = 1 ] ||
		{ fail "$mpi: expected one column matching $1, got '$c'"; return 1; }
	printf '%s\n' "${c%.mean}"
}
n=4
for m in $MPIS; do
	use_mpi "$m"
	rm -rf e2e runs
	if [ "$m" = mpich ]; then
		MPIPREDICT_LIBDIR=$LIBDIR mpipredict-cc "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -o e2e e2e.c
	else
		mpipredict-cc "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -o e2e e2e.c
	fi || { fail "$m: mpipredict-cc failed"; continue; }
	MPIPREDICT_RUNS=runs/ run $n ./e2e || { fail "$m: e2e exited with $?"; continue; }
	file=runs/e2e.csv
	l=$(line LOOP) b=$(line IF)
	s=$(($(line SEND) + 1)) r=$(($(line RECV) + 1)) a=$(($(line ALLREDUCE) + 1))
	c=$(col "loop:e2e\.c:$l:[0-9]*\.mean") && want "$c" '5 * (r / 2 + 1)'
	c=$(col "then:e2e\.c:$b:[0-9]*\.mean") && want "$c" '(r % 2 == 0) * 5 * (r / 2 + 1)'
	c=$(col "else:e2e\.c:$b:[0-9]*\.mean") && want "$c" '(r % 2) * 5 * (r / 2 + 1)'
	c=$(col "call:e2e\.c:$s:[0-9]*:MPI_Send\.mean") && want "$c" '(r % 2 == 0) * 5 * (r / 2 + 1)'
	c=$(col "bytes:e2e\.c:$s:[0-9]*:MPI_Send\.mean") && want "$c" '(r % 2 == 0) * 5 * (r / 2 + 1) * (r / 2 + 1) * 4'
	c=$(col "bytes:e2e\.c:$r:[0-9]*:MPI_Recv\.mean") && want "$c" '(r % 2) * 5 * (r / 2 + 1) * (r / 2 + 1) * 4'
	c=$(col "bytes:e2e\.c:$a:[0-9]*:MPI_Allreduce\.mean") && want "$c" 32
	want mpi:MPI_Send:untagged:calls 0
	want mpi:MPI_Recv:calls '(r % 2) * 5 * (r / 2 + 1)'
	check_wants "$file" 1
done
finish
