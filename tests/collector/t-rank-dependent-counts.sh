#!/usr/bin/env bash
# Exact mean and max over ranks of loop and branch counters and of MPI call
# counts whose trip counts depend on the rank (rank r runs 10(r+1) loop
# iterations, takes the then-branch when i % 3 == 0, and makes r+1
# Sendrecv calls of one int to itself), at 2 and 4 ranks, OpenMPI and MPICH.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	for n in 2 4; do
		rm -rf runs
		MPIPREDICT_RUNS=runs/ run $n ./traffic loops ||
			{ fail "$m n=$n: traffic exited with $?"; continue; }
		want loop:t.c:200:5 '10 * (r + 1)'
		want then:t.c:201:9 '(10 * (r + 1) + 2) / 3'
		want else:t.c:201:9 '10 * (r + 1) - (10 * (r + 1) + 2) / 3'
		want call:t.c:S_LOOP_SR:1:MPI_Sendrecv 'r + 1'
		want bytes:t.c:S_LOOP_SR:1:MPI_Sendrecv '8 * (r + 1)'
		want mpi:MPI_Sendrecv:calls 'r + 1'
		want mpi:MPI_Sendrecv:untagged:calls 0
		check_wants runs/traffic.csv 1
	done
done
finish
