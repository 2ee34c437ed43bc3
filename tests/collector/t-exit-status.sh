#!/usr/bin/env bash
# The run's exit status is in the row (exit_status, the 10th column): the
# row is written when the process exits, so MPI_Finalize then exit(1)
# (or return 3 from main) is recorded as failed. In-process rows hold
# rank 0's status; mpipredict-collect over dumps holds the first non-zero
# status of any rank. mpipredict-train leaves failed runs out (one
# warning) unless --include-failed. OpenMPI and MPICH, 2 ranks.
. "$MPP_SRC/tests/collector/lib.sh"
# OpenMPI's mpirun kills the other ranks as soon as one exits non-zero
# (orte_abort_on_non_zero_status), which on a quiet machine lands while rank 0
# is still in the exit handler that writes the row. What is tested here is the
# collector, so mpirun is asked to let every rank end by itself (MPICH's
# launcher does that already; the README says what a user of OpenMPI sees).
export OMPI_MCA_orte_abort_on_non_zero_status=0

for m in $MPIS; do
	use_mpi "$m"
	build exits "$MPP_SRC/tests/collector/progs/exits.c"
	rm -rf runs dumps
	hdr=$(MPIPREDICT_RUNS=runs/ run 2 ./exits ok >/dev/null 2>&1; csvget -H runs/exits.csv | sed -n 10p)
	[ "$hdr" = exit_status ] || fail "$m: expected column 10 exit_status, got '$hdr'"
	for how in "ret 3:3" "exit 1:1" "ok 0:0" "exit 256:0"; do
		args=${how%:*} want=${how#*:}
		# shellcheck disable=SC2086
		before=$(csvget runs/exits.csv)
		MPIPREDICT_RUNS=runs/ run 2 ./exits $args >/dev/null 2>&1
		# When every rank exits non-zero, OpenMPI's mpirun may kill rank 0
		# before its exit handler writes: then the run has no row, which
		# also keeps it out of training. What must never happen is a
		# failed run recorded with another status.
		if [ "$(csvget runs/exits.csv)" = "$before" ] && [ "$want" != 0 ] &&
			[ "$m" = openmpi ]; then
			echo "note: $m: '$args' left no row (mpirun ended rank 0 first)"
			continue
		fi
		got=$(csvget runs/exits.csv "$(csvget runs/exits.csv)" exit_status args | tr '\n' ' ')
		[ "$got" = "$want $args " ] || fail "$m: after '$args' expected exit_status $want, got '$got'"
	done
	# Dumps: collect sees every rank; in process only rank 0 is seen.
	MPIPREDICT_RUNS=one.csv MPIPREDICT_DUMP=dumps run 2 ./exits rank1 5 >/dev/null 2>&1
	got=$(mpipredict-collect --print dumps | ./csvget /dev/stdin 1 exit_status 2>&1)
	[ "$got" = 5 ] || fail "$m: expected collect to give exit_status 5 (rank 1's), got '$got'"
	[ "$(csvget one.csv 1 exit_status)" = 0 ] || fail "$m: expected the in-process row to hold rank 0's status 0"
	rm -rf dumps one.csv
	MPIPREDICT_RUNS=one.csv MPIPREDICT_DUMP=dumps run 2 ./exits exit 2 >/dev/null 2>&1
	got=$(mpipredict-collect --print dumps | ./csvget /dev/stdin 1 exit_status 2>&1)
	inproc=$(csvget one.csv 1 exit_status 2>/dev/null)
	# The in-process row may be missing under OpenMPI (see above), never 0.
	[ -z "$inproc" ] && [ "$m" = openmpi ] && inproc=2
	[ "$got" = 2 ] && [ "$inproc" = 2 ] ||
		fail "$m: exit 2 on every rank: expected 2 from collect and in process, got '$got' and '$inproc'"
	rm -rf dumps one.csv
done

# Training leaves failed runs out by default.
{
	echo "run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,exit_status,loop:a.c:1:1.mean,loop:a.c:1:1.max"
	for i in $(seq 1 30); do echo "r$i,demo,b1,2026-01-01T00:00:00Z,,2,1,$((2 * i)).5,-n $i,0,$i,$i"; done
	for i in 31 32 33; do echo "r$i,demo,b1,2026-01-01T00:00:00Z,,2,1,9999,-n $i,1,$i,$i"; done
} >t.csv
mpipredict-train --db m.db --json t.csv >out.json 2>err.txt || fail "train exits $?: $(cat err.txt)"
grep -q '"runs": 30,' out.json || fail "expected training on 30 runs, got: $(grep '"runs"' out.json)"
grep -q 't.csv: 3 failed runs (exit_status not 0) left out (--include-failed takes them)' err.txt ||
	fail "expected one warning about 3 failed runs, got: $(cat err.txt)"
mpipredict-train --db m.db --include-failed --json t.csv >out.json 2>err.txt || fail "train --include-failed exits $?"
grep -q '"runs": 33,' out.json || fail "expected --include-failed to train on 33 runs, got: $(grep '"runs"' out.json)"
finish
