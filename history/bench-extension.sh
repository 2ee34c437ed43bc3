#!/usr/bin/env bash
# make bench-extension: what extending running jobs' limits is worth
# (issue 37), on KTH-SP2 (28,481 jobs, 100 processors) through EASY, the
# scheduler planning with each job's limit. Limits: the users' requests;
# or ECMWF's rule, the mean + 1 sd of the run times of the user's
# finished jobs of the same request (at most the request). The extension
# policy (server/extend.c's rule): at 90 % of its limit a job still
# running is estimated to end at its need x the predictor's upper bound
# over the truth, taken in turn from RATIOS (default
# history/extend-ratios.txt: the in-range answers of make bench-accuracy
# on the example apps and the development set); an end past the limit by
# at most +20 % and 2 h becomes the limit. Also an exact predictor (ratio
# 1), the policy's bound. A job's need is its run time in the trace: the
# 475 jobs that reached their request there were killed at it and their
# need is unknown (censored), so the requested limits can show no kill
# and nothing to save. Deterministic; about 1 s.
set -u
bin=$MPP_BUILD/bin/mpipredict-replay
src=$(cd "$(dirname "$0")" && pwd)
ratios=${RATIOS:-$src/extend-ratios.txt}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
xz -dc "$src/KTH-SP2-filtered.swf.xz" >"$tmp/kth.swf" || exit 1
echo 1 >"$tmp/exact.txt"
total=$(awk '!/^;/ && $4 > 0 { s += $4 * ($8 > 0 ? $8 : $5) } END { printf "%.0f", s / 3600 }' "$tmp/kth.swf")
echo "KTH-SP2, EASY planning with the limits; the trace's work: $total processor-hours"
echo "ratios: $ratios ($(grep -cv '^#' "$ratios") answers)"
echo
printf '%-46s %8s %14s %16s %9s %6s %9s\n' limits AVEbsld killed "tail waste (h)" extended saved "over cap"
row() { # label args...
	local label=$1
	shift
	"$bin" --json "$@" "$tmp/kth.swf" >"$tmp/out.json" 2>"$tmp/err" ||
		{ cat "$tmp/err"; echo "replay failed: $*"; exit 1; }
	jq -r --arg l "$label" --argjson t "$total" '
	  [$l, (.avebsld * 100 | round / 100),
	   "\(.limits.killed) (\(.limits.killed * 1000 / .jobs | round / 10) %)",
	   "\(.limits.waste_proc_h | round) (\(.limits.waste_proc_h * 1000 / $t | round / 10) %)",
	   .limits.extended, .limits.saved, .limits.over_cap] |
	  @tsv' "$tmp/out.json" |
		awk -F'\t' '{ printf "%-46s %8s %14s %16s %9s %6s %9s\n", $1, $2, $3, $4, $5, $6, $7 }'
}
row "requested" --limits request
row "ECMWF mean + 1 sd" --limits ecmwf
row "ECMWF + extension, the predictor's real error" --limits ecmwf --extend-ratios "$ratios"
row "ECMWF + extension, an exact predictor" --limits ecmwf --extend-ratios "$tmp/exact.txt"
row "ECMWF + extension, real error, cap +50 %, 4 h" --limits ecmwf --extend-ratios "$ratios" \
	--extend-cap-pct 50 --extend-cap-s 14400
