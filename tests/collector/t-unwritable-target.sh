#!/usr/bin/env bash
# When the run row cannot be written the program behaves as without
# mpipredict: its own exit status (7 here, from rank 0) is unchanged, MPI_Finalize
# returns, and exactly one line on stderr names the target. OpenMPI, MPICH.
. "$MPP_SRC/tests/collector/lib.sh"

touch plainfile
for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	for target in plainfile/sub/ plainfile/x.csv /proc/version; do
		MPIPREDICT_RUNS=$target run 2 ./traffic loops ret7 >out.txt 2>err.txt
		rc=$?
		[ $rc = 7 ] || fail "$m $target: expected exit status 7, got $rc"
		# (mpirun adds its own lines about the exit status 7.)
		lines=$(grep -c mpipredict err.txt)
		[ "$lines" = 1 ] || fail "$m $target: expected one line from mpipredict on stderr, got $lines: $(cat err.txt)"
		grep -q "mpipredict: .*${target%%/*}" err.txt ||
			fail "$m $target: expected the line to name the target, got $(cat err.txt)"
	done
	# And the status is unchanged when the row is written.
	rm -rf ok
	MPIPREDICT_RUNS=ok/ run 2 ./traffic loops ret7 2>err.txt
	rc=$?
	[ $rc = 7 ] || fail "$m: expected exit status 7 with a writable target, got $rc"
	[ "$(csvget ok/traffic.csv)" = 1 ] || fail "$m: expected one row in ok/traffic.csv"
done
finish
