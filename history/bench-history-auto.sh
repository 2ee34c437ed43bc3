#!/usr/bin/env bash
# make bench-history-auto [TRACE=FILE PROCS=N]: does --pred auto choose
# well on traces it was not tuned on? KTH-SP2 (or TRACE) and variants that
# behave like other sites: its two halves, its submit times compressed
# (x0.7: a higher load), every request doubled, every request set to the
# largest. On each variant, auto chooses on the first half (its own older
# and newest parts, history/choose.h), and every candidate is replayed on
# the later half (alone, as a new trace): the table compares, there, the
# AVEbsld and MAE of auto's choice, of the best fixed choice in hindsight
# and of Tsafrir's (step corrections, the champion auto starts from).
# Goals (issue 35): auto within 5 % of the best fixed, never more than 2 %
# worse than Tsafrir, its MAE at most Tsafrir's. Nothing here was tuned on
# these variants. Beside them, what choosing from the past can reach at
# best: the candidate best on the whole first half in hindsight, scored on
# the later half (past-best), and how many candidates are within 5 % of the
# later half's best. About 17 replays of half a trace per variant, two at a
# time. KEEP=DIR keeps every replay's output.
set -u
bin=$MPP_BUILD/bin/mpipredict-replay
src=$(cd "$(dirname "$0")" && pwd)
trace=${TRACE:-$src/KTH-SP2-filtered.swf.xz}
procs=${PROCS:-100}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $trace in
*.xz) xz -dc "$trace" >"$tmp/all.swf" || exit 1 ;;
*) cp "$trace" "$tmp/all.swf" || exit 1 ;;
esac
grep -v '^;' "$tmp/all.swf" >"$tmp/jobs" || exit 1
n=$(wc -l <"$tmp/jobs")
half=$((n / 2))

# The variants, each a trace of job lines (submit order kept).
head -n "$half" "$tmp/jobs" >"$tmp/v-first-half"
tail -n "$((n - half))" "$tmp/jobs" >"$tmp/v-second-half"
cp "$tmp/jobs" "$tmp/v-whole"
awk 'NR == 1 { t0 = $2 } { $2 = t0 + int(($2 - t0) * 0.7); print }' "$tmp/jobs" >"$tmp/v-load-x1.4"
awk '{ if ($9 > 0) $9 = 2 * $9; print }' "$tmp/jobs" >"$tmp/v-requests-x2"
max=$(awk '$9 > m { m = $9 } END { print m }' "$tmp/jobs")
awk -v m="$max" '{ if ($9 > 0) $9 = m; print }' "$tmp/jobs" >"$tmp/v-requests-max"
# Three more, made after the rule was last changed and never used to change
# it: the trace's middle half, submit times x0.5, requests rounded up to
# the hour.
head -n "$((n - n / 4))" "$tmp/jobs" | tail -n "$((n - n / 4 - n / 4))" >"$tmp/v-middle-half"
awk 'NR == 1 { t0 = $2 } { $2 = t0 + int(($2 - t0) * 0.5); print }' "$tmp/jobs" >"$tmp/v-load-x2"
awk '{ if ($9 > 0) $9 = 3600 * int(($9 + 3599) / 3600); print }' "$tmp/jobs" >"$tmp/v-requests-hour"
variants="whole first-half second-half load-x1.4 requests-x2 requests-max middle-half load-x2 requests-hour"
cands="tsafrir/steps tsafrir/request ours/steps ours/request learned/steps learned/request online/steps online/request"

# The jobs: auto on each variant's first half, each candidate on its later
# half and on its first half alone (the first half's best in hindsight: what
# any rule that chooses from the past could at most know); one result file
# each.
for v in $variants; do
	m=$(wc -l <"$tmp/v-$v")
	head -n "$((m / 2))" "$tmp/v-$v" >"$tmp/$v.old.swf"
	tail -n "$((m - m / 2))" "$tmp/v-$v" >"$tmp/$v.new.swf"
	echo "$v auto old"
	for c in $cands; do echo "$v $c new"; echo "$v $c old"; done
done >"$tmp/work"
run() { # VARIANT CANDIDATE PART
	local v=$1 c=$2 p=$3 out=$tmp/$1.${2/\//-}.$3
	if [ "$c" = auto ]; then
		"$bin" --procs "$procs" --pred auto "$tmp/$v.old.swf" >"$out" 2>/dev/null
	else
		"$bin" --procs "$procs" --scheduler easy++ --pred "${c%/*}" \
			--corrector "${c#*/}" "$tmp/$v.$p.swf" >"$out" 2>/dev/null
	fi || echo "replay failed: $v $c $p" >&2
}
export -f run
export bin procs tmp
xargs -P 2 -L 1 bash -c 'run "$@"' _ <"$tmp/work" || exit 1

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" "$2" | tail -n 1; }
# best PART: the candidate with the lowest AVEbsld on PART of variant $v.
best() {
	local c a b= bv=
	for c in $cands; do
		a=$(field avebsld "$tmp/$v.${c/\//-}.$1")
		if [ -z "$bv" ] || awk -v a="$a" -v b="$bv" 'BEGIN { exit !(a < b) }'; then
			b=$c bv=$a
		fi
	done
	echo "$b"
}
echo "$(basename "$trace"): $n jobs, $procs processors; AVEbsld (10 s bound) and MAE on each variant's later half"
echo "(past-best: the best on the first half in hindsight, scored on the later half;"
echo " near: how many of the 8 candidates are within 5 % of the best there)"
echo
printf '%-13s %-16s %8s %7s  %-16s %8s  %8s %7s  %7s %7s %-6s  %-16s %7s %4s\n' variant auto AVEbsld MAE best AVEbsld tsafrir MAE vs-best vs-tsa goals past-best vs-best near
fail=0
for v in $variants; do
	choice=$(awk '/^choice /{print $2}' "$tmp/$v.auto.old")
	b=$(best new) p=$(best old)
	bv=$(field avebsld "$tmp/$v.${b/\//-}.new")
	pv=$(field avebsld "$tmp/$v.${p/\//-}.new")
	av=$(field avebsld "$tmp/$v.${choice/\//-}.new")
	am=$(field mae_s "$tmp/$v.${choice/\//-}.new")
	tv=$(field avebsld "$tmp/$v.tsafrir-steps.new")
	tm=$(field mae_s "$tmp/$v.tsafrir-steps.new")
	near=0
	for c in $cands; do
		awk -v a="$(field avebsld "$tmp/$v.${c/\//-}.new")" -v b="$bv" 'BEGIN { exit !(a <= 1.05 * b) }' && near=$((near + 1))
	done
	line=$(awk -v a="$av" -v b="$bv" -v t="$tv" -v am="$am" -v tm="$tm" -v p="$pv" 'BEGIN {
		ok = (a <= 1.05 * b) && (a <= 1.02 * t) && (am <= tm)
		printf "%+6.1f%%|%+6.1f%%|%s|%+6.1f%%", 100 * (a - b) / b, 100 * (a - t) / t,
			ok ? "met" : "MISSED", 100 * (p - b) / b
	}')
	case $line in *MISSED*) fail=1 ;; esac
	printf '%-13s %-16s %8s %7s  %-16s %8s  %8s %7s  %s\n' "$v" "$choice" "$av" "$am" "$b" "$bv" "$tv" "$tm" \
		"$(echo "$line" | awk -F'|' -v p="$p" -v n="$near" '{ printf "%7s %7s %-6s  %-16s %7s %4s", $1, $2, $3, p, $4, n }')"
done
echo
[ "$fail" = 0 ] && echo "every goal met" || echo "some goal missed (a figure to read, not a failure of the command)"
[ -z "${KEEP:-}" ] || { mkdir -p "$KEEP" && cp "$tmp"/*.new "$tmp"/*.old "$KEEP"/; }
exit 0
