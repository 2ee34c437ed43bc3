#!/usr/bin/env bash
# Issue 15, requirement 3: the choice of terms must not flip between two
# sessions of runs of the same design. gen-md writes a molecular-dynamics
# code's rows (a force counter ~ s^3 n and a halo counter ~ s^2.1 n share
# the run time; 40 runs, sizes 16-32, 5 % noise); seeds 1 and 4 are two
# sessions. On them the one-standard-error rule alone keeps force + halo
# in session 1 but halo + steps in session 4 (3.6 % against 34.6 %
# extrapolation error at sizes 48-64 before this change). Asserted: both
# sessions keep the force and the halo counters, session 4 by the stable
# choice overriding the 1-SE set (kept_candidate > 0), and each
# session's error from job parameters on never-run sizes 48-64 is under
# 10 % (3.7 and 7.4 % when written). (The two errors were also asserted
# within 1.5x of each other; that held while session 1 answered from its
# run-time law, chosen over the counters by 1.00007 standard errors, at
# 6.6 %: a coin's throw. With the law needing two, its counters answer,
# 3.7 %; the sessions' answers then differ by 11 %, as a fit of runs with
# 5 % noise carried past its range does: docs/benchmarks.md.)
set -u
gen=$MPP_BUILD/tests/regress/gen-md
fail=0
"$gen" --runs 12 --seed 999 --first 100000 --noise 0 --ranks-levels 1 --smin 48 --smax 64 >far.csv || exit 1

declare -A err
for s in 1 4; do
	"$gen" --runs 40 --seed $s --noise 0.05 --ranks-levels 1 --smin 16 --smax 32 >s$s.csv || exit 1
	mpipredict-train --db s$s.db --json s$s.csv >s$s.json 2>err.txt ||
		{ echo "session $s: expected training to succeed, got:"; cat err.txt; exit 1; }
	terms=$(jq -c '[.models[0].terms[].feature] | sort' s$s.json)
	for want in loop:md_force.c:212:5.mean loop:md_comm.c:88:9.mean; do
		jq -e --arg w "$want" '[.models[0].terms[].feature] | index($w) != null' s$s.json >/dev/null ||
			{ echo "session $s: expected $want kept, got $terms"; fail=1; }
	done
	# Predictions from job parameters on never-run sizes: every answer is
	# flagged extrapolated; the mean relative error against the truth.
	tail -n +2 far.csv | while IFS=, read -r _ _ _ _ _ np _ y args _; do
		mpipredict-predict --csv --db s$s.db --app md --args "$args" --ntasks "$np" | tail -n 1 | cut -d, -f2 | tr '\n' ' '
		echo "$y"
	done >p$s.txt
	[ "$(wc -l <p$s.txt)" = 12 ] || { echo "session $s: expected 12 answers from parameters, got $(wc -l <p$s.txt)"; fail=1; }
	err[$s]=$(awk '{ e = ($1 - $2) / $2; if (e < 0) e = -e; s += e } END { printf "%.2f", 100 * s / NR }' p$s.txt)
	echo "session $s: terms $terms, stable choice $(jq -c '.models[0].stable_choice' s$s.json), error from parameters at sizes 48-64: ${err[$s]} %"
done
jq -e '.models[0].stable_choice.kept_candidate > 0' s4.json >/dev/null ||
	{ echo "session 4: expected the stable choice to override the 1-SE set, got $(jq -c '.models[0].stable_choice' s4.json)"; fail=1; }
awk -v a="${err[1]}" -v b="${err[4]}" 'BEGIN { exit !(a < 10 && b < 10) }' ||
	{ echo "expected both sessions' extrapolation errors under 10 %, got ${err[1]} % and ${err[4]} %"; fail=1; }
exit $fail
