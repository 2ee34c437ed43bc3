#!/usr/bin/env bash
# fuzz/run.sh NAME...: runs each libFuzzer harness $MPP_FUZZ_BUILD/fuzz/NAME
# for $FUZZ_TIME seconds, starting from the checked-in seeds
# (fuzz/corpus/NAME, read only) and keeping what it finds in a scratch
# corpus that is removed afterwards. Prints each harness's executions and
# exits 1 when one fails, leaving its crash input in build-fuzz/crashes/.
set -u
src=$(cd "$(dirname "$0")/.." && pwd)
build=${MPP_FUZZ_BUILD:?}
secs=${FUZZ_TIME:-60}
work=$(mktemp -d "${TMPDIR:-/tmp}/mpp-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$build/crashes"
status=0
for name in "$@"; do
	mkdir -p "$work/$name" "$work/tmp"
	log=$build/$name.log
	TMPDIR=$work/tmp "$build/fuzz/$name" -max_total_time="$secs" -timeout=10 \
		-rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
		-artifact_prefix="$build/crashes/$name-" \
		"$work/$name" "$src/fuzz/corpus/$name" >"$log" 2>&1
	rc=$?
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	if [ $rc = 0 ]; then
		echo "fuzz $name: ${execs:-?} executions in ${secs}s, no failure"
	else
		status=1
		echo "fuzz $name: FAILED after ${execs:-?} executions (exit $rc); input in $build/crashes/, log $log:"
		grep -E 'ERROR|invariant|SUMMARY|runtime error' "$log" | head -5
	fi
	rm -rf "$work/tmp"
done
exit $status
