#!/usr/bin/env bash
# Exact calls and bytes per call site for the MPI families added after the
# first table, at 1, 2 and 4 ranks under OpenMPI and MPICH
# (progs/families.c, one run per family so that the level totals belong to
# one family): persistent point-to-point (the bytes go to the *_init site
# at each start), the remaining nonblocking collectives, neighbourhood
# collectives on Cartesian and distributed-graph topologies (neighbours
# that are MPI_PROC_NULL carry nothing), one-sided calls (the target's
# level from the window's group: the window's communicator has the ranks
# reversed, and fake nodes by parity make every target another node), and
# MPI-IO (bytes from the status, a short read at the end of the file, time
# in I/O per rank). Expected values are worked out by hand from the program.
. "$MPP_SRC/tests/collector/lib.sh"

L='((r + n - 1) % n)'   # the left neighbour of rank r
one() {  # one run of scenario $1 at $n ranks, extra env in $2; sets row file
	rm -rf runs
	env ${2:-} MPIPREDICT_RUNS=runs/ $RUN -np $n ./families $1 >out 2>&1 ||
		{ fail "$m n=$n $1: families exited with $?: $(tail -3 out)"; return 1; }
	[ "$(csvget runs/families.csv)" = 1 ] || { fail "$m n=$n $1: expected one row"; return 1; }
}

for m in $MPIS; do
	use_mpi "$m"
	build families "$progs/families.c"
	for n in 1 2 4; do
		if one persist; then
			want call:f.c:S_SEND_INIT:1:MPI_Send_init 1
			want bytes:f.c:S_SEND_INIT:1:MPI_Send_init '5 * (r + 1) * 4'
			want call:f.c:S_RECV_INIT:1:MPI_Recv_init 1
			want bytes:f.c:S_RECV_INIT:1:MPI_Recv_init "5 * ($L + 1) * 4"
			want call:f.c:S_STARTALL:1:MPI_Startall 3
			want call:f.c:S_START_R:1:MPI_Start 2
			want call:f.c:S_START_S:1:MPI_Start 2
			want call:f.c:S_NULL_INIT:1:MPI_Send_init 1
			want bytes:f.c:S_NULL_INIT:1:MPI_Send_init 0
			want mpi:MPI_Ssend_init:untagged:calls 1
			want mpi:MPI_Ssend_init:untagged:bytes 32
			want mpi:MPI_Recv_init:untagged:bytes 32
			want mpi:MPI_Recv_init:bytes "32 + 5 * ($L + 1) * 4"
			want mpi:MPI_Send_init:bytes '5 * (r + 1) * 4'
			want mpi:MPI_Startall:calls 5
			want mpi:MPI_Start:untagged:calls 1
			want comm:intra:bytes "5 * (r + 1) * 4 + 5 * ($L + 1) * 4 + 64"
			want comm:intra:msgs 14
			check_wants runs/families.csv 1
		fi
		if one icoll; then
			want bytes:f.c:S_ISCAN:1:MPI_Iscan 24
			want bytes:f.c:S_IEXSCAN:1:MPI_Iexscan '(r > 0) * 16 + 16'
			want bytes:f.c:S_ISCATTER:1:MPI_Iscatter '(r == 0) * n * 8 + 8'
			want bytes:f.c:S_IGATHER:1:MPI_Igather '(r == 0) * n * 12 + 12'
			want bytes:f.c:S_ISCATTERV:1:MPI_Iscatterv '(r == 0) * n * (n + 1) * 2 + (r + 1) * 4'
			want bytes:f.c:S_IGATHERV:1:MPI_Igatherv '(r == 0) * n * (n + 1) * 2 + (r + 1) * 4'
			want bytes:f.c:S_IALLGATHERV:1:MPI_Iallgatherv 'n * (n + 1) * 2 + (r + 1) * 4'
			want bytes:f.c:S_IALLTOALLV:1:MPI_Ialltoallv '8 * n'
			want bytes:f.c:S_IREDSCAT:1:MPI_Ireduce_scatter '(n * (n + 1) / 2 + r + 1) * 4'
			want bytes:f.c:S_IREDSCAT_BLOCK:1:MPI_Ireduce_scatter_block '(n + 1) * 8'
			want call:f.c:S_IREDSCAT_BLOCK:1:MPI_Ireduce_scatter_block 1
			want mpi:MPI_Waitall:untagged:calls 9
			check_wants runs/families.csv 1
		fi
		if one neighbor; then
			deg='((r > 0) + (r < n - 1))'
			want bytes:f.c:S_NB_ALLGATHER:1:MPI_Neighbor_allgather "$deg * 16"
			want bytes:f.c:S_NB_ALLTOALL:1:MPI_Neighbor_alltoall 48
			want bytes:f.c:S_NB_ALLTOALLV:1:MPI_Neighbor_alltoallv "(r + 1) * 4 + ($L + 1) * 4"
			want bytes:f.c:S_INB_ALLGATHERV:1:MPI_Ineighbor_allgatherv "$deg * (r + 1) * 4 + ((r > 0) * r + (r < n - 1) * (r + 2)) * 4"
			want bytes:f.c:S_INB_ALLTOALLW:1:MPI_Ineighbor_alltoallw "$deg * 12"
			want call:f.c:S_INB_ALLTOALLW:1:MPI_Ineighbor_alltoallw 1
			want comm:intra:bytes "$deg * 28 + 48 + (r + 1) * 4 + ($L + 1) * 4 + $deg * (r + 1) * 4 + ((r > 0) * r + (r < n - 1) * (r + 2)) * 4"
			want comm:intra:msgs "6 * $deg + 6"
			check_wants runs/families.csv 1
		fi
		for nodes in same parity; do
			env=
			[ $nodes = parity ] && env=MPIPREDICT_TEST_NODE_KEY=parity
			one rma "$env" || continue
			want call:f.c:S_FENCE:1:MPI_Win_fence 5
			want bytes:f.c:S_PUT:1:MPI_Put 16
			want bytes:f.c:S_GET:1:MPI_Get 8
			want bytes:f.c:S_ACC:1:MPI_Accumulate 20
			want call:f.c:S_PUT_NULL:1:MPI_Put 1
			want bytes:f.c:S_PUT_NULL:1:MPI_Put 0
			want bytes:f.c:S_GACC:1:MPI_Get_accumulate 8
			want bytes:f.c:S_FOP:1:MPI_Fetch_and_op 8
			want bytes:f.c:S_CAS:1:MPI_Compare_and_swap 12
			want bytes:f.c:S_RPUT:1:MPI_Rput 8
			want bytes:f.c:S_RGET:1:MPI_Rget 12
			want bytes:f.c:S_RACC:1:MPI_Raccumulate 4
			want bytes:f.c:S_RGACC:1:MPI_Rget_accumulate 8
			want mpi:MPI_Win_lock_all:untagged:calls 1
			# Every target is another rank's memory; with parity
			# nodes the reversed window ranks put it on the other
			# node (a map by window rank would say rank 0 is itself).
			inter=0
			[ $nodes = parity ] && [ $n -gt 1 ] && inter=1
			want comm:inter:bytes "$inter * 104"
			want comm:intra:bytes "(1 - $inter) * 104"
			want comm:inter:msgs "$inter * 10"
			check_wants runs/families.csv 1
		done
		if one "io=$PWD/io.dat"; then
			want call:f.c:S_FOPEN:1:MPI_File_open 1
			want bytes:f.c:S_FWRITE_AT:1:MPI_File_write_at 64
			want bytes:f.c:S_FWRITE_AT_ALL:1:MPI_File_write_at_all 32
			want bytes:f.c:S_FREAD_AT:1:MPI_File_read_at 64
			want bytes:f.c:S_FREAD_EOF:1:MPI_File_read_at 8
			want bytes:f.c:S_FIWRITE_AT:1:MPI_File_iwrite_at 16
			want bytes:f.c:S_FIREAD_AT:1:MPI_File_iread_at 16
			want bytes:f.c:S_FREAD_ALL:1:MPI_File_read_all 64
			want call:f.c:S_FWRITE:1:MPI_File_write 1
			want bytes:f.c:S_FWRITE:1:MPI_File_write 0
			want call:f.c:S_FCLOSE:1:MPI_File_close 1
			want mpi:MPI_File_sync:untagged:calls 2
			want mpi:MPI_File_set_view:untagged:calls 1
			# The MPI library's own I/O machinery is not counted as
			# the program's calls.
			want mpi:MPI_Barrier:calls 2
			want mpi:MPI_Allreduce:calls 0
			want mpi:MPI_Bcast:calls 0
			want comm:intra:msgs 0
			check_wants runs/families.csv 1
			t=$(csvget runs/families.csv 1 io:time_ns.max)
			[ "${t:-0}" -gt 0 ] 2>/dev/null || fail "$m n=$n io: expected io:time_ns.max > 0, got '$t'"
			rm -f io.dat
		fi
	done
done
finish
