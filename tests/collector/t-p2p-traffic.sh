#!/usr/bin/env bash
# Exact calls and bytes per call site, and per MPI function for untagged
# calls, for point-to-point traffic at 2 and 4 ranks under OpenMPI and
# MPICH: blocking sends/receives (receives count what arrived, not the
# buffer size), Isend/Irecv completed by Wait/Waitall/Waitany/Testsome/Test,
# Sendrecv(_replace), a MPI_Type_contiguous type, split communicators.
# Expected values are worked out by hand from progs/traffic.c.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	for n in 2 4; do
		rm -rf runs
		MPIPREDICT_RUNS=runs/ run $n ./traffic p2p nonblock sendrecv dtype split ||
			{ fail "$m n=$n: traffic exited with $?"; continue; }
		rows=$(csvget runs/traffic.csv) || { fail "$m n=$n: runs/traffic.csv is not well-formed"; continue; }
		[ "$rows" = 1 ] || fail "$m n=$n: expected 1 row, got $rows"
		got=$(csvget runs/traffic.csv 1 nprocs app args)
		[ "$got" = "$(printf '%s\n' $n traffic 'p2p nonblock sendrecv dtype split')" ] ||
			fail "$m n=$n: expected nprocs, app, args = $n, traffic, 'p2p nonblock sendrecv dtype split', got $got"

		# p2p: even ranks send 10 ints and 5 ints (Bsend), odd ranks 3
		# doubles; receive buffers are larger than the messages.
		want call:t.c:S_SEND:1:MPI_Send 'r % 2 == 0'
		want bytes:t.c:S_SEND:1:MPI_Send '(r % 2 == 0) * 40'
		want call:t.c:S_RECV:1:MPI_Recv 'r % 2'
		want bytes:t.c:S_RECV:1:MPI_Recv '(r % 2) * 40'
		want bytes:t.c:S_SSEND:1:MPI_Ssend '(r % 2) * 24'
		want bytes:t.c:S_RECV_IGN:1:MPI_Recv '(r % 2 == 0) * 24'
		want bytes:t.c:S_BSEND:1:MPI_Bsend '(r % 2 == 0) * 20'
		want bytes:t.c:S_RECV_ANY:1:MPI_Recv '(r % 2) * 20'
		# Untagged: one char even->odd, 7 chars both ways (nonblock).
		want mpi:MPI_Send:untagged:calls '(r % 2 == 0) + 1'
		want mpi:MPI_Send:untagged:bytes '(r % 2 == 0) + 7'
		want mpi:MPI_Recv:untagged:calls 'r % 2'
		want mpi:MPI_Recv:untagged:bytes 'r % 2'
		want mpi:MPI_Irecv:untagged:calls 1
		want mpi:MPI_Irecv:untagged:bytes 7
		# nonblock: rank r sends r+1 ints to its pair r^1.
		want call:t.c:S_IRECV:1:MPI_Irecv 1
		want bytes:t.c:S_IRECV:1:MPI_Irecv '((r ^ 1) + 1) * 4'
		want bytes:t.c:S_ISEND:1:MPI_Isend '(r + 1) * 4'
		want call:t.c:S_WAITALL:1:MPI_Waitall 1
		want bytes:t.c:S_IRECV2:1:MPI_Irecv 8
		want bytes:t.c:S_ISSEND:1:MPI_Issend 8
		want call:t.c:S_WAIT:1:MPI_Wait 2
		want call:t.c:S_IRECV3:1:MPI_Irecv 2
		want bytes:t.c:S_IRECV3:1:MPI_Irecv 16
		want bytes:t.c:S_ISEND3:1:MPI_Isend 16
		want call:t.c:S_WAITANY:1:MPI_Waitany 1
		want bytes:t.c:S_IRECV4:1:MPI_Irecv 4
		want bytes:t.c:S_RSEND:1:MPI_Rsend 4
		# Waitall: one tagged, two untagged.
		want mpi:MPI_Waitall:calls 3
		want mpi:MPI_Waitall:untagged:calls 2
		# sendrecv: r+1 doubles to the right, from the left.
		want bytes:t.c:S_SENDRECV:1:MPI_Sendrecv '(r + 1) * 8 + ((r + n - 1) % n + 1) * 8'
		want bytes:t.c:S_REPLACE:1:MPI_Sendrecv_replace 16
		# dtype: 3 and 2 elements of a 5-int type.
		want bytes:t.c:S_DT_SEND:1:MPI_Send '(r % 2 == 0) * 60'
		want bytes:t.c:S_DT_RECV:1:MPI_Recv '(r % 2) * 60'
		want bytes:t.c:S_DT_BCAST:1:MPI_Bcast 40
		# split: reversed ranks, world n-1 sends 100 bytes to world n-2;
		# an Allreduce of one int in each half.
		want bytes:t.c:S_SP_SEND:1:MPI_Send '(r == n - 1) * 100'
		want call:t.c:S_SP_RECV:1:MPI_Recv 'r == n - 2'
		want bytes:t.c:S_SP_RECV:1:MPI_Recv '(r == n - 2) * 100'
		want bytes:t.c:S_SP_ALLREDUCE:1:MPI_Allreduce 8
		# Whole-program totals.
		want mpi:MPI_Bcast:calls 1
		want mpi:MPI_Bcast:bytes 40
		want mpi:MPI_Isend:calls 3
		want mpi:MPI_Isend:bytes '(r + 1) * 4 + 16'
		check_wants runs/traffic.csv 1
	done
done
finish
