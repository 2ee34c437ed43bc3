#!/usr/bin/env bash
# The default method on synthetic runs with a known answer: 3 true features
# among 400 columns (distractors scaled 1..1e9, constant columns, exact and
# near-exact copies), 60 training runs (fewer than features). It must keep
# the true features (or their aliases), report small CV error, and predict
# 20 held-out runs within a few percent (checked against their runtime_s
# column with awk, not with our code).
set -u
gen=$MPP_BUILD/tests/regress/gen-runs
"$gen" --runs 80 --features 400 --seed 3 >all.csv || { echo "gen-runs failed"; exit 1; }
head -n 61 all.csv >train.csv
{ head -n 1 all.csv; tail -n 20 all.csv; } >held.csv

mpipredict-train --db m.db --json train.csv >out.json 2>err.txt ||
	{ echo "expected training to succeed, got:"; cat err.txt; exit 1; }
fail=0
for f in loop:solver.c:40:5.mean bytes:halo.c:88:9:MPI_Sendrecv.mean call:solver.c:97:3:MPI_Allreduce.mean; do
	jq -e --arg f "$f" '.models[0].terms | map(select(.feature == $f or (.aliases | index($f)))) | length == 1' out.json >/dev/null ||
		{ echo "expected true feature $f (or an alias) kept, got terms: $(jq -c '[.models[0].terms[].feature]' out.json)"; fail=1; }
done
kept=$(jq '.models[0].kept' out.json)
[ "$kept" -le 5 ] || { echo "expected at most 5 kept features, got $kept"; fail=1; }
jq -e '.models[0].duplicates >= 40 and .models[0].constant >= 5' out.json >/dev/null ||
	{ echo "expected the copies and constants folded, got $(jq -c '.models[0] | {duplicates, constant}' out.json)"; fail=1; }
cv=$(jq '.models[0].cv_mape_pct' out.json)
awk -v c="$cv" 'BEGIN { exit !(c < 3) }' || { echo "expected CV MAPE < 3 %, got $cv"; fail=1; }
echo "CV MAPE from features: $cv %, from parameters: $(jq '.models[0].cv_mape_params_pct' out.json) %, fit $(jq -r '.models[0].fit' out.json)"

mpipredict-predict --csv --db m.db --app stencil --features held.csv >pred.csv ||
	{ echo "expected predict to succeed"; exit 1; }
# runtime_s is column 8 of the held-out rows (no quoted fields there).
tail -n 20 held.csv | cut -d, -f8 >actual.txt
paste -d, pred.csv actual.txt | awk -F, '
	{ e = ($2 - $5) / $5; if (e < 0) e = -e; s += e; if (e > m) m = e }
	END { printf "held-out: mean %.2f %%, max %.2f %% over %d runs\n", 100 * s / NR, 100 * m, NR;
	      if (NR != 20 || s / NR > 0.03 || m > 0.08) exit 1 }' ||
	{ echo "expected 20 held-out predictions with mean error < 3 % and max < 8 %"; fail=1; }
exit $fail
