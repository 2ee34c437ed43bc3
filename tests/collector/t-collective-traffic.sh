#!/usr/bin/env bash
# Exact bytes of every collective of the table at 2 and 4 ranks under
# OpenMPI and MPICH: what each rank sends plus what it receives as the MPI
# standard describes the operation, sums of counts for the v variants, the
# same count with MPI_IN_PLACE, insignificant arguments never read (the
# program passes invalid ones where the standard allows it), nonblocking
# collectives counted when posted. Values worked out by hand from
# progs/traffic.c (coll()); ints are 4 bytes.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	for n in 2 4; do
		rm -rf runs
		MPIPREDICT_RUNS=runs/ run $n ./traffic coll ||
			{ fail "$m n=$n: traffic exited with $?"; continue; }
		tri=$((n * (n + 1) / 2)) # sum of counts i+1 over the ranks
		want call:t.c:S_BARRIER:1:MPI_Barrier 1
		want bytes:t.c:S_BARRIER:1:MPI_Barrier 0
		want bytes:t.c:S_BCAST:1:MPI_Bcast 40
		want bytes:t.c:S_REDUCE:1:MPI_Reduce '20 + (r == 0) * 20'
		want bytes:t.c:S_ALLREDUCE:1:MPI_Allreduce 24
		want bytes:t.c:S_SCAN:1:MPI_Scan 16
		want bytes:t.c:S_EXSCAN:1:MPI_Exscan '8 + (r > 0) * 8' # rank 0 receives nothing
		want bytes:t.c:S_SCATTER:1:MPI_Scatter '8 + (r == 1) * n * 8'
		want bytes:t.c:S_SCATTERV:1:MPI_Scatterv "(r + 1) * 4 + (r == 0) * $tri * 4"
		want bytes:t.c:S_GATHER:1:MPI_Gather '12 + (r == 0) * n * 12'
		want bytes:t.c:S_GATHERV:1:MPI_Gatherv "(r + 1) * 4 + (r == 0) * $tri * 4"
		want bytes:t.c:S_ALLGATHER:1:MPI_Allgather '8 + n * 8'
		want bytes:t.c:S_ALLGATHERV:1:MPI_Allgatherv "(r + 1) * 4 + $tri * 4"
		want bytes:t.c:S_ALLTOALL:1:MPI_Alltoall 'n * 8'
		want bytes:t.c:S_ALLTOALLV:1:MPI_Alltoallv "$tri * 4 + n * (r + 1) * 4"
		want bytes:t.c:S_REDSCAT:1:MPI_Reduce_scatter "$tri * 4 + (r + 1) * 4"
		want bytes:t.c:S_REDSCAT_BLOCK:1:MPI_Reduce_scatter_block '(n + 1) * 8'
		want bytes:t.c:S_ALLREDUCE_IP:1:MPI_Allreduce 24
		want bytes:t.c:S_ALLGATHER_IP:1:MPI_Allgather '8 + n * 8'
		want bytes:t.c:S_GATHER_IP:1:MPI_Gather '12 + (r == 0) * n * 12'
		want call:t.c:S_IALLREDUCE:1:MPI_Iallreduce 1
		want bytes:t.c:S_IALLREDUCE:1:MPI_Iallreduce 32
		want bytes:t.c:S_IBCAST:1:MPI_Ibcast 4
		want call:t.c:S_IBARRIER:1:MPI_Ibarrier 1
		want mpi:MPI_Allreduce:calls 2
		want mpi:MPI_Allreduce:bytes 48
		want mpi:MPI_Allreduce:untagged:calls 0
		want mpi:MPI_Gather:bytes '24 + (r == 0) * n * 24'
		want mpi:MPI_Waitall:untagged:calls 1
		want comm:cmp:bytes 0
		want comm:net:bytes 0
		check_wants runs/traffic.csv 1
	done
done
finish
