#!/usr/bin/env bash
# libmpipredict out of memory in an array completion call (MPI_Waitall of
# 20 requests with MPI_STATUSES_IGNORE, the second allocation failing,
# progs/oom.c): the program goes on (it used to free the request copy twice
# and abort in glibc), the call is counted, the bytes of the receives it
# completed are dropped, and a later Waitall counts its receives' bytes
# again. 2 ranks, OpenMPI and MPICH. Not under SANITIZE=1: the program
# replaces malloc, which the sanitizers own.
. "$MPP_SRC/tests/collector/lib.sh"
[ "${MPP_SANITIZE:-0}" = 1 ] && { echo "skipped under SANITIZE=1 (the test replaces malloc)"; exit 77; }
n=2
for m in $MPIS; do
	use_mpi "$m"
	build oom "$progs/oom.c"
	rm -rf runs
	MPIPREDICT_RUNS=runs/ run $n ./oom >out.txt 2>&1 || { fail "$m: oom exited with $?: $(tail -3 out.txt)"; continue; }
	grep -q 'did not happen' out.txt && fail "$m: expected the armed allocation to fail inside MPI_Waitall: $(cat out.txt)"
	want call:o.c:1:1:MPI_Irecv 40
	want bytes:o.c:1:1:MPI_Irecv 80
	want mpi:MPI_Waitall:calls 4
	want comm:cmp:msgs 60
	check_wants runs/oom.csv 1
done
finish
