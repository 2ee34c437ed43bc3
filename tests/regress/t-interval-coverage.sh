#!/usr/bin/env bash
# The prediction interval holds on new runs: trained on 200 noisy runs (5 %
# noise), the 90 % interval covers between 85 % and 95 % of 1,000 runs it
# never saw, and the default (95 %) between 92 % and 98 %, with at most 4 %
# of the runs above its upper bound (the limit the Slurm plugin sets).
# Counted with awk against the runs' runtime_s.
set -u
gen=$MPP_BUILD/tests/regress/gen-runs
"$gen" --runs 200 --features 300 --seed 21 --noise 0.05 >train.csv || exit 1
"$gen" --runs 1000 --features 300 --seed 21 --noise 0.05 --first 5000 >new.csv || exit 1
tail -n +2 new.csv | cut -d, -f8 >actual.txt
fail=0

# check DB LOW HIGH MAX_ABOVE: per mille inside [LOW, HIGH], above <= MAX_ABOVE
check() {
	mpipredict-predict --csv --db "$1" --app stencil --features new.csv >pred.csv || { echo "predict failed"; exit 1; }
	paste -d, pred.csv actual.txt | awk -F, -v lo="$2" -v hi="$3" -v up="$4" -v db="$1" '
		{ if ($5 >= $3 && $5 <= $4) k++; if ($5 > $4) a++ }
		END { printf "%s: inside %.1f %%, above %.1f %% of %d new runs\n", db, 100 * k / NR, 100 * a / NR, NR;
		      exit !(NR == 1000 && k >= lo && k <= hi && a <= up) }'
}
mpipredict-train --db m90.db --coverage 0.9 train.csv >/dev/null 2>&1 || { echo "training failed"; exit 1; }
check m90.db 850 950 1000 || { echo "expected 85-95 % of 1000 new runs inside the 90 % interval"; fail=1; }
mpipredict-train --db m.db train.csv >/dev/null 2>&1 || { echo "training failed"; exit 1; }
[ "$(sqlite3 m.db 'SELECT coverage FROM models')" = 0.95 ] ||
	{ echo "expected the default coverage 0.95 stored, got $(sqlite3 m.db 'SELECT coverage FROM models')"; fail=1; }
check m.db 920 980 40 || { echo "expected 92-98 % inside the default interval and at most 4 % above it"; fail=1; }
exit $fail
