#!/usr/bin/env bash
# A runs file whose header belongs to another build is never touched: the
# row goes to a sibling <stem>.<hash>.csv, and later runs of the same build
# append to that sibling. A file that did not end in a newline still gets a
# well-formed row of its own. OpenMPI and MPICH.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	rm -rf runs && mkdir runs
	printf 'run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:x.c:1:1.mean,loop:x.c:1:1.max\nold,traffic,ffff,2020-01-01T00:00:00Z,,1,1,1.0,,3,3\n' >runs/traffic.csv
	cp runs/traffic.csv before.csv
	for i in 1 2; do
		MPIPREDICT_RUNS=runs/ run 2 ./traffic loops 2>err.txt ||
			fail "$m: run $i exited with $?: $(cat err.txt)"
	done
	cmp -s before.csv runs/traffic.csv || fail "$m: expected runs/traffic.csv (another build's) unchanged"
	# (runs/ranks/ holds the per-rank times, not rows.)
	sib=$(ls runs | grep -v -e '^traffic.csv$' -e '^ranks$')
	case $sib in
	traffic.????????.csv) ;;
	*) fail "$m: expected one sibling traffic.<hash>.csv, got '$sib'"; continue ;;
	esac
	rows=$(csvget "runs/$sib") || { fail "$m: $sib is not well-formed"; continue; }
	[ "$rows" = 2 ] || fail "$m: expected 2 rows in $sib, got $rows"
	[ -s err.txt ] && fail "$m: expected no message, got $(cat err.txt)"

	# Same header, but the last row was cut short by something else.
	head -c -5 "runs/$sib" >cut.csv
	MPIPREDICT_RUNS=cut.csv run 2 ./traffic loops || fail "$m: run on cut.csv exited with $?"
	last=$(tail -n 1 cut.csv)
	[ "$(printf '%s\n' "$last" | awk -F, '{print NF}')" = "$(head -n 1 cut.csv | awk -F, '{print NF}')" ] ||
		fail "$m: expected the new row on a line of its own after a cut row, got '$last'"
done
finish
