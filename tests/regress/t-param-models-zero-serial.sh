#!/usr/bin/env bash
# A communication counter is zero on one rank and a power law elsewhere: its
# parameter model says so (zero_on_one_rank), and a one-rank prediction from
# parameters leaves it out. By hand, -n 64 --iters=20 on 1 rank:
#   0.35 + 1e-8*64^3*20 + 4e-8*8*64^2*20 = 0.4286432 s.
set -u
"$MPP_BUILD/tests/regress/gen-runs" --runs 60 --features 150 --seed 8 --zero-serial 1 >runs.csv || exit 1
mpipredict-train --db m.db --json runs.csv >out.json 2>err.txt || { echo "training failed: $(cat err.txt)"; exit 1; }
fail=0
jq -e '.models[0].terms[] | select(.feature == "call:solver.c:97:3:MPI_Allreduce.mean") | .param_model | .predictable and .zero_on_one_rank and (.exponents.nprocs - 1 | fabs < 0.01)' out.json >/dev/null ||
	{ echo "expected the Allreduce count predictable, zero on one rank, nprocs^1; got $(jq -c '.models[0].terms[] | select(.feature | test("97")) | .param_model' out.json)"; fail=1; }
out=$(mpipredict-predict --csv --db m.db --app stencil --args "-n 64 --iters=20" --ntasks 1)
echo "one rank from parameters: $out"
echo "$out" | awk -F, '{ e = ($2 - 0.4286432) / 0.4286432; if (e < 0) e = -e; exit !(e < 0.03) }' ||
	{ echo "expected about 0.4286432 s on one rank, got '$out'"; fail=1; }
exit $fail
