#!/usr/bin/env bash
# Issue 40: the memory regime is not switched on by a gain that is the
# held runs' noise. tests/regress/data/pennant-memory-{train,held}.csv are
# PENNANT (github:lanl/PENNANT, a Lagrangian hydrodynamics code; the sedov
# deck at nzx = 80..170 trained, 220 and 280 held, 1 rank, 3 repeats;
# columns constant over both files dropped) measured by `make
# bench-accuracy SRC=DIR` (D5, 2026-11-30), and machine-memory-l3.json is
# the same machine's profile (`mpipredict-calibrate --levels mem`: the
# time per byte rises 1.5x between 16 and 64 MiB, a 32 MiB L3).
#
# PENNANT's time per cell does not follow that curve, but its three runs
# with the largest footprint (nzx = 170, repeats 5 % apart) were answered
# at 7.8 % with beta 0 and 6.0 % with beta 1 by trainings without them: a
# gain of 1.8 points, which once kept beta 1 and answered the held sizes
# 13-14 % off. Asserted: training with the profile keeps beta 0 (a larger
# beta needs at most 0.8 times beta 0's error, less 0.5 points), and the
# held sizes are answered within 6 % of their settings' median run, from
# features and from parameters (2.4 and 2.3 % when written).
set -u
D=$MPP_SRC/tests/regress/data
fail=0
mpipredict-train --db p.db "$D/pennant-memory-train.csv" >/dev/null 2>err.txt ||
	{ echo "expected a first training to work, got: $(cat err.txt)"; exit 1; }
sqlite3 p.db "INSERT INTO machine_profiles (machine, created_at, profile) VALUES ('d5', 'now', readfile('$D/machine-memory-l3.json'))"
mpipredict-train --db p.db --json "$D/pennant-memory-train.csv" >train.json 2>err.txt ||
	{ echo "expected training with the profile to work, got: $(cat err.txt)"; exit 1; }
echo "memory: $(jq -c '.models[0].memory | {beta, held, held_mape_pct_by_beta}' train.json)"
jq -e '.models[0].memory | .beta == 0 and .held == 3 and
	.held_mape_pct_by_beta[2] < .held_mape_pct_by_beta[0]' train.json >/dev/null ||
	{ echo "expected beta 0 although beta 1 erred a little less on the 3 held runs, got $(jq -c '.models[0].memory' train.json)"; fail=1; }
# Each held setting's median run, then the MAPE of answers against it.
awk -F, 'NR > 1 { print $9 "," $8 }' "$D/pennant-memory-held.csv" | sort >held.txt
median() { grep "^$1," held.txt | cut -d, -f2 | sort -g | sed -n 2p; }
mpipredict-predict --csv --db p.db --app PENNANT --features "$D/pennant-memory-held.csv" 2>/dev/null >pf.csv
ef=$(awk -F, -v m220="$(median 'sedov-220.pnt nzx=220')" -v m280="$(median 'sedov-280.pnt nzx=280')" '
	NR == FNR { if (FNR > 1) a[$1] = ($9 ~ /220/) ? m220 : m280; next }
	$1 in a { d = ($2 - a[$1]) / a[$1]; e += d < 0 ? -d : d; n++ }
	END { printf "%.1f", n == 6 ? 100 * e / n : 100 }' "$D/pennant-memory-held.csv" pf.csv)
ep=$(for n in 220 280; do
	p=$(mpipredict-predict --csv --db p.db --app PENNANT --args "sedov-$n.pnt nzx=$n" --ntasks 1 2>/dev/null | tail -n 1 | cut -d, -f2)
	echo "${p:-0} $(median "sedov-$n.pnt nzx=$n")"
done | awk '{ d = ($1 - $2) / $2; e += d < 0 ? -d : d } END { printf "%.1f", 100 * e / 2 }')
echo "past the range: from features $ef %, from parameters $ep %"
awk -v e="$ef" 'BEGIN { exit !(e < 6) }' ||
	{ echo "expected the held sizes within 6 % from features, got $ef %"; fail=1; }
awk -v e="$ep" 'BEGIN { exit !(e < 6) }' ||
	{ echo "expected the held sizes within 6 % from parameters, got $ep %"; fail=1; }
exit $fail
