#!/usr/bin/env bash
# bench-simulate-repeat: bench.sh's second design (traced at 1 and 2 ranks)
# RUNS times in a row, and how far the truth itself moves between runs.
#
# Each run measures every never-run target anew (the median, and the
# fastest, of its 5 runs). A perfect predictor can be no closer to one
# run's truth than the next run's truth is, a minute and a half later: the
# MAPE between consecutive runs' truths, over sqrt(2), is about what a
# method that knew each target's mean time exactly would score here (each
# truth errs by itself, independently), and the figure to set against a
# goal. Printed:
# per run, each method's MAPE (bench.sh's columns); their means and
# medians; and that floor, for the medians and for the fastest runs.
#
#   make bench-simulate-repeat RUNS=8      (about 1.5 min per run)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
export MPP_BUILD=${MPP_BUILD:-$src/build}
RUNS=${RUNS:-8}
[ "$RUNS" -ge 2 ] 2>/dev/null || {
	echo "bench-simulate-repeat: RUNS must be a number >= 2 (got '$RUNS')" >&2
	exit 2
}
keep=$MPP_BUILD/bench/simulate-repeat
rm -rf "$keep" && mkdir -p "$keep" || exit 1
bench_out=$MPP_BUILD/bench/simulate-ranks-1-2

for i in $(seq 1 "$RUNS"); do
	echo "run $i of $RUNS, $(date -u +%H:%M:%S) UTC, load $(cut -d' ' -f1-3 /proc/loadavg)"
	if ! TRAIN_RANKS="1 2" "$src/tests/simulate/bench.sh" >"$keep/run-$i.log" 2>&1; then
		echo "bench-simulate-repeat: run $i failed: see $keep/run-$i.log" >&2
		exit 1
	fi
	cp "$bench_out/table.txt" "$keep/table-$i.txt"
	cp "$bench_out/mape.txt" "$keep/mape-$i.txt"
	cp "$bench_out/breakdown.txt" "$keep/breakdown-$i.txt"
done

# One line per run: the MAPE of each method over the never-run targets,
# as bench.sh computed them (mape.txt: simulate, no_resid, no_noise, work,
# work_nr, plain, replayed, regress, slowest_s).
echo
echo "MAPE over the never-run configurations, per run:"
printf '%4s %9s %9s %9s %9s %9s %9s %9s\n' run simulate no_resid no_noise work plain replayed regress
for i in $(seq 1 "$RUNS"); do
	tail -n 1 "$keep/mape-$i.txt" | awk -v r="$i" '{ printf "%4d %8.1f%% %8.1f%% %8.1f%% %8.1f%% %8.1f%% %8.1f%% %8.1f%%\n",
	    r, $1, $2, $3, $4, $6, $7, $8 }'
done | tee "$keep/per-run.txt"
# Mean and median of each column (sort does the ordering).
col_stat() { # column -> "mean median"
	tr -d % <"$keep/per-run.txt" | awk -v c="$1" '{ print $c }' | sort -g |
		awk '{ v[NR] = $1; s += $1 }
		  END { printf "%.1f %.1f\n", s / NR, NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
mean="mean" med=" med"
for c in 2 3 4 5 6 7 8; do
	read -r a m < <(col_stat $c)
	mean+=$(printf ' %8.1f%%' "$a") med+=$(printf ' %8.1f%%' "$m")
done
printf '%s\n%s\n' "$mean" "$med"

# The floor: each target's truth in run i against run i + 1 (breakdown.txt:
# 3 fastest, 4 median of the 5 runs).
echo
for i in $(seq 1 "$RUNS"); do
	awk -v r="$i" '{ print r, $1, $2, $3, $4 }' "$keep/breakdown-$i.txt"
done | awk -v runs="$RUNS" '{ k = $2 " " $3; lo[$1, k] = $4; med[$1, k] = $5; keys[k] = 1 }
  END {
    for (i = 1; i < runs; i++) for (k in keys) {
      e = (med[i, k] - med[i + 1, k]) / med[i + 1, k]; sm += e < 0 ? -e : e
      e = (lo[i, k] - lo[i + 1, k]) / lo[i + 1, k]; sl += e < 0 ? -e : e; n++ }
    printf "The truth between consecutive runs (%d pairs of targets): medians differ by %.1f %% (MAPE),\n", n, 100 * sm / n
    printf "the fastest of the 5 runs by %.1f %%. A method that knew each target'"'"'s mean time exactly\n", 100 * sl / n
    printf "would score about %.1f %% against a median here (that / sqrt(2), the runs'"'"' errors being independent).\n", 100 * sm / n / sqrt(2) }'
echo "files in $keep"
