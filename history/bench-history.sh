#!/usr/bin/env bash
# make bench-history: the KTH-SP2 trace (Parallel Workloads Archive, the
# 28,481 jobs of the SC'15 study's filtering; the workload log from the KTH
# SP2 was graciously provided by Lars Malinowsky) replayed through EASY and
# EASY++ on 100 processors. First the study's rows (its result files,
# predictsim's KTH-SP2 sim_analysis/metrics, of which the paper publishes
# some), each checked to be within 2 %; then the history predictors the
# daemon uses. The trace's cleaning notice (jobs whose requested and
# allocated processor counts differ) is printed once.
set -u
bin=$MPP_BUILD/bin/mpipredict-replay
src=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xz -dc "$src/KTH-SP2-filtered.swf.xz" > "$tmp/kth.swf" || exit 1

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

echo "KTH-SP2, 28,481 jobs, 100 processors, AVEbsld with a 10 s bound"
echo
printf '%-44s %10s %10s %8s\n' "the study's row (SC'15)" study replay diff
fail=0
while IFS='|' read -r label published args; do
	out=$("$bin" $args "$tmp/kth.swf" 2>"$tmp/notice") || { cat "$tmp/notice"; echo "replay failed: $args"; exit 1; }
	got=$(printf '%s\n' "$out" | field avebsld)
	diff=$(awk -v a="$got" -v b="$published" 'BEGIN { printf "%+.2f%%", 100 * (a - b) / b }')
	ok=$(awk -v a="$got" -v b="$published" 'BEGIN { d = (a - b) / b; print (d < 0 ? -d : d) <= 0.02 ? "ok" : "OFF" }')
	[ "$ok" = ok ] || fail=1
	printf '%-44s %10s %10s %8s %s\n' "$label" "$published" "$got" "$diff" "$ok"
done <<'ROWS'
EASY, requested times|92.58|--scheduler easy --pred requested
EASY++, requested times|69.41|--scheduler easy++ --pred requested
EASY++, Tsafrir, step corrections|63.50|--scheduler easy++ --pred tsafrir --corrector steps
EASY++, Tsafrir, corrected to the request|62.86|--scheduler easy++ --pred tsafrir --corrector request
EASY++, Tsafrir, recursive doubling|64.53|--scheduler easy++ --pred tsafrir --corrector double
EASY++, clairvoyant|49.85|--scheduler easy++ --pred clairvoyant
EASY, clairvoyant|71.72|--scheduler easy --pred clairvoyant
EASY, Tsafrir, step corrections|85.44|--scheduler easy --pred tsafrir --corrector steps
EASY, Tsafrir, corrected to the request|65.72|--scheduler easy --pred tsafrir --corrector request
EASY, Tsafrir, recursive doubling|76.92|--scheduler easy --pred tsafrir --corrector double
ROWS
cat "$tmp/notice"
echo
printf '%-44s %8s %8s %8s %9s\n' "EASY++ with" AVEbsld "MAE s" under "wait s"
for p in "tsafrir --corrector steps" "tsafrir --corrector request" \
	 "ours --corrector steps" "ours --corrector request" \
	 "learned --corrector steps" "learned --corrector request" \
	 "learned --under 5 --corrector steps" "learned --under 5 --corrector request" \
	 "online --corrector steps" "online --loss abs:1/abs:1/60 --corrector steps"; do
	out=$("$bin" --scheduler easy++ --pred $p "$tmp/kth.swf" 2>/dev/null) || exit 1
	printf '%-44s %8s %8s %8s %9s\n' "$(echo $p | sed 's/ --corrector /, corrected by /; s/ --under \([0-9]*\)/ (under x\1)/; s/ --loss \([^ ]*\)/ \1/')" \
		"$(printf '%s\n' "$out" | field avebsld)" "$(printf '%s\n' "$out" | field mae_s)" \
		"$(printf '%s\n' "$out" | field under)" "$(printf '%s\n' "$out" | field wait_s)"
done
echo
echo "goal: AVEbsld <= 45.80 (the study's best learned predictor), MAE below Tsafrir's"
[ $fail -eq 0 ] || { echo "a published row is not reproduced within 2 %"; exit 1; }
