#!/usr/bin/env bash
# A model's answers outside the training range when ridge wins the
# cross-validation with terms that cancel (issue 40, requirement 3: no
# model keeps them). The rows of tests/regress/data/cg-ridge-train.csv and
# cg-ridge-held.csv are real: tests/apps/cg.c measured by make
# bench-accuracy on 2026-11-27 (session 6), 3 repeats of -n 32-80 x -i
# 100-300 at 1 and 2 ranks for training, -n 96 held out (columns constant
# over all the rows left out). On these 72 runs ridge wins the
# cross-validation over NNLS (7.4 % against 9.6 %) with ten terms whose
# shares cancel (-808 % to +806 %); past -n 80 they stop cancelling.
#
# Asserted:
#   - training keeps NNLS (ridge_cancels), every share positive;
#   - from features, the held runs at -n 96 (outside the range) within
#     20 % (19.1 % measured; ridge with an NNLS refit past the range, the
#     model before, answered 12.2 %, and 13.0 % NNLS with the edge factor
#     since dropped, regress/README.md: cg's cost per point grows past the
#     range, which the factor was added for and the development set's
#     real codes did not bear out); from parameters -n 96 -i 200 at 1 rank
#     within 20 % of the held runs' median (15.6 %), and mpipredictd
#     answers the same from the store;
#   - the extrapolation interval covers the edge checks' held ratios;
#   - from features, outside the range the interval is the wider of the
#     features one and the extrapolation one, inside it the features one;
#   - a LULESH-shaped twin (synthetic rows: an element loop N^3 I, a node
#     loop 8 N^3 I, boundary faces 6 N^2 I, a per-plane loop N I, a branch
#     and halo traffic at 2 ranks; cost per element up 1.9x from N = 32 to
#     48 as the mesh leaves the cache, flat after) trained on N = 24-56:
#     ridge wins again with terms that cancel (129, -75 and 16 %), NNLS is
#     kept, and at N = 64 and 80 it answers within 10 % (8.5 % measured;
#     3.1 % with the edge factor since dropped, ridge with an NNLS refit
#     past the range and that factor 5.2 %).
. "$MPP_SRC/tests/server/lib.sh"

data=$MPP_SRC/tests/regress/data
mpipredict-train --db "$DB" --json "$data/cg-ridge-train.csv" >train.json 2>err.txt ||
	fail "expected training to work: $(cat err.txt)"
jq -e '.models[0] | .fit == "nnls" and .ridge_cancels == true
	and .cv_mape_ridge_pct < .cv_mape_nnls_pct and all(.terms[]; .share_pct > 0)' train.json >/dev/null ||
	fail "expected NNLS kept over ridge's cancelling terms, got $(jq -c '.models[0] | {fit, ridge_cancels, cv_mape_nnls_pct, cv_mape_ridge_pct, s: [.terms[].share_pct]}' train.json)"

# The edge checks' held runs were answers past a range: the extrapolation
# interval covers their ratios actual / predicted, and here -n's top ratio
# is above what the longest fifth alone gave (so it widened it).
jq -e '.models[0] | .interval.extrapolated as $x | [.edges[] | .check_ratios | select(.[0] != null)] |
	length > 0 and all(.[0] >= $x[0] - 1e-9 and .[1] <= $x[1] + 1e-9)' train.json >/dev/null ||
	fail "expected the extrapolation interval to cover the edge checks' ratios, got $(jq -c '.models[0] | {x: .interval.extrapolated, r: [.edges[] | .check_ratios]}' train.json)"

# mape FILE: the held runs' error (percent) of mpipredict-predict's answers
mape() {
	tail -n +2 "$data/cg-ridge-held.csv" | cut -d, -f8 | paste -d, "$1" - |
		awk -F, '{ d = ($2 - $5) / $5; s += (d < 0 ? -d : d); n++ } END { printf "%.2f", 100 * s / n }'
}
truth=$(awk -F, '$6 == 1 && $9 == "-n 96 -i 200" { print $8 }' "$data/cg-ridge-held.csv" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
inrange=$(head -2 "$data/cg-ridge-train.csv")
answers() { # TAG: features, parameters and an in-range row's answers
	mpipredict-predict --csv --db "$DB" --app cg --features "$data/cg-ridge-held.csv" >"feat-$1.txt" 2>/dev/null ||
		fail "mpipredict-predict --csv --features ($1)"
	mpipredict-predict --csv --db "$DB" --app cg --args "-n 96 -i 200" --ntasks 1 2>/dev/null | tail -n 1 | cut -d, -f2 >"par-$1.txt"
	printf '%s\n' "$inrange" >in.csv
	mpipredict-predict --csv --db "$DB" --app cg --features in.csv 2>/dev/null | cut -d, -f2 >"in-$1.txt"
	mpipredict-predict --csv --db "$DB" --app cg --args "-n 64 -i 200" --ntasks 1 2>/dev/null | tail -n 1 | cut -d, -f2 >>"in-$1.txt"
}
answers with
# mpipredictd loads the same fit from the store: its answer past the range
# is mpipredict-predict's.
start_daemon
st=$(req POST /v1/predict '{"app": "cg", "args": "-n 96 -i 200", "ntasks": 1}')
expect_status 200 "$st" "the daemon, past the range"
jq -e --argjson p "$(cat par-with.txt)" '(.runtime_s / $p - 1 | fabs) < 1e-5 and .extrapolated == ["-n"]' body >/dev/null ||
	fail "the daemon: expected $(cat par-with.txt) s with extrapolated [\"-n\"], got $(cat body)"
stop_daemon
fw=$(mape feat-with.txt)
pw=$(cat par-with.txt)
ew=$(awk -v a="$pw" -v t="$truth" 'BEGIN { x = (a - t) / t; printf "%.2f\n", 100 * (x < 0 ? -x : x) }')
echo "cg at -n 96: from features $fw %; -n 96 -i 200 from parameters $pw s ($ew %), measured $truth s"
awk -v a="$fw" -v b="$ew" 'BEGIN { exit !(a <= 20 && b <= 20) }' ||
	fail "expected cg at -n 96 within 20 % from features and from parameters, got $fw % and $ew %"

# The features answers outside the range get the wider extrapolation
# interval (upper / answer = the larger of the two factors), inside it their own.
read -r fhi xhi < <(jq -r '.models[0].interval | "\(.features[1]) \(.extrapolated[1])"' train.json)
awk -F, -v f="$fhi" -v x="$xhi" '{ h = (f > x ? f : x); r = $4 / $2; if (r < h * 0.9999 || r > h * 1.0001) bad++ }
	END { exit bad > 0 }' feat-with.txt ||
	fail "features outside the range: expected upper = answer x max($fhi, $xhi), got $(head -2 feat-with.txt | tr '\n' ';')"
mpipredict-predict --csv --db "$DB" --app cg --features in.csv 2>/dev/null | awk -F, -v f="$fhi" '{ r = $4 / $2; exit !(r > f * 0.9999 && r < f * 1.0001) }' ||
	fail "features inside the range: expected upper = answer x $fhi"

# The LULESH-shaped twin (the generator's rows are deterministic).
gen_lulesh() { # SEED SIZES
	awk -v seed="$1" -v sizes="$2" 'BEGIN {
		print "run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:lulesh.cc:1200:3.mean,loop:lulesh.cc:1450:5.mean,loop:lulesh.cc:980:2.mean,loop:lulesh.cc:2100:2.mean,then:lulesh.cc:1310:7.mean,loop:lulesh-comm.cc:88:9.mean"
		s = seed; k = 0
		n = split(sizes, ns, " "); m = split("50 100 150", is, " ")
		for (a = 1; a <= n; a++) for (b = 1; b <= m; b++) for (p = 1; p <= 2; p++) for (rep = 1; rep <= 3; rep++) {
			N = ns[a]; I = is[b]; e = N * N * N / p
			s = (s * 1103515245 + 12345) % 2147483648; u = (s % 10000) / 10000 - 0.5
			c = 4e-9 * (1 + 0.9 / (1 + exp(-(N - 40) / 4)))
			y = (0.15 + c * 9 * e * I + 3e-7 * N * N * I * (p > 1)) * (1 + 0.05 * u)
			printf "lu-%d,lulesh,b1,t,,%d,1,%.6f,-s %d -i %d,%d,%d,%d,%d,%d,%d\n", ++k, p, y, N, I, e * I, 8 * e * I, 6 * N * N * I / p, N * I, int(0.13 * e * I), (p > 1) * 4 * N * N * I
		}
	}'
}
gen_lulesh 7 "24 32 40 48 56" >lulesh-train.csv
gen_lulesh 8 "64 80" >lulesh-held.csv
rm -f "$DB"*
mpipredict-train --db "$DB" --json lulesh-train.csv >ltrain.json 2>err.txt || fail "lulesh twin: training: $(cat err.txt)"
jq -e '.models[0] | .fit == "nnls" and .ridge_cancels == true and all(.terms[]; .share_pct > 0)' ltrain.json >/dev/null ||
	fail "lulesh twin: expected NNLS kept over ridge's cancelling terms, got $(jq -c '.models[0] | {fit, ridge_cancels, s: [.terms[].share_pct]}' ltrain.json)"
lw=$(mpipredict-predict --csv --db "$DB" --app lulesh --features lulesh-held.csv 2>/dev/null |
	paste -d, - <(tail -n +2 lulesh-held.csv | cut -d, -f8) |
	awk -F, '{ d = ($2 - $5) / $5; s += (d < 0 ? -d : d); n++ } END { printf "%.2f", 100 * s / n }')
echo "lulesh twin at N = 64, 80 from features: $lw %"
awk -v a="$lw" 'BEGIN { exit !(a <= 10) }' ||
	fail "lulesh twin: expected N = 64 and 80 within 10 %, got $lw %"
exit 0
