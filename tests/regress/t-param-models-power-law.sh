#!/usr/bin/env bash
# Parameter models recover the generator's power laws: the loop count is
# n^3 i / p (-n, --iters, nprocs), the halo bytes 8 n^2 i; a prediction from
# job parameters matches the formula worked out by hand:
#   -n 128 --iters=50 on 4 ranks: 0.35 + 1e-8*128^3*50/4 + 4e-8*8*128^2*50
#   + 1e-3*50*4 = 1.074288 s.
set -u
"$MPP_BUILD/tests/regress/gen-runs" --runs 60 --features 200 --seed 5 >runs.csv || exit 1
mpipredict-train --db m.db --json runs.csv >out.json 2>err.txt || { echo "training failed:"; cat err.txt; exit 1; }
fail=0
check() { # feature-regex var expected
	got=$(jq --arg re "$1" --arg v "$2" '.models[0].terms[] | select([.feature] + .aliases | map(test($re)) | any) | .param_model.exponents[$v]' out.json)
	awk -v g="$got" -v w="$3" 'BEGIN { d = g - w; exit !(g != "" && d < 0.01 && d > -0.01) }' ||
		{ echo "expected exponent of $2 for $1 = $3, got '$got'"; fail=1; }
}
check '^loop:solver.c:4[013]' -n 3
check '^loop:solver.c:4[013]' --iters 1
check '^loop:solver.c:4[013]' nprocs -1
check '^bytes:halo.c:88' -n 2
check '^bytes:halo.c:88' --iters 1
check '^bytes:halo.c:88' nprocs 0
jq -e '[.models[0].terms[].param_model.predictable] | all' out.json >/dev/null ||
	{ echo "expected every kept term predictable from parameters"; fail=1; }
out=$(mpipredict-predict --csv --db m.db --app stencil --args "-n 128 --iters=50 out.dat" --ntasks 4) ||
	{ echo "predict from parameters failed"; exit 1; }
echo "from parameters: $out"
echo "$out" | awk -F, '{ e = ($2 - 1.074288) / 1.074288; if (e < 0) e = -e; exit !($1 == "" && e < 0.03 && $3 <= $2 && $2 <= $4) }' ||
	{ echo "expected ',1.074288 (within 3 %),lower,upper', got '$out'"; fail=1; }
mpipredict-predict --csv --db m.db --app stencil --args "--iters=50" --ntasks 4 2>err.txt
[ $? = 2 ] && grep -q -- '-n' err.txt || { echo "expected exit 2 naming the missing parameter -n, got '$(cat err.txt)'"; fail=1; }
exit $fail
