#!/usr/bin/env bash
# The upper bound holds past the trained sizes on real codes (issue 40,
# requirement 2). data/pennant-past-*.csv and data/hpcg-past-*.csv: runs
# of two development-set codes (PENNANT nzx 80-170 and hpcg --nz 16-56 to
# train, three repeats; held: the next two sizes, nzx 220 and 280, --nz 80
# and 104; columns constant over all of them dropped). When both models
# answered from their run-time law (chosen at one standard error, below),
# the extrapolation checks' factors applied as measured, one size past,
# missed 5 of 6 of PENNANT's held runs and 4 of 6 of hpcg's: the checks
# stepped one size, the answers two and three. The checks hold out
# whole settings (all repeats of the longest fifth's sizes, so that they
# step past their training's range), store how far they stepped (xdist),
# and an answer farther out gets their factors raised to distance /
# xdist.
# Asserted: xdist stored and > 0; every held run at or under its upper
# bound; the fixed factors alone would have missed at least one of the 12
# (so the distance is what covers them; hpcg's, since PENNANT's answers
# are close); the farther size's interval no narrower.
#
# The same rows show the law chosen on noise: it beat the counters in
# range by 1.2 and 1.7 standard errors of the paired difference (under a
# point) and erred 15.0 and 15.4 % past the range; chosen only beyond two
# standard errors, the counters answer, 2.5 and 8.0 % off. Asserted: the
# answers from parameters within 5 % (PENNANT) and 10 % (hpcg) of the
# held runs, the parameters path through the counters for both.
set -u
fail() { echo "$*"; exit 1; }
D=$MPP_SRC/tests/regress/data
. "$MPP_SRC/tests/regress/lib.sh"
misses=0
for code in pennant hpcg; do
	app=$(sed -n 2p "$D/$code-past-train.csv" | cut -d, -f2)
	mpipredict-train --db "$code.db" --app "$app" "$D/$code-past-train.csv" >/dev/null 2>err ||
		fail "$code: train exited $?: $(cat err)"
	IFS='|' read -r phi xhi xd < <(sqlite3 "$code.db" \
		"SELECT prel_hi, xhi, coalesce(xdist, 0) FROM models WHERE active = 1")
	echo "$code: in range x$phi, checks x$xhi at distance $xd"
	awk -v x="$xd" 'BEGIN { exit !(x > 0) }' ||
		fail "$code: expected the extrapolation checks to step past their ranges (xdist > 0), got '$xd'"
	answer_held "$code.db" "$app" "$D/$code-past-held.csv" >answers.txt ||
		fail "$code: $(tail -n 1 answers.txt)"
	cat answers.txt
	awk -F'[ ,]' '{ y = $(NF-4); if (y > $NF + 0) bad++ } END { exit bad > 0 }' answers.txt ||
		fail "$code: expected every held run at or under its upper bound"
	m=$(awk -F'[ ,]' -v ph="$phi" -v xh="$xhi" '{ f = ph > xh ? ph : xh; if ($(NF-4) > f * $(NF-2)) miss++ }
		END { print miss + 0 }' answers.txt)
	misses=$((misses + m))
	[ "$(sqlite3 "$code.db" 'SELECT params_law FROM models WHERE active = 1')" = 0 ] ||
		fail "$code: expected the parameters path through the counters, not the run-time law"
	e=$(held_mape answers.txt)
	lim=$([ "$code" = pennant ] && echo 5 || echo 10)
	echo "$code: past the range from parameters $e % (at most $lim); the checks' factors as measured miss $m"
	awk -v e="$e" -v l="$lim" 'BEGIN { exit !(e < l) }' ||
		fail "$code: expected the held runs within $lim % from parameters, got $e %"
	# One line per size, nearest first: upper / predicted does not fall.
	awk -F'[ ,]' '{ print $(NF-2), $NF / $(NF-2) }' answers.txt | sort -n -k1 | uniq |
		awk 'NR > 1 && $2 < w - 1e-9 { bad = 1 } { w = $2 } END { exit bad }' ||
		fail "$code: expected a farther size's interval no narrower"
done
[ "$misses" -gt 0 ] ||
	fail "expected the checks' factors as measured to miss a held run: the test no longer shows the distance at work"
exit 0
