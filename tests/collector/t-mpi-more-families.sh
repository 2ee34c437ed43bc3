#!/usr/bin/env bash
# The MPI calls added by issue 20's second part, from the one table
# (collector/mpi_table.def), in a program built with mpipredict-cc
# (progs/more.c), at 1, 2 and 4 ranks under OpenMPI and MPICH: the output
# is the plain build's, and each call site has its exact calls and bytes
# (worked out by hand from the program):
#   - MPI_Alltoallw, MPI_Ialltoallw: sum over peers of count x size(type);
#   - split collective MPI-IO: count x size at *_begin, calls at *_end;
#   - MPI-4 only (MPICH 4; OpenMPI 4.1 is MPI 3.1 and has neither, which
#     the test says): persistent collectives (MPI_Allreduce_init,
#     MPI_Bcast_init, MPI_Barrier_init: one operation's bytes at each
#     start, on the init site) and large-count calls (MPI_Send_c,
#     MPI_Isend_c, MPI_Recv_c, MPI_Irecv_c, MPI_Allreduce_c, MPI_Bcast_c,
#     MPI_Reduce_c).
. "$MPP_SRC/tests/collector/lib.sh"
command -v mpipredict-cc >/dev/null || { echo "mpipredict-cc is not built"; exit 77; }

cp "$progs/more.c" .
line() { grep -n "/\* $1 \*/" more.c | cut -d: -f1; }
col() { # the call site column of marker $1 and function $2, without .mean
	local c
	c=$(csvget -H "$file" | grep -x "$3:more\.c:$(line "$1"):[0-9]*:$2\.mean") &&
		[ "$(printf '%s\n' "$c" | wc -l)" = 1 ] ||
		{ fail "$mpi: expected one column for $1 ($3 of $2), got '$c'"; return 1; }
	printf '%s\n' "${c%.mean}"
}
site() { # site MARKER FUNCTION CALLS BYTES
	local c
	c=$(col "$1" "$2" call) && want "$c" "$3"
	[ -n "${4:-}" ] && c=$(col "$1" "$2" bytes) && want "$c" "$4"
}
L='((r + n - 1) % n)'
for m in $MPIS; do
	use_mpi "$m"
	rm -f more orig
	$MPI_CC ${MPP_TEST_CFLAGS:-} -O1 -Wno-stringop-overflow -o orig more.c || { fail "$m: the plain build failed"; continue; }
	if [ "$m" = mpich ]; then
		MPIPREDICT_LIBDIR=$LIBDIR mpipredict-cc "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -Wno-stringop-overflow -o more more.c
	else
		mpipredict-cc "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -Wno-stringop-overflow -o more more.c
	fi 2>notes || { fail "$m: mpipredict-cc failed: $(cat notes)"; continue; }
	grep 'not instrumented' notes && fail "$m: expected every site instrumented, got the above"
	for n in 1 2 4; do
		rm -rf runs more.dat
		want=$(run $n ./orig) || { fail "$m n=$n: the plain build exited with $?"; continue; }
		rm -f more.dat
		got=$(MPIPREDICT_RUNS=runs/ run $n ./more) ||
			{ fail "$m n=$n: the instrumented build exited with $?"; continue; }
		[ -n "$want" ] && [ "$want" = "$got" ] || fail "$m n=$n: expected output '$want', got '$got'"
		file=runs/more.csv
		site ALLTOALLW MPI_Alltoallw 1 '2 * n * (n + 1) + 4 * n * (r + 1)'
		site IALLTOALLW MPI_Ialltoallw 1 '16 * n'
		site WAA_BEGIN MPI_File_write_at_all_begin 1 64
		site WAA_END MPI_File_write_at_all_end 1
		site RAA_BEGIN MPI_File_read_at_all_begin 1 64
		site RAA_END MPI_File_read_at_all_end 1
		site WA_BEGIN MPI_File_write_all_begin 1 32
		site WA_END MPI_File_write_all_end 1
		site RA_BEGIN MPI_File_read_all_begin 1 32
		site RA_END MPI_File_read_all_end 1
		site WO_BEGIN MPI_File_write_ordered_begin 1 8
		site WO_END MPI_File_write_ordered_end 1
		site RO_BEGIN MPI_File_read_ordered_begin 1 8
		site RO_END MPI_File_read_ordered_end 1
		want mpi:MPI_Alltoallw:untagged:calls 0
		want mpi:MPI_File_read_all_end:untagged:calls 0
		if grep -q '^mpi4$' <<<"$got"; then
			site ALLREDUCE_INIT MPI_Allreduce_init 1 '4 * 2 * 24'
			site BCAST_INIT MPI_Bcast_init 1 '2 * 20'
			site BARRIER_INIT MPI_Barrier_init 1 0
			site ISEND_C MPI_Isend_c 1 '(r + 2) * 4'
			site RECV_C MPI_Recv_c 1 "($L + 2) * 4"
			site IRECV_C MPI_Irecv_c 1 24
			site SEND_C MPI_Send_c 1 24
			site ALLREDUCE_C MPI_Allreduce_c 1 32
			site BCAST_C MPI_Bcast_c 1 12
			site REDUCE_C MPI_Reduce_c 1 '8 + (r == 0) * 8'
			want mpi:MPI_Start:calls 4
			want mpi:MPI_Startall:calls 2
			want mpi:MPI_Allreduce_init:bytes '4 * 2 * 24'
			want mpi:MPI_Allreduce_init:untagged:calls 0
		elif [ "$m" = mpich ]; then
			fail "$m: expected MPICH 4 to take the MPI-4 part, got '$got'"
		elif [ "$n" = 1 ]; then
			echo "$m: MPI $(grep -h '^#define MPI_VERSION' /usr/lib/x86_64-linux-gnu/openmpi/include/mpi.h 2>/dev/null | awk '{print $3}'): no persistent collectives or _c calls; that part is skipped"
		fi
		check_wants "$file" 1
	done
done
finish
