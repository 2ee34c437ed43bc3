#!/usr/bin/env bash
# MPI_THREAD_MULTIPLE: two threads per rank run Isend/Irecv loops completed
# by Wait, Waitall, Waitany, Test and Testall at once (progs/threads.c),
# at 2 ranks under OpenMPI and MPICH. Expected: no hang (each run under
# `timeout`), and exact calls and bytes per site and per function, although
# the threads share the pending-receive table, the request handles MPI
# frees and gives out again, and the counters. Run once as is and once with
# MPIPREDICT_TEST_YIELD=1, which yields right after each completion call,
# where a handle just freed by one thread is most likely to be given to the
# other thread's next MPI_Irecv (before the fix that made the layer
# deadlock on its own lock or give an Irecv's bytes to another site).
. "$MPP_SRC/tests/collector/lib.sh"
n=2

for m in $MPIS; do
	use_mpi "$m"
	build threads "$progs/threads.c"
	for mode in plain yield; do
		case $mode in
		plain) it=3000 y=0 ;;
		yield) it=300 y=1 ;;
		esac
		rm -rf runs
		MPIPREDICT_TEST_YIELD=$y MPIPREDICT_RUNS=runs/ timeout 300 $RUN -np $n ./threads $it >out.txt 2>&1
		rc=$?
		if [ $rc = 77 ] || grep -q 'no MPI_THREAD_MULTIPLE' out.txt; then
			echo "$m: no MPI_THREAD_MULTIPLE, skipped: $(cat out.txt)"
			continue 2
		fi
		[ $rc = 124 ] && { fail "$m $mode: expected the run to finish, it hung (killed after 300 s)"; continue; }
		[ $rc = 0 ] || { fail "$m $mode: threads exited with $rc: $(tail -3 out.txt)"; continue; }
		mpi="$m $mode"
		for s in IRECV_A:1:MPI_Irecv:8 ISEND_A:1:MPI_Isend:8 ISEND_A2:1:MPI_Isend:4 \
			IRECV_B:1:MPI_Irecv:24 ISEND_B:1:MPI_Isend:24 IRECV_C:1:MPI_Irecv:16 \
			ISEND_C:1:MPI_Isend:16 IRECV_D:1:MPI_Irecv:12 ISEND_D:1:MPI_Isend:12; do
			want "call:th.c:${s%:*}" $it
			want "bytes:th.c:${s%:*}" $((it * ${s##*:}))
		done
		want call:th.c:WAIT_A:1:MPI_Wait $((2 * it))
		want call:th.c:WAITALL_B:1:MPI_Waitall $it
		want call:th.c:WAITANY_C:1:MPI_Waitany $((2 * it))
		want call:th.c:WAIT_D:1:MPI_Wait $it
		want mpi:MPI_Irecv:calls $((5 * it))
		want mpi:MPI_Irecv:untagged:calls $it
		want mpi:MPI_Irecv:untagged:bytes $((4 * it))
		want mpi:MPI_Irecv:bytes $((64 * it))
		want mpi:MPI_Isend:bytes $((64 * it))
		want comm:cmp:msgs $((10 * it))
		want comm:cmp:bytes $((128 * it))
		check_wants runs/threads.csv 1
		# Test and Testall poll: at least one call per iteration.
		got=$(csvget runs/threads.csv 1 call:th.c:TEST_D:1:MPI_Test.max call:th.c:TESTALL_A:1:MPI_Testall.max | tr '\n' ' ')
		read -r t ta <<<"$got"
		[ "${t:-0}" -ge $it ] && [ "${ta:-0}" -ge $it ] ||
			fail "$mpi: expected at least $it Test and Testall calls, got $got"
	done
done
finish
