#!/usr/bin/env bash
# mpipredict-predict prints run_id,predicted_s,lower_s,upper_s: one line per
# row of --features (run ids quoted as CSV needs), one line with an empty
# run_id from parameters; lower <= predicted <= upper. Missing features,
# unknown apps and missing stores are exit 2 with a message naming them.
set -u
"$MPP_BUILD/tests/regress/gen-runs" --runs 40 --features 60 --seed 4 >runs.csv || exit 1
mpipredict-train --db m.db runs.csv >/dev/null 2>&1 || { echo "training failed"; exit 1; }
fail=0
# Two rows to predict; the first run id needs quoting.
{ head -n 1 runs.csv; sed -n 2p runs.csv | sed 's/^r[0-9]*,/"x,""1""",/'; sed -n 3p runs.csv; } >two.csv
mpipredict-predict --csv --db m.db --app stencil --features two.csv >out.csv 2>err.txt || { echo "expected success, got $(cat err.txt)"; exit 1; }
[ "$(wc -l <out.csv)" = 2 ] || { echo "expected 2 lines, got $(wc -l <out.csv)"; fail=1; }
num='[0-9][0-9.e+-]*'
sed -n 1p out.csv | grep -Eq "^\"x,\"\"1\"\"\",$num,$num,$num\$" || { echo "expected a quoted run id line, got '$(sed -n 1p out.csv)'"; fail=1; }
sed -n 2p out.csv | grep -Eq "^r2,$num,$num,$num\$" || { echo "expected 'r2,p,l,u', got '$(sed -n 2p out.csv)'"; fail=1; }
awk -F, '{ n = NF; if (!($(n-1) <= $(n-2) && $(n-2) <= $n && $(n-1) > 0)) bad = 1 } END { exit bad }' out.csv ||
	{ echo "expected 0 < lower <= predicted <= upper on every line"; fail=1; }
out=$(mpipredict-predict --csv --db m.db --app stencil --args "-n 64 --iters=20" --ntasks 2 --nodes 1)
echo "$out" | grep -Eq "^,$num,$num,$num\$" || { echo "expected ',p,l,u' from parameters, got '$out'"; fail=1; }
# A row without a kept feature.
kept=$(sqlite3 m.db "SELECT feature FROM model_terms t JOIN models m ON m.id = t.model_id WHERE m.active = 1 LIMIT 1")
printf 'run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,other\nq1,stencil,b1,t,,1,1,1,,5\n' >missing.csv
mpipredict-predict --csv --db m.db --app stencil --features missing.csv >out.txt 2>err.txt
[ $? = 2 ] && grep -qF "missing feature $kept" err.txt && [ ! -s out.txt ] ||
	{ echo "expected exit 2 naming missing feature $kept and no output, got '$(cat err.txt)'"; fail=1; }
mpipredict-predict --csv --db m.db --app nosuch --args "" --ntasks 1 2>err.txt
[ $? = 2 ] && grep -q "nosuch" err.txt || { echo "expected exit 2 naming app nosuch"; fail=1; }
mpipredict-predict --csv --db none.db --app stencil --args "" --ntasks 1 2>err.txt
[ $? = 2 ] && grep -q "none.db" err.txt || { echo "expected exit 2 naming none.db"; fail=1; }
[ ! -e none.db ] || { echo "expected predict not to create none.db"; fail=1; }
mpipredict-predict --csv --db m.db --app stencil 2>err.txt
[ $? = 1 ] || { echo "expected exit 1 without --features or --args"; fail=1; }
exit $fail
