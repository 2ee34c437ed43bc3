#!/usr/bin/env bash
# MPI_Testall, MPI_Testany and MPI_Waitsome complete MPI_Irecv requests
# (progs/traffic.c, scenario complete): each Irecv site gets exactly the
# bytes that arrived, however many polling calls it took (Testall with
# MPI_STATUSES_IGNORE, Testany beside an inactive request, Waitsome with
# statuses), and each completion site counts at least one call and, for
# Waitsome, at most one per request. 2 and 4 ranks, OpenMPI and MPICH.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	for n in 2 4; do
		rm -rf runs
		MPIPREDICT_RUNS=runs/ run $n ./traffic complete || { fail "$m n=$n: traffic exited with $?"; continue; }
		want call:t.c:S_C_IRECV1:1:MPI_Irecv 2
		want bytes:t.c:S_C_IRECV1:1:MPI_Irecv 12
		want call:t.c:S_C_IRECV2:1:MPI_Irecv 1
		want bytes:t.c:S_C_IRECV2:1:MPI_Irecv 12
		want call:t.c:S_C_IRECV3:1:MPI_Irecv 3
		want bytes:t.c:S_C_IRECV3:1:MPI_Irecv 28
		want mpi:MPI_Irecv:bytes 52
		want mpi:MPI_Send:bytes 52
		want comm:cmp:msgs 12
		want comm:cmp:bytes 104
		check_wants runs/traffic.csv 1
		got=$(csvget runs/traffic.csv 1 call:t.c:S_C_TESTALL:1:MPI_Testall.max \
			call:t.c:S_C_TESTANY:1:MPI_Testany.max call:t.c:S_C_WAITSOME:1:MPI_Waitsome.max \
			mpi:MPI_Testall:untagged:calls.max | tr '\n' ' ')
		read -r ta tn ws un <<<"$got"
		[ "${ta:-0}" -ge 1 ] && [ "${tn:-0}" -ge 1 ] && [ "${ws:-0}" -ge 1 ] && [ "${ws:-9}" -le 3 ] && [ "${un:-1}" = 0 ] ||
			fail "$m n=$n: expected >= 1 Testall, >= 1 Testany, 1 to 3 Waitsome calls and no untagged Testall, got $got"
	done
done
finish
