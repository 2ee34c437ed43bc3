#!/usr/bin/env bash
# For a model trained by mpipredict-train on synthetic runs, POST
# /v1/predict answers what mpipredict-predict prints for the same model:
# from every run's measured features, and from job parameters given as an
# args string, an args array and a batch script. mpipredict-predict prints
# 6 significant digits, hence the tolerance.
. "$MPP_SRC/tests/server/lib.sh"

"$MPP_BUILD/tests/regress/gen-runs" --runs 40 --features 30 --seed 3 >runs.csv ||
	fail "expected gen-runs to write runs"
mpipredict-train --db "$DB" runs.csv >train.out || fail "expected mpipredict-train to work: $(cat train.out)"
mpipredict-predict --csv --db "$DB" --app stencil --features runs.csv >cli.csv ||
	fail "expected mpipredict-predict to work"
start_daemon

same() { # WHAT CLI-LINE REST-BODY
	local cli=$2 rest
	rest=$(jq -r '[.runtime_s, .lower_s, .upper_s] | map(tostring) | join(",")' "$3") ||
		fail "$1: expected a prediction, got $(cat "$3")"
	awk -v what="$1" -v c="${cli#*,}" -v r="$rest" 'BEGIN {
		n = split(c, a, ","); split(r, b, ",")
		for (i = 1; i <= 3; i++) {
			d = a[i] - b[i]; if (d < 0) d = -d
			m = a[i] < 0 ? -a[i] : a[i]
			if (n != 3 || d > 1e-5 * m + 1e-12) {
				printf "%s: expected %s (mpipredict-predict), got %s\n", what, c, r
				exit 1
			}
		} }' || fail "prediction differs"
}

# One request per run row, its feature columns as the features object.
awk -F, 'NR == 1 { for (i = 10; i <= NF; i++) name[i] = $i; next }
	{ printf "{\"app\":\"stencil\",\"job_id\":\"%s\",\"features\":{", $1
	  sep = ""
	  for (i = 10; i <= NF; i++) if ($i != "") { printf "%s\"%s\":%s", sep, name[i], $i; sep = "," }
	  print "}}" }' runs.csv >requests.jsonl
n=0
while IFS= read -r line <&3 && IFS= read -r cli <&4; do
	n=$((n + 1))
	st=$(req POST /v1/predict "$line")
	expect_status 200 "$st" "run $n"
	[ "$(jq -r .basis body)" = features ] || fail "run $n: expected basis features, got $(cat body)"
	[ "$(jq -r .model.version body)" = 1 ] || fail "run $n: expected model version 1, got $(cat body)"
	same "run $n" "$cli" body
done 3<requests.jsonl 4<cli.csv
[ "$n" = 40 ] || fail "expected 40 runs compared, got $n"

cli=$(mpipredict-predict --csv --db "$DB" --app stencil --args "-n 64 --iters=10" --ntasks 4) ||
	fail "expected mpipredict-predict from parameters to work"
st=$(req POST /v1/predict '{"app":"stencil","ntasks":4,"args":"-n 64 --iters=10"}')
expect_status 200 "$st" "parameters (string)"
same "parameters (string)" "$cli" body
st=$(req POST /v1/predict '{"app":"stencil","ntasks":4,"args":["-n","64","--iters=10"]}')
expect_status 200 "$st" "parameters (array)"
same "parameters (array)" "$cli" body
script=$'#!/bin/bash\n#SBATCH -N 1\n#SBATCH --ntasks=4\nsrun --mpi=pmix ./stencil -n 64 --iters=10\n'
st=$(req POST /v1/predict "$(jq -n --arg s "$script" '{script:$s}')")
expect_status 200 "$st" "script"
same "script" "$cli" body
[ "$(jq -r .basis body)" = parameters ] || fail "script: expected basis parameters, got $(cat body)"
stop_daemon
[ "$(rows predictions)" = 43 ] || fail "expected 43 audit rows, got $(rows predictions)"
echo "40 feature rows and 3 parameter requests match mpipredict-predict"
