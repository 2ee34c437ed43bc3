#!/usr/bin/env bash
# The residual (issue 17): what the simulator misses, measured on the
# training runs nearest the target. progs/heat.c, a solver in the shape of
# a real code: sizes from an input deck declared with MPIPREDICT_PARAMS, a
# halo exchange per iteration, a convergence check with MPI_Allreduce
# every 5 iterations, so the target runs more iterations (more MPI
# actions) than any training run. Traced at 2 ranks at two decks,
# predicted at 2 ranks for a third.
# Checked, none of it on the machine's speed (the replay is deterministic
# for the same files; JSON reals have 8 digits, hence relative bounds):
#   - predicted_s = simulated_s + residual_s, and the report says where it
#     came from (the 2-rank run of the largest deck);
#   - the same training set with the largest deck's walls raised by 50 ms
#     (as if that run had lost 50 ms inside MPI calls): the simulated time
#     does not move, the residual per MPI action grows by 50 ms over that
#     trace's MPI actions per rank, and the prediction by that times the
#     target's actions per rank (its skeleton's);
#   - --no-residual: predicted_s = simulated_s, and the report says none;
#   - at 4 ranks, beyond the traced ones: the residual is the share of
#     the simulated time that the 2-rank run of the largest deck spent
#     beyond its replay (its wall and the kept replay's log), not per
#     MPI action.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog heat
heat_decks
for nx in 96 120; do
	MPIPREDICT_PARAMS="nx=$nx" traced h$nx 2 ./heat.real d$nx.in
done
# h120 with every rank's wall 50 ms longer
mkdir -p x120
cp h120/meta x120/
for f in h120/rank-*.ti; do
	awk '$1 == "#" && $2 == "wall" { printf "# wall %.9f\n", $3 + 0.05; next } { print }' "$f" >"x120/$(basename "$f")"
done
acts() { # trace dir -> MPI actions per rank (all but compute, init, finalize)
	cat "$1"/r*.ti | awk '$1 != "#" && $2 != "compute" && $2 != "init" && $2 != "finalize" { n++ }
		END { print n }' | awk -v r="$(ls "$1"/r*.ti | wc -l)" '{ printf "%.6f\n", $1 / r }'
}
fail=0
pred() { # out.json train...
	local out=$1
	shift
	MPIPREDICT_PARAMS="nx=144" mpipredict-simulate predict --profile profile.json "$@" --ranks 2 --json \
		--skeleton "$PWD/sk" -- ./heat.smpi d144.in >"$out" 2>err.txt ||
		{ echo "predict ($*) failed: $(head -3 err.txt)"; exit 1; }
}
pred base.json --train h96 --train h120
pred raised.json --train h96 --train x120
pred off.json --train h96 --train h120 --no-residual
jq -e '(.predicted_s - .simulated_s - .residual_s | fabs) < 1e-6 * .predicted_s and (.residual_per_action_s | type) == "number"' base.json >/dev/null ||
	{ echo "expected predicted_s = simulated_s + residual_s: $(jq -c '{simulated_s, residual_s, residual_per_action_s, predicted_s}' base.json)"; fail=1; }
a120=$(acts h120) atgt=$(acts sk)
awk -v a="$a120" -v b="$(acts h96)" -v t="$atgt" 'BEGIN { exit !(a > b && t > a) }' ||
	{ echo "expected more MPI actions per rank with each deck (more iterations), got $(acts h96) $a120 $atgt"; fail=1; }
read -r s0 s1 r0 r1 p0 p1 < <(jq -rs '"\(.[0].simulated_s) \(.[1].simulated_s) \(.[0].residual_per_action_s) \(.[1].residual_per_action_s) \(.[0].predicted_s) \(.[1].predicted_s)"' base.json raised.json)
awk -v a="$s0" -v b="$s1" 'BEGIN { d = a - b; exit !(d < 1e-6 * a && d > -1e-6 * a) }' ||
	{ echo "expected the raised walls to leave the simulated time alone, got $s0 and $s1 s"; fail=1; }
awk -v r0="$r0" -v r1="$r1" -v a="$a120" 'BEGIN { w = 0.05 / a; d = (r1 - r0) - w; exit !(d < 1e-4 * w && d > -1e-4 * w) }' ||
	{ echo "expected the residual per action to grow by 50 ms / $a120 actions, got $r0 -> $r1 s"; fail=1; }
awk -v p0="$p0" -v p1="$p1" -v a="$a120" -v t="$atgt" 'BEGIN { w = 0.05 / a * t; d = (p1 - p0) - w; exit !(d < 1e-4 * w && d > -1e-4 * w) }' ||
	{ echo "expected the prediction to grow by 50 ms x $atgt / $a120 target/training actions, got $p0 -> $p1 s"; fail=1; }
jq -e '.predicted_s == .simulated_s and .residual_s == 0 and .residual_per_action_s == null' off.json >/dev/null ||
	{ echo "--no-residual: expected predicted_s = simulated_s, got $(jq -c '{simulated_s, residual_s, predicted_s}' off.json)"; fail=1; }
# Beyond the traced rank counts (4 ranks from 2-rank traces): the share
# of the simulated time the 2-rank run spent beyond its replay, not the
# actions per rank (a rank's actions grow with its neighbours while its
# time falls).
MPIPREDICT_PARAMS="nx=144" mpipredict-simulate predict --profile profile.json --train h96 --train h120 --ranks 4 \
	--json --keep k4 -- ./heat.smpi d144.in >four.json 2>err.txt || { echo "predict at 4 ranks failed: $(head -3 err.txt)"; exit 1; }
w=$(awk '$1 == "#" && $2 == "wall" && $3 > w { w = $3 } END { print w }' h120/rank-*.ti)
s=$(sed -n 's/.*Simulation time \([0-9.e+-]*\).*/\1/p' k4/residual-0/replay.log)
jq -e --argjson w "$w" --argjson s "$s" '(.residual_fraction - ($w - $s) / $s | fabs) < 1e-6 and
	(.residual_s - .residual_fraction * .simulated_s | fabs) < 1e-6 * .predicted_s and
	(.predicted_s - .simulated_s - .residual_s | fabs) < 1e-6 * .predicted_s' four.json >/dev/null ||
	{ echo "at 4 ranks: expected residual_s = (wall - replay) / replay of h120 ($w, $s) x simulated_s, got $(jq -c '{simulated_s, residual_fraction, residual_s, predicted_s}' four.json)"; fail=1; }
MPIPREDICT_PARAMS="nx=144" mpipredict-simulate predict --profile profile.json --train h96 --train h120 --ranks 2 \
	--skeleton "$PWD/sk" -- ./heat.smpi d144.in >text.txt 2>err.txt || { echo "predict (text) failed: $(head -3 err.txt)"; exit 1; }
grep -q "^residual: [-+][0-9.]* s (.* per MPI action beyond the replay of 1 2-rank 'd120.in nx=120' run(s)" text.txt &&
	grep -q "^predicted run time " text.txt ||
	{ echo "expected the report's residual and predicted lines, got: $(grep -E '^(residual|predicted)' text.txt)"; fail=1; }
exit $fail
