#!/usr/bin/env bash
# A run that aborts (MPI_Abort) or exits without MPI_Finalize leaves no
# row, not even a partial one; in dump mode (MPIPREDICT_DUMP) the ranks that
# exit() leave dumps marked as not finalized. OpenMPI and MPICH.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	rm -rf runs dumps
	MPIPREDICT_RUNS=runs/ run 2 ./traffic loops abort >/dev/null 2>&1 &&
		fail "$m: expected MPI_Abort to fail the run"
	[ -e runs/traffic.csv ] && fail "$m: expected no runs file after MPI_Abort, got $(cat runs/traffic.csv)"
	# MPICH's launcher kills the other ranks as soon as one exits without
	# MPI_Finalize, sometimes before their exit handlers ran; what is
	# tested here is the handler, so the launcher is asked to let each
	# rank end by itself.
	keep=
	[ "$m" = mpich ] && keep=-disable-auto-cleanup
	RUN="$RUN $keep" MPIPREDICT_RUNS=runs/ MPIPREDICT_DUMP=dumps run 2 ./traffic loops exit >/dev/null 2>&1 &&
		fail "$m: expected exit(3) to fail the run"
	[ -e runs/traffic.csv ] && fail "$m: expected no runs file after exit without MPI_Finalize"
	nd=$(ls dumps 2>/dev/null | grep -c '\.dump$')
	[ "$nd" = 2 ] || fail "$m: expected 2 dumps after exit(), got $nd"
	for d in dumps/*.dump; do
		grep -qx 'finalized	0' "$d" || fail "$m: expected $d marked finalized 0"
	done
	# mpipredict-collect still merges them into a row.
	mpipredict-collect --runs merged/ dumps 2>err.txt || fail "$m: mpipredict-collect failed: $(cat err.txt)"
	got=$(csvget merged/traffic.csv 1 loop:t.c:200:5.max nprocs)
	[ "$got" = "$(printf '20\n2')" ] || fail "$m: expected loop max 20 and nprocs 2 from the dumps, got $got"
done
finish
