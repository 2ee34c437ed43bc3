#!/usr/bin/env bash
# mpipredict-simulate predict on a law known exactly: single-rank traces of
# jacobi3d at -n 24, 32, 40 (two repeats each) are rewritten so that every
# computation segment takes 1 ms x (n/24)^3 (their structure is the real
# program's), then the prediction for -n 48 at 2 ranks on 2 nodes, never
# run, must give the ranks' computation the law's single-rank work: every
# segment 8 ms, shared by the two ranks, N x 8 ms in all for N segments per
# run (SPMD: each rank has the same N). It also reports plain SMPI's own
# figure. Timing noise on this shared machine cannot move the expected
# value (the real timings are replaced); a wrong law, a lost segment or
# work not conserved over the ranks does.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_real jacobi3d && build_smpi jacobi3d || { echo "build failed: $(cat smpicc.err)"; exit 1; }
MPIPREDICT_TRACE=real mpirun -np 1 ./jacobi3d.real -n 24 -i 4 >/dev/null 2>err.txt ||
	{ echo "trace run failed: $(tail -3 err.txt)"; exit 1; }
train=()
for n in 24 32 40; do
	for i in 1 2; do
		mkdir -p "t$n-$i"
		sed "s/^args .*/args -n $n -i 4/" real/meta >"t$n-$i/meta"
		awk -v n=$n '$2 == "compute" { printf "%s compute %.0f\n", $1, 1e6 * (n / 24) ^ 3; next } { print }' \
			real/rank-0.ti >"t$n-$i/rank-0.ti"
		train+=(--train "t$n-$i")
	done
done
N=$(grep -c ' compute ' real/rank-0.ti)
mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --nodes 2 --json -- ./jacobi3d.smpi -n 48 -i 4 >p.json 2>err.txt ||
	{ echo "predict failed: $(cat err.txt)"; exit 1; }
fail=0
jq -e '.simulated_s > 0 and .plain_smpi_s > 0 and .nodes == 2 and (.ranks | length) == 2' p.json >/dev/null ||
	{ echo "expected simulated_s, plain_smpi_s, 2 nodes, 2 ranks: $(jq -c '{simulated_s,plain_smpi_s,nodes}' p.json)"; fail=1; }
ranks_compute_is p.json "$(echo "$N * 0.008" | bc)" 0.001 "$N x 8 ms" || fail=1
exit $fail
