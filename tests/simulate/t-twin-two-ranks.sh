#!/usr/bin/env bash
# A simulated run is within 15 % of its measured twin at 2 ranks: prime
# traced at 2 ranks on one node (the twin), its trace replayed on the
# profile's platform. The machine is shared, so the twin is measured
# robustly: 5 runs, and the one whose wall time is the median is the one
# replayed and compared (its own computation is in its trace). prime and
# not jacobi3d or cg: on this machine under a load average of 20-30 every
# synchronisation can cost a scheduler time slice while the peer is
# descheduled, which no machine profile models (bench-simulate's jacobi3d
# and cg twins replayed 25-70 % short at that load, prime's 0.0-0.3 %); the
# replay of communication-heavy traces is tested by t-replay-four-ranks.sh
# and t-predict-never-run.sh.
set -u
export OMPI_MCA_mpi_yield_when_idle=1
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_real prime || { echo "build failed"; exit 1; }
for i in 1 2 3 4 5; do
	MPIPREDICT_TRACE=t$i mpirun -np 2 ./prime.real -n 2000000 -i 1 >/dev/null 2>err.txt ||
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
