#!/usr/bin/env bash
# The test runner counts passes, failures and skips, ends with the summary
# line, and exits non-zero on any failure or when no test ran at all.
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

out=$(MPP_BUILD=$PWD/b "$runner" "$PWD/empty" 2>&1); rc=$?
[ $rc -ne 0 ] || { echo "expected a non-zero exit when no test ran"; exit 1; }
printf '%s\n' "$out" | grep -qx '0 passed, 0 failed' || { echo "expected '0 passed, 0 failed' when no test ran"; exit 1; }
exit 0
