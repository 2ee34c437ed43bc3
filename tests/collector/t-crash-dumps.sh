#!/usr/bin/env bash
# Dump mode (MPIPREDICT_DUMP) for runs that end without MPI_Finalize: a
# rank that calls MPI_Abort, one that gets SIGTERM and one that crashes
# (SIGSEGV) each write their dump (marked finalized 0) before they die, and
# so do the ranks the launcher then ends with SIGTERM (OpenMPI's mpirun; it
# sends SIGKILL a second later). MPICH's hydra ends the other ranks with
# SIGKILL, which leaves nothing: there the dying rank's own dump is checked,
# and whole runs at 1 rank. mpipredict-collect merges the dumps into a row
# with the counters of the moment (rank r ran 10(r+1) loop iterations).
. "$MPP_SRC/tests/collector/lib.sh"
# AddressSanitizer keeps SIGSEGV to itself unless told to let the program
# install its own handler (SANITIZE=1).
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:allow_user_segv_handler=1"

# merge N SCENARIO: expect N dumps, all not finalized, merged into a row.
merge() {
	local nd d got
	nd=$(ls dumps 2>/dev/null | grep -c '\.dump$')
	[ "$nd" = "$1" ] || { fail "$m n=$n $2: expected $1 dumps, got $(ls dumps 2>/dev/null | tr '\n' ' ')"; return; }
	for d in dumps/*.dump; do
		grep -qx 'finalized	0' "$d" || fail "$m n=$n $2: expected $d marked finalized 0"
	done
	rm -rf merged
	mpipredict-collect --runs merged/ dumps 2>err.txt || { fail "$m n=$n $2: mpipredict-collect failed: $(cat err.txt)"; return; }
	got=$(csvget merged/traffic.csv 1 loop:t.c:200:5.max loop:t.c:200:5.mean nprocs | tr '\n' ' ')
	[ "$got" = "$((10 * n)) $((5 * (n + 1))) $n " ] ||
		fail "$m n=$n $2: expected loop max $((10 * n)), mean $((5 * (n + 1))), nprocs $n, got $got"
}

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	n=1
	for sc in abort0 term0 segv0; do
		rm -rf runs dumps
		MPIPREDICT_RUNS=runs/ MPIPREDICT_DUMP=dumps timeout 120 $RUN -np $n ./traffic loops $sc >/dev/null 2>&1 &&
			fail "$m n=$n $sc: expected the run to fail"
		[ -e runs/traffic.csv ] && fail "$m n=$n $sc: expected no row, got $(cat runs/traffic.csv)"
		merge 1 $sc
	done
	n=2
	for sc in abort0:0 term1:1 segv1:1; do
		r=${sc#*:} sc=${sc%:*}
		rm -rf runs dumps
		MPIPREDICT_RUNS=runs/ MPIPREDICT_DUMP=dumps timeout 120 $RUN -np $n ./traffic loops $sc >/dev/null 2>&1 &&
			fail "$m n=$n $sc: expected the run to fail"
		if [ "$m" = openmpi ]; then
			merge 2 $sc
		else
			ls dumps/*."$r".dump >/dev/null 2>&1 ||
				fail "$m n=$n $sc: expected the dump of rank $r, got $(ls dumps 2>/dev/null | tr '\n' ' ')"
		fi
	done
done
finish
