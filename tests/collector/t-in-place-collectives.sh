#!/usr/bin/env bash
# Collectives with MPI_IN_PLACE count what the rank sends plus receives as
# the standard defines the operation, the same as without MPI_IN_PLACE (the
# rank's own block taken from the receive arguments): Scatter and Scatterv
# (in place at the root), Gatherv (at the root), Allgatherv, Alltoall and
# Alltoallv (on every rank, send arguments not significant and passed as
# 0/NULL/MPI_DATATYPE_NULL). progs/traffic.c, scenario inplace; ints, root
# 0; 2 and 4 ranks, OpenMPI and MPICH.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	for n in 2 4; do
		rm -rf runs
		MPIPREDICT_RUNS=runs/ run $n ./traffic inplace || { fail "$m n=$n: traffic exited with $?"; continue; }
		tri=$((n * (n + 1) / 2))
		# Scatter: the root sends n blocks of 2 ints and keeps its own.
		want bytes:t.c:S_IP_SCATTER:1:MPI_Scatter '8 + (r == 0) * n * 8'
		want bytes:t.c:S_IP_SCATTERV:1:MPI_Scatterv "(r + 1) * 4 + (r == 0) * $tri * 4"
		want bytes:t.c:S_IP_GATHERV:1:MPI_Gatherv "(r + 1) * 4 + (r == 0) * $tri * 4"
		want bytes:t.c:S_IP_ALLGATHERV:1:MPI_Allgatherv "(r + 1) * 4 + $tri * 4"
		want bytes:t.c:S_IP_ALLTOALL:1:MPI_Alltoall 'n * 8'
		# Alltoallv: r+j+1 ints with each rank j, both ways.
		want bytes:t.c:S_IP_ALLTOALLV:1:MPI_Alltoallv '2 * 4 * (n * (r + 1) + n * (n - 1) / 2)'
		want call:t.c:S_IP_ALLTOALLV:1:MPI_Alltoallv 1
		check_wants runs/traffic.csv 1
	done
done
finish
