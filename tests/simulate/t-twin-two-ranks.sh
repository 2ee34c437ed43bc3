#!/usr/bin/env bash
# A simulated run is within 15 % of its measured twin at 2 ranks: jacobi3d
# traced at 2 ranks on one node (the twin), its trace replayed on the
# profile's platform. The machine is shared, so the twin is measured
# robustly: 5 runs, and the one whose wall time is the median is the one
# replayed and compared (its own computation is in its trace); few
# synchronisations (6 sweeps of a 112^3 grid, about 1 s), since a rank descheduled
# by another job while its peer waits costs a time slice per
# synchronisation that no model of the machine has; ranks yield while
# they wait (mpi_yield_when_idle) for the same reason.
set -u
export OMPI_MCA_mpi_yield_when_idle=1
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_real jacobi3d || { echo "build failed"; exit 1; }
for i in 1 2 3 4 5; do
	MPIPREDICT_TRACE=t$i mpirun -np 2 ./jacobi3d.real -n 112 -i 6 >/dev/null 2>err.txt ||
		{ echo "run $i failed: $(tail -3 err.txt)"; exit 1; }
	echo "$(wall_of t$i) t$i"
done | sort -n >walls.txt
read -r measured dir < <(sed -n 3p walls.txt)
mpipredict-simulate replay --profile profile.json --trace "$dir" --json >sim.json 2>err.txt ||
	{ echo "replay failed: $(cat err.txt)"; exit 1; }
sim=$(jq .simulated_s sim.json)
awk -v s="$sim" -v m="$measured" 'BEGIN { e = (s - m) / m; if (e < 0) e = -e; exit !(e <= 0.15) }' || {
	echo "expected the simulation within 15 % of the measured median $measured s, got $sim s"
	cat walls.txt
	exit 1
}
