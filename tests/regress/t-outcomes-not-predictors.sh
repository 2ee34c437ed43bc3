#!/usr/bin/env bash
# Columns that measure a run's outcome are never predictors: time:* (wall
# time in and outside MPI) and mem:peak_rss_kib (each rank's peak memory,
# the MPI library's included). The rows are real (tests/regress/data/
# cg-train.csv, the CG solver of tests/apps measured by make
# bench-accuracy); a mem:peak_rss_kib.mean column is added that is exactly
# proportional to each run's time, the best predictor a fit could ask for.
# A training that took it would keep it as its only term (it did, with
# the exclusion removed); it must keep counters, and answer for a run with
# its memory column changed as for the same run without the change.
set -u
fail=0
data=$MPP_SRC/tests/regress/data/cg-train.csv
# runtime_s is the 8th column; the seven before it hold no commas.
awk -F, 'NR == 1 { print $0 ",mem:peak_rss_kib.mean"; next } { printf "%s,%.0f\n", $0, $8 * 1e6 }' "$data" >runs.csv
mpipredict-train --db m.db --json runs.csv >train.json 2>err.txt ||
	{ echo "training failed: $(head -3 err.txt)"; exit 1; }
terms=$(jq -r '[.. | strings | select(test("^(loop|then|else|case|call|bytes|mpi|comm|coll|io|topo|time|mem):"))] | unique | join(" ")' train.json)
[ -n "$terms" ] || { echo "expected the model to name its terms in --json, got none"; fail=1; }
case " $terms " in
*" mem:"* | *" time:"*) echo "expected no outcome column among the terms, got: $terms"; fail=1 ;;
esac
# The same run with its memory column multiplied by 10 gets the same answer.
head -2 runs.csv >one.csv
awk -F, 'NR == 1 { print; next } { $NF = $NF * 10; print }' OFS=, one.csv >ten.csv
a=$(mpipredict-predict --csv --db m.db --app cg --features one.csv 2>/dev/null | tail -1 | cut -d, -f2)
b=$(mpipredict-predict --csv --db m.db --app cg --features ten.csv 2>/dev/null | tail -1 | cut -d, -f2)
[ -n "$a" ] && [ "$a" = "$b" ] || { echo "expected the same answer whatever the memory column, got '$a' and '$b'"; fail=1; }
exit $fail
