#!/usr/bin/env bash
# The final fit is chosen by cross-validation between non-negative least
# squares and ridge (which must beat NNLS by more than a standard error),
# and says which: on gen-runs' stencil runs, where every counted event
# costs time among 200 columns, NNLS is kept and no coefficient is
# negative; on runs where one feature truly lowers the run time
# (y = 2 + 2e-3 a - 1e-3 b, 2 % noise: NNLS cannot fit that) ridge wins and
# is named, in the summary and in --json.
set -u
gen() {
	awk 'BEGIN {
		print "run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,a,b,e"
		s = 777
		for (i = 1; i <= 40; i++) {
			s = (s * 1103515245 + 12345) % 2147483648; a = 100 + s % 900
			s = (s * 1103515245 + 12345) % 2147483648; b = 100 + s % 700
			s = (s * 1103515245 + 12345) % 2147483648; e = s % 1000
			s = (s * 1103515245 + 12345) % 2147483648; u = (s % 1000) / 1000 - 0.5
			y = (2 + 2e-3 * a - 1e-3 * b) * (1 + 0.04 * u)
			printf "r%d,fit,b1,t,,1,1,%.6f,,%d,%d,%d\n", i, y, a, b, e
		}
	}'
}
fail=0
"$MPP_BUILD/tests/regress/gen-runs" --runs 60 --features 200 --seed 3 >pos.csv || exit 1
gen >neg.csv
mpipredict-train --db pos.db --json pos.csv >pos.json 2>err.txt || { echo "training failed: $(cat err.txt)"; exit 1; }
jq -e '.models[0].fit == "nnls" and ([.models[0].terms[].coef] | all(. >= 0))' pos.json >/dev/null ||
	{ echo "stencil runs: expected fit nnls and no negative coefficient, got $(jq -c '.models[0] | {fit, coefs: [.terms[] | {feature, coef}]}' pos.json)"; fail=1; }
mpipredict-train --db neg.db --json neg.csv >neg.json 2>err.txt || { echo "training failed: $(cat err.txt)"; exit 1; }
jq -e '.models[0].fit == "ridge" and .models[0].cv_mape_ridge_pct < .models[0].cv_mape_nnls_pct and
	([.models[0].terms[] | select(.feature == "b") | .coef] | .[0] < 0)' neg.json >/dev/null ||
	{ echo "a negative effect: expected fit ridge (better CV) with b's coefficient < 0, got $(jq -c '.models[0] | {fit, cv_mape_nnls_pct, cv_mape_ridge_pct, coefs: [.terms[] | {feature, coef}]}' neg.json)"; fail=1; }
mpipredict-train --db neg2.db --verbose neg.csv >summary.txt 2>/dev/null
grep -q 'final fit ridge (CV MAPE nnls [0-9.]* %, ridge [0-9.]* %)' summary.txt ||
	{ echo "expected the summary to name the chosen fit and both CV errors, got: $(grep 'final fit' summary.txt)"; fail=1; }
exit $fail
