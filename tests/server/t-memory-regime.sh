#!/usr/bin/env bash
# Issue 15: the memory regime (regress/memory.h) through POST /v1/predict,
# on the measured cg rows and machine profile of tests/regress/data (see
# tests/regress/t-memory-regime-cg.sh). The daemon must answer as the CLI
# does, and say the factor and the footprint it read:
#   - from parameters (N = 96, 300 iterations, 2 ranks): runtime_s equal
#     to mpipredict-predict's, memory_factor above 1, node_footprint_mib
#     within 15 % of the held runs' measured footprint (2 x their peak
#     memory per rank): it comes from the model's law of peak memory;
#   - from a held run's measured features with its ntasks and args: equal to the
#     CLI's answer for that row, the footprint exactly the row's;
#   - GET /v1/models/cg shows memory_beta > 0;
#   - a features request without the run's peak memory and without job
#     parameters gets a 4xx naming mem:peak_rss_kib.mean.
. "$MPP_SRC/tests/server/lib.sh"
D=$MPP_SRC/tests/regress/data

mpipredict-train --db "$DB" "$D/cg-memory-train.csv" >/dev/null 2>err.txt || fail "first training: $(cat err.txt)"
sqlite3 "$DB" "INSERT INTO machine_profiles (machine, created_at, profile) VALUES ('bench-h', 'now', readfile('$D/machine-memory.json'))"
mpipredict-train --db "$DB" "$D/cg-memory-train.csv" >/dev/null 2>err.txt || fail "training with the profile: $(cat err.txt)"
y=$(mpipredict-predict --csv --db "$DB" --app cg --args "-n 96 -i 300" --ntasks 2 2>/dev/null | tail -n 1 | cut -d, -f2)
[ -n "$y" ] || fail "expected the CLI to answer from parameters"
# One held run at 2 ranks: its features as a request, and the CLI's answer.
row=$(awk -F, 'NR > 1 && $6 == 2 { print NR; exit }' "$D/cg-memory-held.csv")
{ head -n 1 "$D/cg-memory-held.csv"; sed -n "${row}p" "$D/cg-memory-held.csv"; } >one.csv
yf=$(mpipredict-predict --csv --db "$DB" --app cg --features one.csv 2>/dev/null | tail -n 1 | cut -d, -f2)
rss=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == "mem:peak_rss_kib.mean") c = i; next } { print $c }' one.csv)
# The CLI prints 6 significant digits.
near() { awk -v a="$2" -v b="$3" 'BEGIN { d = (a - b) / b; exit !(d < 1e-5 && d > -1e-5) }' || fail "$1: expected $2, got $3"; }
feats() { # $1: 1 = with the peak memory
	awk -F, -v mem="$1" 'NR == 1 { for (i = 11; i <= NF; i++) name[i] = $i; next }
		{ sep = ""; for (i = 11; i <= NF; i++)
			if ($i != "" && (mem || name[i] != "mem:peak_rss_kib.mean")) {
				printf "%s\"%s\":%s", sep, name[i], $i; sep = "," } }' one.csv
}

start_daemon
st=$(req POST /v1/predict '{"app":"cg","ntasks":2,"args":"-n 96 -i 300"}')
expect_status 200 "$st" "parameters"
near "runtime_s from parameters (the CLI's)" "$y" "$(jq .runtime_s body)"
jq -e '.memory_factor > 1' body >/dev/null || fail "expected memory_factor above 1, got $(cat body)"
awk -v got="$(jq .node_footprint_mib body)" -v rss="$rss" 'BEGIN { w = 2 * rss / 1024; d = (got - w) / w; exit !(d < 0.15 && d > -0.15) }' ||
	fail "expected node_footprint_mib within 15 % of the measured $((2 * rss / 1024)) MiB, got $(cat body)"
echo "from parameters: $(jq -c '{runtime_s, memory_factor, node_footprint_mib}' body)"

args=$(awk -F, 'NR == 2 { print $9 }' one.csv)
st=$(req POST /v1/predict "{\"app\":\"cg\",\"ntasks\":2,\"args\":\"$args\",\"features\":{$(feats 1)}}")
expect_status 200 "$st" "features"
near "runtime_s from features (the CLI's)" "$yf" "$(jq .runtime_s body)"
near "node_footprint_mib from features" "$(awk -v r="$rss" 'BEGIN { printf "%.9g", 2 * r / 1024 }')" "$(jq .node_footprint_mib body)"
echo "from features: $(jq -c '{runtime_s, memory_factor, node_footprint_mib}' body)"

st=$(req GET /v1/models/cg)
expect_status 200 "$st" "models"
jq -e '[.. | objects | select(has("memory_beta")) | .memory_beta] | .[0] > 0' body >/dev/null ||
	fail "expected memory_beta > 0 in GET /v1/models/cg, got $(head -c 400 body)"

st=$(req POST /v1/predict "{\"app\":\"cg\",\"features\":{$(feats 0)}}")
case $st in 4*) ;; *) fail "expected a 4xx without the peak memory or parameters, got $st: $(cat body)" ;; esac
grep -q 'mem:peak_rss_kib.mean' body || fail "expected the error to name mem:peak_rss_kib.mean, got $(cat body)"
stop_daemon
echo ok
