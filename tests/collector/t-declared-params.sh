#!/usr/bin/env bash
# Declared parameters (issue 15, item 2): a job that takes its size from an
# input deck declares it, MPIPREDICT_PARAMS="N=20000 NB=192"; the run row's
# args are argv[1..] followed by the declared NAME=NUMBER tokens (blanks
# collapsed), which the trainer reads as parameters N and NB with the same
# parser the daemon uses for `#MPIPREDICT param` lines
# (tests/server/t-declared-params.sh). Without the variable args is
# argv[1..] alone. OpenMPI and MPICH, 2 ranks.
. "$MPP_SRC/tests/collector/lib.sh"

for m in $MPIS; do
	use_mpi "$m"
	build traffic "$progs/traffic.c"
	rm -rf mpipredict-runs
	MPIPREDICT_PARAMS="  N=20000	 NB=192 " run 2 ./traffic loops || fail "$m: run exited with $?"
	got=$(csvget mpipredict-runs/traffic.csv 1 args)
	[ "$got" = "loops N=20000 NB=192" ] ||
		fail "$m: expected args 'loops N=20000 NB=192', got '$got'"
	run 2 ./traffic loops || fail "$m: run exited with $?"
	got=$(csvget mpipredict-runs/traffic.csv 2 args)
	[ "$got" = "loops" ] || fail "$m: expected args 'loops' without MPIPREDICT_PARAMS, got '$got'"
done
finish
