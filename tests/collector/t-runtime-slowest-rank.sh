#!/usr/bin/env bash
# runtime_s is the slowest rank's time from MPI_Init to MPI_Finalize: the
# last rank sleeps 2 s before MPI_Finalize (progs/traffic.c, sleep2), rank 0
# (which writes the row) does not. Expected: runtime_s >= 2 (and below a
# generous 60 s), and the last rank's own dump at least 1.5 s longer than
# rank 0's (not rank 0's under 2 s: a slow machine's MPI start-up took 5 s).
# 2 and 3 ranks, OpenMPI and MPICH.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	for n in 2 3; do
		rm -rf runs dumps
		MPIPREDICT_RUNS=runs/ MPIPREDICT_DUMP=dumps run $n ./traffic sleep2 || { fail "$m n=$n: traffic exited with $?"; continue; }
		rt=$(csvget runs/traffic.csv 1 runtime_s)
		awk -v t="$rt" 'BEGIN { exit !(t >= 2 && t < 60) }' || fail "$m n=$n: expected runtime_s >= 2, got $rt"
		# Dumps hold runtime_s as a C99 hex float; bash's printf reads it.
		r0=$(printf '%.6f' "$(awk -F'\t' '$1 == "runtime_s" { print $2 }' dumps/*.0.dump)")
		rl=$(printf '%.6f' "$(awk -F'\t' '$1 == "runtime_s" { print $2 }' dumps/*.$((n - 1)).dump)")
		awk -v a="$r0" -v b="$rl" 'BEGIN { exit !(b + 0 >= 2 && b - a >= 1.5) }' ||
			fail "$m n=$n: expected the last rank's own runtime >= 2 s and >= 1.5 s above rank 0's, got $r0 and $rl"
	done
done
finish
