#!/usr/bin/env bash
# Every fuzz harness's seeds and saved inputs (fuzz/corpus/NAME, including
# the inputs a fuzzer once failed on) replayed through the harness built
# without libFuzzer: no invariant broken, no crash (and, under make check
# SANITIZE=1, nothing the sanitizers report). `make fuzz` does the fuzzing.
set -u
fail=0
for name in fuzz-request fuzz-runs fuzz-script fuzz-predict fuzz-trace fuzz-swf; do
	n=$(ls "$MPP_SRC/fuzz/corpus/$name" | wc -l)
	[ "$n" -gt 0 ] || { echo "$name: expected seeds in fuzz/corpus/$name"; fail=1; continue; }
	out=$("$MPP_BUILD/tests/fuzz/replay-$name" "$MPP_SRC/fuzz/corpus/$name" 2>&1)
	rc=$?
	if [ $rc != 0 ] || [ "$out" != "replayed $n inputs" ]; then
		echo "$name: expected 'replayed $n inputs' and exit 0, got exit $rc: $(echo "$out" | tail -5)"
		fail=1
	fi
done
exit $fail
