#!/usr/bin/env bash
# Time inside and outside MPI per rank and per call site, under OpenMPI and
# MPICH: the last of 2 ranks sleeps 1 s outside MPI while rank 0 waits in a
# tagged MPI_Barrier (traffic "sleep1 wait"). Expected, in nanoseconds: the
# barrier site's time.max >= 0.8 s (rank 0's wait); time:outside_mpi.max
# >= 0.9 s (the sleeper); time:in_mpi.max >= the barrier's max; in MPI_Init,
# in and out of MPI of one rank add up to no more than the slowest rank's
# runtime_s;
# and with no sleep the barrier's max stays under 0.5 s.
. "$MPP_SRC/tests/collector/lib.sh"

site=time:t.c:S_WT_BARRIER:1:MPI_Barrier
n=2
for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	rm -rf runs
	MPIPREDICT_RUNS=runs/ run 2 ./traffic sleep1 wait || fail "$m: traffic exited with $?"
	mapfile -t v < <(csvget runs/traffic.csv 1 runtime_s "$site.max" time:outside_mpi.max \
		time:in_mpi.max time:in_mpi.mean time:outside_mpi.mean time:mpi_init.mean)
	awk -v rt="${v[0]}" -v b="${v[1]}" -v om="${v[2]}" -v im="${v[3]}" -v imean="${v[4]}" -v omean="${v[5]}" -v init="${v[6]}" 'BEGIN {
		omean += init # MPI_Init has its own column
		if (!(b >= 0.8e9)) { print "expected the barrier site max >= 0.8e9 ns, got " b; bad = 1 }
		if (!(om >= 0.9e9)) { print "expected time:outside_mpi.max >= 0.9e9 ns, got " om; bad = 1 }
		if (!(im >= b)) { print "expected time:in_mpi.max >= the barrier max " b ", got " im; bad = 1 }
		if (!(imean + omean <= rt * 1e9 * 1.01)) { print "expected in + out of MPI (mean) <= runtime_s " rt " s, got " imean + omean " ns"; bad = 1 }
		if (!(imean + omean >= rt * 1e9 * 0.5)) { print "expected in + out of MPI (mean) near runtime_s " rt " s, got " imean + omean " ns"; bad = 1 }
		exit bad }' || fail "$m: $(csvget runs/traffic.csv 1 runtime_s "$site.max" time:outside_mpi.max time:in_mpi.max | tr '\n' ' ')"
	rm -rf runs
	MPIPREDICT_RUNS=runs/ run 2 ./traffic wait || fail "$m: traffic exited with $?"
	b=$(csvget runs/traffic.csv 1 "$site.max")
	awk -v b="$b" 'BEGIN { exit !(b > 0 && b < 0.5e9) }' ||
		fail "$m: without the sleep expected 0 < barrier time < 0.5e9 ns, got $b"
done
finish
