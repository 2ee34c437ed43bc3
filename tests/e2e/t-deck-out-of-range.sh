#!/usr/bin/env bash
# Issue 15, items 2 and 4 together, on a program in the shape of HPL
# (tests/simulate/progs/lu.c: N and NB read from an input deck, HPL.dat's
# `key = value` lines and comments; no number in argv). Built with
# mpipredict-cc, run at 1 rank with MPIPREDICT_PARAMS="N=.. NB=.." (as
# the job script exports it), trained, then asked about jobs outside the
# range of N (400-880), of NB (16-32) and of the rank count (1):
#   - the rows carry the declared parameters after the deck's name;
#   - when the counters answer from parameters, training checks the N
#     edge (a training on N <= 720 predicting 880: its error and ratios);
#     when the run-time law answers (the machine's timing decides), no
#     edge check;
#   - mpipredict-predict --args names the parameters outside the range
#     on stderr (N above, NB below, nprocs above) and none in range, and
#     the interval outside is at least as wide, relative to the answer,
#     as the in-range one;
#   - mpipredict-predict --features, given real rows at N = 640 and
#     N = 1100 (measured after training), names the N = 1100 run only,
#     with the wider interval;
#   - training reports an error past the range (x_mape) from its
#     extrapolation checks, and GET /v1/models/lu gives the same;
#   - mpipredictd answers a batch script that declares the parameters
#     (`#MPIPREDICT param N=1100 NB=32`) with extrapolated ["N"] and the
#     CLI's answer, and a features request that shows its args with the
#     CLI's features answer and extrapolated ["N"].
# Nothing here depends on the machine's speed: the assertions are on which
# answers say they are outside the range, which edge is checked, the
# intervals' order and the agreement of the two front ends.
set -u
. "$MPP_SRC/tests/e2e/lib.sh"
e2e_need mpipredict-cc mpipredict-train mpipredict-predict mpipredictd
fail=0
trap e2e_stop_daemon EXIT

# shellcheck disable=SC2086
mpipredict-cc mpicc -O2 $MPP_TEST_CFLAGS "$MPP_SRC/tests/simulate/progs/lu.c" -o lu -lm ||
	{ echo "mpipredict-cc failed"; exit 1; }
deck() { # N NB -> dN-NB.in, as HPL.dat: a title, comments, keys
	printf 'HPL-like input deck\n# problem size and block size\nN  = %s\nNB = %s    # columns per block\n' \
		"$1" "$2" >"d$1-$2.in"
}
run() { # DEST N NB
	deck "$2" "$3"
	MPIPREDICT_PARAMS="N=$2 NB=$3" MPIPREDICT_RUNS=$1 mpirun -np 1 ./lu "d$2-$3.in" >out.txt 2>&1 ||
		{ echo "lu at N=$2 NB=$3: exit $?: $(tail -3 out.txt)"; exit 1; }
}
for rep in 1 2; do
	for n in 400 560 720 880; do
		for nb in 16 32; do run "$PWD/runs/" "$n" "$nb"; done
	done
done
[ "$(tail -n +2 runs/lu.csv | wc -l)" = 16 ] || { echo "expected 16 rows, got $(ls -R runs)"; exit 1; }
args=$(e2e_field runs/lu.csv args 3)
[ "$args" = "d560-16.in N=560 NB=16" ] || bad "row 3: expected args 'd560-16.in N=560 NB=16', got '$args'"

mpipredict-train --db models.db --json runs/lu.csv >train.json 2>err.txt ||
	{ echo "mpipredict-train: $(cat err.txt)"; exit 1; }
# Which parameters path answers depends on the machine's timing: the
# run-time law when it clearly beats the counters (LU's cost per flop
# grows with N here in some runs); the law's answers past the range are
# priced by the longest fifth's check alone, so then there is no edge
# check. The check's ratios bound its error (a ratio r errs |1 - 1/r|).
jq -e '.models[0] | .params_basis as $b | .edges.N |
	if $b == "runtime-law" then .check_pct == null
	else (.check_pct | type) == "number" and .check_pct >= 0 and
		.check_ratios[0] <= .check_ratios[1] and
		.check_pct <= 100 * ([(1 - 1 / .check_ratios[0] | fabs), (1 - 1 / .check_ratios[1] | fabs)] | max) + 1e-9
	end' train.json >/dev/null ||
	bad "the N edge: expected, from the counters, a check (its error within its ratios), from the run-time law none; got $(jq -c '.models[0] | {params_basis, N: .edges.N}' train.json)"

# The error to expect past the range, from the extrapolation checks
# (the longest fifth always; the edge check when the counters answer).
xm=$(jq -r '.models[0].x_mape_pct' train.json)
jq -e '.models[0] | (.x_mape_pct | type) == "number" and .x_mape_pct > 0 and .x_mape_answers >= 3' train.json >/dev/null ||
	bad "expected an error past the range from 3 or more answers, got $(jq -c '.models[0] | {x_mape_pct, x_mape_answers}' train.json)"

# predict ARGS NTASKS -> "answer lower upper" on stdout, stderr in perr.txt
predict() {
	mpipredict-predict --csv --db models.db --app lu --args "$1" --ntasks "$2" 2>perr.txt | cut -d, -f2- | tr , ' '
}
wider() { # LABEL "p lo hi" (outside) "p lo hi" (in range); printed to 6 digits
	awk -v o="$2" -v i="$3" 'BEGIN { split(o, a, " "); split(i, b, " ")
		exit !(a[1] > 0 && b[1] > 0 && a[3] / a[1] >= b[3] / b[1] * (1 - 1e-5) && a[2] / a[1] <= b[2] / b[1] * (1 + 1e-5)) }' ||
		bad "$1: expected an interval at least as wide as in range ($3), got $2"
}
in_range=$(predict "d640-24.in N=640 NB=24" 1)
grep -q extrapolated perr.txt && bad "N=640 NB=24: expected no extrapolation, got: $(cat perr.txt)"
for c in "N|d1100-32.in N=1100 NB=32|1" "NB|d640-8.in N=640 NB=8|1" "nprocs|d640-24.in N=640 NB=24|2"; do
	IFS='|' read -r name a np <<<"$c"
	out=$(predict "$a" "$np")
	grep -q "extrapolated: $name (outside" perr.txt ||
		bad "$a at $np ranks: expected '$name' named as extrapolated, got: $(cat perr.txt)"
	wider "$a at $np ranks" "$out" "$in_range"
done
params_far=$(predict "d1100-32.in N=1100 NB=32" 1)

# Two real runs measured after training: one inside, one above the range.
run "$PWD/held.csv" 640 24
run "$PWD/held.csv" 1100 32
mpipredict-predict --csv --db models.db --app lu --features held.csv >feat.txt 2>ferr.txt ||
	{ echo "mpipredict-predict --csv --features: $(cat ferr.txt)"; exit 1; }
id_in=$(e2e_field held.csv run_id 1) id_far=$(e2e_field held.csv run_id 2)
grep -q "run $id_far: extrapolated: N (outside" ferr.txt ||
	bad "--features: expected run $id_far (N=1100) named as extrapolated, got: $(cat ferr.txt)"
grep -q "run $id_in:" ferr.txt && bad "--features: expected nothing said of run $id_in (N=640), got: $(cat ferr.txt)"
feat_in=$(grep "^$id_in," feat.txt | cut -d, -f2- | tr , ' ')
feat_far=$(grep "^$id_far," feat.txt | cut -d, -f2- | tr , ' ')
wider "--features at N=1100" "$feat_far" "$feat_in"

# The daemon: a job script that declares the deck's sizes, and a features
# request with its args.
e2e_start_daemon models.db daemon.log || { cat daemon.log; echo "mpipredictd did not answer /healthz"; exit 1; }
same() { # LABEL "p lo hi" (CLI) -> compares with body.json's answer
	jq -e --arg w "$2" '($w | split(" ") | map(tonumber)) as $x |
		[.runtime_s, .lower_s, .upper_s] as $y |
		[range(3)] | all(($y[.] / $x[.] - 1 | fabs) < 1e-5)' body.json >/dev/null ||
		bad "$1: expected the CLI's $2, got $(cat body.json)"
}
script=$'#!/bin/bash\n#SBATCH -n 1\n#SBATCH -t 10\n#MPIPREDICT param N=1100 NB=32\nsrun ./lu d1100-32.in\n'
curl -sS -o body.json -w '%{http_code}\n' -H 'Content-Type: application/json' \
	-d "$(jq -n --arg s "$script" '{script: $s}')" "$E2E_URL/v1/predict" >code.txt
[ "$(cat code.txt)" = 200 ] || bad "script at N=1100: expected 200, got $(cat code.txt): $(cat body.json)"
jq -e '.app == "lu" and .extrapolated == ["N"]' body.json >/dev/null ||
	bad "script at N=1100: expected app lu, extrapolated [\"N\"], got $(cat body.json)"
same "script at N=1100" "$params_far"
curl -sS -o model.json "$E2E_URL/v1/models/lu"
jq -e --argjson x "$xm" '(.x_mape - $x | fabs) < 1e-6 * $x' model.json >/dev/null ||
	bad "GET /v1/models/lu: expected x_mape $xm, got $(jq -c '{x_mape, cv_mape}' model.json)"
feats=$(mpipredict-predict --csv --db models.db --app lu --used-features | jq -R . | jq -s .)
row=$(sed -n '1p;3p' held.csv | jq -R 'split(",")' | jq -s '[.[0], .[1]] | transpose | map({(.[0]): .[1]}) | add')
curl -sS -o body.json -w '%{http_code}\n' -H 'Content-Type: application/json' \
	-d "$(jq -n --argjson f "$feats" --argjson r "$row" '{app: "lu", args: $r.args, ntasks: 1,
		features: ($f | map({(.): ($r[.] | tonumber)}) | add)}')" "$E2E_URL/v1/predict" >code.txt
[ "$(cat code.txt)" = 200 ] || bad "features at N=1100: expected 200, got $(cat code.txt): $(cat body.json)"
jq -e '.basis == "features" and .extrapolated == ["N"]' body.json >/dev/null ||
	bad "features at N=1100: expected basis features, extrapolated [\"N\"], got $(cat body.json)"
same "features at N=1100" "$feat_far"
exit "$fail"
