#!/usr/bin/env bash
# A kept feature that is not a power law of the job parameters (a message
# count past a size threshold: a step in -n) does not take the parameters
# path away: that path is refitted without it (params_coef 0, its own
# intercept), cross-validated, and predicts by hand-checked values:
#   -n 64 --iters=20 on 4 ranks (below the step):
#     0.35 + 1e-8*64^3*20/4 + 4e-8*8*64^2*20 + 1e-3*20*4 = 0.4693216 s
#   -n 256 --iters=90 on 4 ranks (past it, where the left-out term costs
#   4e-3*90 s): 0.35 + 3.7748736 + 1.8874368 + 0.36 + 0.36 = 6.7323104 s,
#   which must lie inside the interval.
set -u
"$MPP_BUILD/tests/regress/gen-runs" --runs 60 --features 150 --seed 8 --step 1 >runs.csv || exit 1
mpipredict-train --db m.db --json runs.csv >out.json 2>err.txt || { echo "training failed: $(cat err.txt)"; exit 1; }
fail=0
step='comm:intra:size:65536-1048575:msgs.mean'
jq -e --arg f "$step" '.models[0].terms[] | select([.feature] + .aliases | index($f)) |
	(.param_model.predictable | not) and .params_coef == 0 and .coef > 0' out.json >/dev/null ||
	{ echo "expected the step feature kept, not predictable, left out of the parameters path; got $(jq -c '.models[0].terms' out.json)"; fail=1; }
jq -e '.models[0] | (.params_intercept | type == "number") and .cv_mape_params_pct < 10 and .cv_params_runs == 60' out.json >/dev/null ||
	{ echo "expected a parameters path with its own intercept, CV error < 10 % over 60 runs; got $(jq -c '.models[0] | {params_intercept, cv_mape_params_pct, cv_params_runs}' out.json)"; fail=1; }
out=$(mpipredict-predict --csv --db m.db --app stencil --args "-n 64 --iters=20" --ntasks 4) ||
	{ echo "predict from parameters failed"; exit 1; }
echo "below the step: $out"
echo "$out" | awk -F, '{ e = ($2 - 0.4693216) / 0.4693216; if (e < 0) e = -e; exit !(e < 0.03) }' ||
	{ echo "expected about 0.4693216 s (within 3 %), got '$out'"; fail=1; }
out=$(mpipredict-predict --csv --db m.db --app stencil --args "-n 256 --iters=90" --ntasks 4) ||
	{ echo "predict from parameters failed"; exit 1; }
echo "past the step: $out"
echo "$out" | awk -F, '{ exit !($3 <= 6.7323104 && 6.7323104 <= $4) }' ||
	{ echo "expected 6.7323104 s inside [lower, upper], got '$out'"; fail=1; }
exit $fail
