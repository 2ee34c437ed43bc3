#!/usr/bin/env bash
# Run mpipredict's tests and print one summary line, "N passed, N failed"
# (", N skipped" when some skipped). Exit 0 only when at least one test ran
# and none failed.
#
# Usage: tests/run-tests.sh [PATH...]     (default: tests)
#
# A test is an executable file named t-*.sh under a PATH, or a compiled test
# $MPP_BUILD/tests/<same sub-path>/t-*. Each runs alone, in a fresh empty
# directory that is its cwd and $TMPDIR and that is removed afterwards
# (KEEP=1 keeps it), with a time limit (MPP_TEST_TIMEOUT, default 900 s),
# in a process group of its own that is killed when the test ends (what it
# left running dies with it).
# Exit status 0 is a pass, 77 a skip (the test prints why), anything else a
# failure; the last lines of a failing test's output are shown.
#
# Environment handed to tests:
#   MPP_SRC    absolute path of the source tree
#   MPP_BUILD  absolute path of the build tree (programs in $MPP_BUILD/bin,
#              also first on PATH)
#   MPP_TEST_CFLAGS  extra compiler flags (sanitizers) for programs a test builds
#   MPP_LONG=1 for the long variants (make check-long)
set -u

src=$(cd "$(dirname "$0")/.." && pwd)
export MPP_SRC=$src
export MPP_BUILD=${MPP_BUILD:-$src/build}
export MPP_TEST_CFLAGS=${MPP_TEST_CFLAGS:-}
# mpipredictd reads /etc/mpipredict/mpipredictd.conf when it exists; a test
# never does (one that wants a configuration file names it with --config).
export MPIPREDICT_DAEMON_CONF=none
export PATH="$MPP_BUILD/bin:$PATH"
# OpenMPI refuses root and more ranks than cores unless told; tests run as
# root in CI on 2 cores.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=0:detect_odr_violation=0}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$src/tests/lsan.supp:print_suppressions=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
timeout_s=${MPP_TEST_TIMEOUT:-900}

[ $# -eq 0 ] && set -- tests

tests=()
for p in "$@"; do
	p=${p%/}
	case $p in /*) abs=$p ;; *) abs=$src/$p ;; esac
	if [ -f "$abs" ]; then
		tests+=("$abs")
		continue
	fi
	if [ ! -d "$abs" ]; then
		echo "run-tests: no such test or folder: $p" >&2
		exit 2
	fi
	while IFS= read -r t; do tests+=("$t"); done < <(
		find "$abs" -name 't-*.sh' -type f -perm -u+x | sort
		rel=${abs#"$src"/}
		if [ "$rel" != "$abs" ] && [ -d "$MPP_BUILD/$rel" ]; then
			find "$MPP_BUILD/$rel" -name 't-*' -type f -perm -u+x ! -name '*.*' | sort
		fi)
done

pass=0 fail=0 skip=0
failed=()
logdir=$MPP_BUILD/test-logs
mkdir -p "$logdir"
for t in "${tests[@]}"; do
	name=${t#"$src"/}
	name=${name#"$MPP_BUILD"/}
	log=$logdir/$(echo "$name" | tr '/' '_').log
	dir=$(mktemp -d "${TMPDIR:-/tmp}/mpp-test.XXXXXX")
	start=$(date +%s%N)
	# In a session of its own (setsid, which here execs in the subshell's
	# process: $! leads the group): when the test ends, whatever it left
	# running (the client loop of a test that failed half-way, a daemon)
	# is killed with the group, so it cannot load the tests after it.
	(cd "$dir" && TMPDIR=$dir exec setsid timeout -k 5 "$timeout_s" "$t") >"$log" 2>&1 </dev/null &
	tpid=$!
	# The test is not in the terminal's process group: an interrupt of
	# the runner takes the test down with it.
	trap 'kill -KILL -- "-$tpid" 2>/dev/null; exit 130' INT TERM
	wait "$tpid"
	rc=$?
	kill -KILL -- "-$tpid" 2>/dev/null
	ms=$((($(date +%s%N) - start) / 1000000))
	secs=$((ms / 1000)).$((ms % 1000 / 100))
	[ "${KEEP:-0}" = 1 ] || rm -rf "$dir"
	case $rc in
	0) pass=$((pass + 1)); printf 'ok    %s (%ss)\n' "$name" "$secs" ;;
	77) skip=$((skip + 1)); printf 'skip  %s: %s\n' "$name" "$(tail -n 1 "$log")" ;;
	*)
		fail=$((fail + 1)); failed+=("$name")
		[ $rc = 124 ] && echo "(timed out after ${timeout_s}s)" >>"$log"
		printf 'FAIL  %s (exit %d, %ss); last lines of %s:\n' "$name" "$rc" "$secs" "$log"
		tail -n 25 "$log" | sed 's/^/    /'
		;;
	esac
done

for f in "${failed[@]+"${failed[@]}"}"; do echo "failed: $f"; done
if [ "$skip" -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
if [ $((pass + fail)) -eq 0 ]; then
	echo "run-tests: no test ran" >&2
	exit 1
fi
[ "$fail" -eq 0 ]
