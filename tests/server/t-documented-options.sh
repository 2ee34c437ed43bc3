#!/usr/bin/env bash
# Every option that `mpipredictd --help` or server/README.md documents is
# accepted: the daemon starts with all of them at once (one missing from
# the option table exits 1 "unknown option"), and each has a sample value
# here, so an option documented later without a test fails this one.
. "$MPP_SRC/tests/server/lib.sh"

declare -A sample=(
	[--db]="$DB" [--listen]=127.0.0.1:0 [--port-file]=port
	[--token-file]=token [--threads]=2 [--max-body]=65536
	[--max-connections]=64 [--max-features]=100 [--idle-timeout]=5
	[--request-timeout]=5 [--audit-interval]=20 [--audit-batch]=64
	[--audit-queue]=1000 [--reload-interval]=30 [--log-level]=info
	[--history]=online [--history-loss]=abs:1/abs:1/60 [--history-max-keys]=1000
	[--history-procs]=64 [--history-every]=100 [--history-guard]=on
	[--start-timeout]=2 [--max-connections-per-ip]=32
	[--audit-keep-rows]=1000 [--audit-keep-days]=30
	[--ui-users]=no [--ui-refresh]=500 [--config]=none
	[--retrain-rows]=5 [--retrain-interval]=3600
	[--retrain-trainer]="$MPP_BUILD/bin/mpipredict-train" [--retrain-margin]=2.5
	[--write-rate]=60
	[--extend]=on [--extend-cap-pct]=20 [--extend-cap-s]=7200
	[--scontrol]=scontrol [--scontrol-timeout]=10
)
echo t0ken >token
documented=$( {
	mpipredictd --help
	sed -n '/^```$/,/^```$/p' "$MPP_SRC/server/README.md"
} | grep -o -- '--[a-z][a-z-]*' | sort -u | grep -v -x -e --help -e --version)
[ -n "$documented" ] || fail "expected options in --help and the README"
args=()
for o in $documented; do
	[ -n "${sample[$o]+x}" ] || fail "documented option $o has no sample value in this test"
	[ "$o" = --db ] || [ "$o" = --listen ] || [ "$o" = --port-file ] ||
		args+=("$o" "${sample[$o]}")
done
start_daemon "${args[@]}"
st=$(req GET /healthz)
expect_status 200 "$st" "a daemon started with every documented option"
stop_daemon
grep -q 'unknown option' daemon.log && fail "expected no unknown option, got $(grep -m1 'unknown option' daemon.log)"
for o in --version --help; do
	mpipredictd "$o" >out 2>&1 || fail "mpipredictd $o: expected exit 0, got $? ($(cat out))"
done
echo "$(echo "$documented" | wc -l) documented options accepted"
