#!/usr/bin/env bash
# mpipredict-collect merges the per-rank dumps of a run (MPIPREDICT_DUMP)
# into exactly the header and row that the in-process merge wrote (byte for
# byte, same run_id), appends it like the runtime does, and refuses
# incomplete or damaged dumps with exit 2 and a message naming the file.
# 4 ranks, OpenMPI and MPICH.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	rm -rf runs dumps merged
	MPIPREDICT_TEST_NODE_KEY=parity MPIPREDICT_RUNS=runs/ MPIPREDICT_DUMP=dumps \
		run 4 ./traffic p2p coll loops levels || { fail "$m: traffic exited with $?"; continue; }
	nd=$(ls dumps | grep -c '\.dump$')
	[ "$nd" = 4 ] || fail "$m: expected 4 dumps, got $nd"
	mpipredict-collect --print dumps >printed.csv 2>err.txt || fail "$m: collect --print failed: $(cat err.txt)"
	cmp -s printed.csv runs/traffic.csv ||
		fail "$m: expected collect --print to equal the in-process row; diff: $(diff <(tr , '\n' <printed.csv) <(tr , '\n' <runs/traffic.csv) | head -5)"
	MPIPREDICT_RUNS=merged/ mpipredict-collect dumps 2>err.txt || fail "$m: collect failed: $(cat err.txt)"
	cmp -s merged/traffic.csv runs/traffic.csv || fail "$m: expected merged/traffic.csv to equal runs/traffic.csv"

	# A missing rank: exit 2, the message names the run and the rank.
	mkdir -p part && cp dumps/*.dump part/ && rm part/*.2.dump
	mpipredict-collect --print part >/dev/null 2>err.txt
	rc=$?
	[ $rc = 2 ] || fail "$m: expected exit 2 without rank 2, got $rc"
	grep -q 'rank 2' err.txt || fail "$m: expected a message about rank 2, got $(cat err.txt)"
	# A damaged dump: exit 2, the message names the file and line.
	d=$(ls dumps/*.1.dump)
	sed 's/^nprocs\t4$/nprocs\tfour/' "$d" >bad.dump
	mpipredict-collect --print bad.dump >/dev/null 2>err.txt
	rc=$?
	[ $rc = 2 ] || fail "$m: expected exit 2 for a damaged dump, got $rc"
	grep -q 'bad.dump:8: bad nprocs' err.txt || fail "$m: expected 'bad.dump:8: bad nprocs', got $(cat err.txt)"
	rm -rf part
done
mpipredict-collect --no-such-flag >/dev/null 2>&1
[ $? = 1 ] || fail "expected exit 1 for an unknown option"
finish
