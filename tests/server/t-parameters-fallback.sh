#!/usr/bin/env bash
# Issue 15, items 1 and 4: always an answer from parameters, and out of
# range said out loud.
#
# Synthetic runs of y = 0.2 + 1e-6 N^2 S: the run time splits between two
# loop counters c1 = N^2 S u and c2 = N^2 S (1 - u), with u a random share
# per run (work balanced differently in every run, as an adaptive code
# does): the features model keeps both, and neither can be predicted from
# the job parameters (-n N --steps S), so the counters give no parameters
# path. Before this change the daemon answered 400 "cannot be predicted
# from job parameters"; now the run-time law answers (basis
# "runtime-law"), close to the truth, with an interval that holds it.
# Asked at N = 4x the largest trained size, the answer carries
# extrapolated: ["-n"] and an interval wider than the in-range one.
. "$MPP_SRC/tests/server/lib.sh"

hdr='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:a.c:1:1.mean,loop:a.c:9:1.mean'
awk -v hdr="$hdr" 'BEGIN {
	print hdr
	s = 4242
	for (i = 1; i <= 60; i++) {
		s = (s * 1103515245 + 12345) % 2147483648; n = 100 + 10 * (s % 31)
		s = (s * 1103515245 + 12345) % 2147483648; st = 10 + s % 41
		s = (s * 1103515245 + 12345) % 2147483648; u = 0.2 + 0.6 * (s % 1000) / 1000
		w = n * n * st
		printf "r%d,amr,b1,t,,1,1,%.9f,-n %d --steps %d,%.0f,%.0f\n", i, 0.2 + 1e-6 * w, n, st, w * u, w * (1 - u)
	}
}' >runs.csv
mpipredict-train --db "$DB" --json runs.csv >train.json 2>err.txt ||
	fail "expected training to work: $(cat err.txt)"
pb=$(jq -r '.models[0].params_basis' train.json)
[ "$pb" = runtime-law ] || fail "expected the parameters path to be the run-time law, got $pb"
jq -e '.models[0].cv_nested == true and (.models[0].cv_mape_params_pct < 5)' train.json >/dev/null ||
	fail "expected a nested CV error from parameters under 5 %, got $(jq -c '.models[0] | {cv_nested, cv_mape_params_pct}' train.json)"
start_daemon
ask() { # N S -> body
	st=$(req POST /v1/predict "{\"app\":\"amr\",\"ntasks\":1,\"nodes\":1,\"args\":\"-n $1 --steps $2\"}")
	expect_status 200 "$st" "predict N=$1 S=$2"
}
# In range, not a training setting: N = 255, S = 33.
ask 255 33
truth=$(awk 'BEGIN { printf "%.9f", 0.2 + 1e-6 * 255 * 255 * 33 }')
jq -e --argjson t "$truth" '.basis == "runtime-law" and (.runtime_s / $t - 1 | fabs) < 0.03 and
	.lower_s <= $t and $t <= .upper_s and (has("extrapolated") | not)' body >/dev/null ||
	fail "expected basis runtime-law within 3 % of $truth s, its interval holding it, not extrapolated; got $(cat body)"
w_in=$(jq '.upper_s / .lower_s' body)
# Out of range: N = 1600 (trained 100..400).
ask 1600 33
truth=$(awk 'BEGIN { printf "%.9f", 0.2 + 1e-6 * 1600 * 1600 * 33 }')
jq -e --argjson t "$truth" '.basis == "runtime-law" and .extrapolated == ["-n"] and
	(.runtime_s / $t - 1 | fabs) < 0.1' body >/dev/null ||
	fail "expected basis runtime-law, extrapolated [\"-n\"], within 10 % of $truth s; got $(cat body)"
w_out=$(jq '.upper_s / .lower_s' body)
awk -v a="$w_out" -v b="$w_in" 'BEGIN { exit !(a > b) }' ||
	fail "expected the extrapolated interval (upper/lower $w_out) wider than in range ($w_in)"
# More ranks than any training run (all had 1): extrapolated nprocs.
st=$(req POST /v1/predict '{"app":"amr","ntasks":4,"nodes":1,"args":"-n 255 --steps 33"}')
expect_status 200 "$st" "predict with 4 tasks"
jq -e '.extrapolated == ["nprocs"]' body >/dev/null ||
	fail "expected extrapolated [\"nprocs\"] for 4 tasks on a model of 1-rank runs, got $(cat body)"
stop_daemon
