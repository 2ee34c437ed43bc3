#!/usr/bin/env bash
# The 90 % prediction interval holds on new runs: trained on 200 noisy runs
# (5 % noise), it covers between 85 % and 95 % of 1,000 runs it never saw
# (counted with awk against their runtime_s).
set -u
gen=$MPP_BUILD/tests/regress/gen-runs
"$gen" --runs 200 --features 300 --seed 21 --noise 0.05 >train.csv || exit 1
"$gen" --runs 1000 --features 300 --seed 21 --noise 0.05 --first 5000 >new.csv || exit 1
mpipredict-train --db m.db --coverage 0.9 train.csv >/dev/null 2>&1 || { echo "training failed"; exit 1; }
mpipredict-predict --db m.db --app stencil --features new.csv >pred.csv || { echo "predict failed"; exit 1; }
tail -n +2 new.csv | cut -d, -f8 | paste -d, pred.csv - | awk -F, '
	{ if ($5 >= $3 && $5 <= $4) k++ }
	END { printf "coverage on %d new runs: %.1f %%\n", NR, 100 * k / NR; exit !(NR == 1000 && k >= 850 && k <= 950) }' ||
	{ echo "expected 85-95 % of 1000 new runs inside the 90 % interval"; exit 1; }
