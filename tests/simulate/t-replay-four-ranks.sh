#!/usr/bin/env bash
# A 4-rank trace of jacobi3d written by libmpipredict's trace mode
# (MPIPREDICT_TRACE) is replayed by SimGrid on a generated platform (two
# nodes of two cores): every rank has its actions, the simulated time is
# positive and no longer than the trace's computation could explain, and
# the analyses name four ranks, a parallelism within [0, 4] and net
# traffic (ranks 0,1 and 2,3 on different nodes exchange faces), which
# SimGrid's own link trace also shows on the NICs. A trace of more
# actions than the link trace's budget (simulate/replay.h) is replayed
# without it, and the report says why.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_real jacobi3d || { echo "build failed"; exit 1; }
MPIPREDICT_TRACE=tr mpirun -np 4 ./jacobi3d.real -n 24 -i 4 >out.txt 2>err.txt ||
	{ echo "traced run failed: $(tail -3 err.txt)"; exit 1; }
for r in 0 1 2 3; do
	grep -q "^$r waitall" "tr/rank-$r.ti" ||
		{ echo "expected waitall actions in tr/rank-$r.ti"; exit 1; }
done
mpipredict-simulate replay --profile profile.json --trace tr --nodes 2 \
	--json >sim.json 2>err.txt || { echo "replay failed: $(cat err.txt)"; exit 1; }
fail=0
n=$(jq '.ranks | length' sim.json)
[ "$n" = 4 ] || { echo "expected 4 ranks in the analysis, got $n"; fail=1; }
jq -e '.simulated_s > 0 and .parallelism_mean >= 0 and .parallelism_mean <= 4' sim.json >/dev/null ||
	{ echo "expected 0 < simulated_s, parallelism in [0,4]: $(jq -c '{simulated_s,parallelism_mean}' sim.json)"; fail=1; }
jq -e ".levels.net.bytes > 0 and .levels.cmp.bytes > 0 and .levels.net.link_bytes > 0" sim.json >/dev/null ||
	{ echo "expected cmp and net bytes: $(jq -c .levels sim.json)"; fail=1; }
jq -e '[.ranks[].compute_s] | all(. > 0)' sim.json >/dev/null ||
	{ echo "expected compute time on every rank: $(jq -c .ranks sim.json)"; fail=1; }
# The text form says the same.
mpipredict-simulate replay --profile profile.json --trace tr --nodes 2 >sim.txt 2>err.txt &&
	grep -q "^placement  *4 ranks, 2 nodes, 2 per node" sim.txt ||
	{ echo "text report: expected a placement line, got: $(cat sim.txt err.txt)"; fail=1; }
# 2 ranks x 50 003 actions: over the budget of 100 000
mkdir -p big
printf 'nprocs 2\nargs x\n' >big/meta
for r in 0 1; do
	awk -v r=$r 'BEGIN { print r " init"
	  for (i = 0; i < 25001; i++) { print r " compute 1000"; print r " barrier" }
	  print r " finalize" }' >big/rank-$r.ti
done
mpipredict-simulate replay --profile profile.json --trace big --nodes 2 >big.txt 2>err.txt ||
	{ echo "replay of the large trace failed: $(cat err.txt)"; exit 1; }
grep -q "no SimGrid link trace: 100008 replayed actions, above its budget of 100000" big.txt ||
	{ echo "expected the link trace left out over its budget: $(grep -i link big.txt)"; fail=1; }
exit $fail
