#!/usr/bin/env bash
# A program in the shape of a real solver (progs/heat.c: sizes from an
# input deck, a halo exchange with Irecv/Isend/Waitall in every iteration,
# an Allreduce convergence check every 5 iterations, so the iteration
# count depends on the input), traced at 1 rank at three decks and
# predicted at 2 ranks for a fourth deck never run before the prediction.
# The deck's size reaches the per-segment laws through MPIPREDICT_PARAMS
# (in the traces' meta and in predict's target), as a job declares it.
# Checked, none of it depending on this shared machine's timing:
#   - the training decks converge in different iteration counts, and the
#     prediction's skeleton has exactly the iteration count of a real
#     2-rank run of the target deck (afterwards): the count comes from the
#     target input, it is not extrapolated;
#   - with the traces' computation rewritten to an exact law (every
#     segment 0.1 ms x (nx/24)^2), the ranks' predicted computation is the
#     law's single-rank work at nx = 56 for the target's segments;
#   - the real 2-rank trace replays with no approximated action;
#   - the skeleton kept with --skeleton serves a second placement (2 nodes)
#     without an SMPI run, and there the exchange costs more (net latency).
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
export OMPI_MCA_mpi_yield_when_idle=1
write_profile profile.json
build_prog heat
fail=0
train=() counts=()
for nx in 24 32 40; do
	heat_deck $nx
	MPIPREDICT_PARAMS="nx=$nx" MPIPREDICT_TRACE=real$nx mpirun -np 1 ./heat.real d$nx.in >out.txt 2>err.txt ||
		{ echo "trace run at nx=$nx failed: $(tail -3 err.txt)"; exit 1; }
	grep -qx "args d$nx.in nx=$nx" real$nx/meta ||
		{ echo "expected MPIPREDICT_PARAMS in the trace's meta, got: $(cat real$nx/meta)"; fail=1; }
	counts+=("$(grep -c ' allreduce ' real$nx/rank-0.ti)")
	# the exact law: 0.1 ms x (nx/24)^2 per segment
	mkdir -p "t$nx"
	cp real$nx/meta t$nx/meta
	awk -v n=$nx '$2 == "compute" { printf "%s compute %.0f\n", $1, 1e5 * (n / 24) ^ 2; next } { print }' \
		real$nx/rank-0.ti >t$nx/rank-0.ti
	train+=(--train "t$nx")
done
[ "${counts[0]}" != "${counts[1]}" ] && [ "${counts[1]}" != "${counts[2]}" ] ||
	{ echo "expected the iteration count to depend on the deck, got allreduces ${counts[*]}"; fail=1; }
heat_deck 56
MPIPREDICT_PARAMS="nx=56" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --json --skeleton "$PWD/sk" -- ./heat.smpi d56.in >p1.json 2>err.txt ||
	{ echo "predict failed: $(cat err.txt)"; exit 1; }
MPIPREDICT_PARAMS="nx=56" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --nodes 2 --json --skeleton "$PWD/sk" -- ./heat.smpi d56.in >p2.json 2>err.txt ||
	{ echo "predict on 2 nodes failed: $(cat err.txt)"; exit 1; }
# the target, run only now: its iteration count and its segments
MPIPREDICT_TRACE=m mpirun -np 2 ./heat.real d56.in >out.txt 2>err.txt ||
	{ echo "2-rank run failed: $(tail -3 err.txt)"; exit 1; }
want=$(grep -c ' allreduce ' m/rank-0.ti) got=$(grep -c ' allreduce ' sk/rank-0.ti)
[ "$want" = "$got" ] && [ "$want" != "${counts[2]}" ] ||
	{ echo "expected the skeleton's $got allreduces to be the real run's $want (training: ${counts[*]})"; fail=1; }
N=$(grep -c ' compute ' m/rank-0.ti)
ranks_compute_is p1.json "$(echo "$N * 0.0001 * (56/24)^2" | bc -l)" 0.005 "$N x 0.1 ms x (56/24)^2" || fail=1
jq -e '.skeleton_reused == false and .plain_smpi_s > 0' p1.json >/dev/null &&
	jq -e '.skeleton_reused == true and .plain_smpi_s == null and .smpi_run_wall_s == 0 and .nodes == 2' p2.json >/dev/null ||
	{ echo "expected the first prediction to run SMPI and the second to reuse its skeleton: $(jq -c '{skeleton_reused,plain_smpi_s,nodes}' p1.json p2.json | tr '\n' ' ')"; fail=1; }
awk -v a="$(jq .simulated_s p1.json)" -v b="$(jq .simulated_s p2.json)" 'BEGIN { exit !(b > a) }' ||
	{ echo "expected 2 nodes slower than 1 (net latency 25 us vs 0.4 us), got $(jq .simulated_s p1.json p2.json | tr '\n' ' ')"; fail=1; }
mpipredict-simulate replay --profile profile.json --trace m --json >r.json 2>err.txt ||
	{ echo "replay failed: $(cat err.txt)"; exit 1; }
jq -e '.approximated_actions == 0 and .simulated_s > 0' r.json >/dev/null ||
	{ echo "expected the real trace replayed with nothing approximated: $(jq -c '{approximated_actions,simulated_s}' r.json)"; fail=1; }
# a skeleton of another input is refused, naming it
MPIPREDICT_PARAMS="nx=40" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --skeleton "$PWD/sk" -- ./heat.smpi d40.in >/dev/null 2>err.txt
rc=$?
[ $rc = 2 ] && grep -q "skeleton .*sk: a run of 'ranks 2 args d56.in nx=56'" err.txt ||
	{ echo "expected exit 2 naming the skeleton's run, got $rc: $(cat err.txt)"; fail=1; }
exit $fail
