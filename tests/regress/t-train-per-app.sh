#!/usr/bin/env bash
# Rows are trained per app: two apps in the input give two models, each its
# own version 1; --app retrains one app only (its version 2 becomes active,
# the other stays at version 1); each app's model predicts its own runs.
set -u
gen=$MPP_BUILD/tests/regress/gen-runs
"$gen" --runs 30 --features 80 --seed 6 --app alpha >alpha.csv || exit 1
"$gen" --runs 30 --features 80 --seed 7 --app beta --first 100 >beta.csv || exit 1
fail=0
mpipredict-train --db m.db alpha.csv beta.csv >out.txt 2>err.txt || { echo "training failed: $(cat err.txt)"; exit 1; }
grep -q '^alpha: version 1, 30 runs' out.txt && grep -q '^beta: version 1, 30 runs' out.txt || { echo "expected a summary per app, got:"; cat out.txt; fail=1; }
active() { sqlite3 m.db "SELECT group_concat(x) FROM (SELECT a.name || ':' || m.version AS x FROM models m JOIN apps a ON a.id = m.app_id WHERE m.active = 1 ORDER BY a.name)"; }
[ "$(active)" = "alpha:1,beta:1" ] || { echo "expected alpha:1,beta:1 active, got $(active)"; fail=1; }
mpipredict-train --db m.db --app beta alpha.csv beta.csv >/dev/null 2>&1 || { echo "--app beta failed"; fail=1; }
[ "$(active)" = "alpha:1,beta:2" ] || { echo "expected alpha:1,beta:2 active, got $(active)"; fail=1; }
n=$(mpipredict-predict --csv --db m.db --app alpha --features alpha.csv | wc -l)
[ "$n" = 30 ] || { echo "expected 30 predictions for alpha, got $n"; fail=1; }
exit $fail
