#!/usr/bin/env bash
# The test runner counts passes, failures and skips, ends with the summary
# line, exits non-zero on any failure or when no test ran at all, and kills
# what a test left running when it ends.
set -u
runner=$MPP_SRC/tests/run-tests.sh
mkdir -p suite/a empty
printf '#!/bin/sh\nexit 0\n' >suite/a/t-pass.sh
printf '#!/bin/sh\necho expected 1, got 2\nexit 1\n' >suite/a/t-fail.sh
printf '#!/bin/sh\necho no slurm here\nexit 77\n' >suite/t-skip.sh
chmod +x suite/a/t-pass.sh suite/a/t-fail.sh suite/t-skip.sh

out=$(MPP_BUILD=$PWD/b "$runner" "$PWD/suite" 2>&1); rc=$?
last=$(printf '%s\n' "$out" | tail -n 1)
[ "$last" = "1 passed, 1 failed, 1 skipped" ] || { echo "expected summary '1 passed, 1 failed, 1 skipped', got '$last'"; exit 1; }
[ $rc -ne 0 ] || { echo "expected a non-zero exit with a failing test, got 0"; exit 1; }
printf '%s\n' "$out" | grep -q 'expected 1, got 2' || { echo "the failing test's output was not shown"; exit 1; }

rm suite/a/t-fail.sh
MPP_BUILD=$PWD/b "$runner" "$PWD/suite" >/dev/null 2>&1 || { echo "expected exit 0 with no failure"; exit 1; }

# A test that fails with a loop still running in the background (as a
# client loop left behind by a failed check): the loop must not outlive it.
# The loop beats in a file outside the test's directory (which the runner
# removes); a beat that still changes afterwards is a live loop (a pid
# alone is not: here nothing reaps orphans, so a killed one stays a zombie).
beat=$PWD/beat
mkdir -p leftover
printf '#!/bin/bash\n(echo $BASHPID >%s.pid; while :; do date +%%s%%N >%s; sleep 0.05; done) &\nsleep 0.3\nexit 1\n' "$beat" "$beat" >leftover/t-leaves-a-loop.sh
chmod +x leftover/t-leaves-a-loop.sh
MPP_BUILD=$PWD/b "$runner" "$PWD/leftover" >/dev/null 2>&1
[ -s "$beat" ] || { echo "the leftover test's loop never started"; exit 1; }
b1=$(cat "$beat")
sleep 0.3
if [ "$(cat "$beat")" != "$b1" ]; then
	kill "$(cat "$beat.pid")"
	echo "expected the runner to kill what a test left running; its loop (pid $(cat "$beat.pid")) still beat"
	exit 1
fi

out=$(MPP_BUILD=$PWD/b "$runner" "$PWD/empty" 2>&1); rc=$?
[ $rc -ne 0 ] || { echo "expected a non-zero exit when no test ran"; exit 1; }
printf '%s\n' "$out" | grep -qx '0 passed, 0 failed' || { echo "expected '0 passed, 0 failed' when no test ran"; exit 1; }
exit 0
