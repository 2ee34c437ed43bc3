# lib.sh: helpers for the job_submit plugin's tests in plain make check
# (sourced, not a test). They run the plugin in plugin-harness against
# fake-predictd servers, in the test's own temporary cwd.
plugin=$MPP_BUILD/lib/slurm/job_submit_mpipredict.so
harness=$MPP_BUILD/tests/contrib/plugin-harness
fake=$MPP_BUILD/tests/slurm/fake-predictd
for f in "$plugin" "$harness" "$fake"; do
	[ -e "$f" ] || { echo "expected $f to be built (make contrib)"; exit 1; }
done
fails=0
fake_pids=()
trap 'for p in "${fake_pids[@]+"${fake_pids[@]}"}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done' EXIT

# start_fake MODE NAME [fake-predictd options]: sets url_NAME; requests go
# to NAME.requests.
start_fake() {
	local i
	"$fake" --mode "$1" --port-file "$2.port" --log "$2.requests" "${@:3}" &
	fake_pids+=($!)
	for i in $(seq 100); do [ -s "$2.port" ] && break; sleep 0.05; done
	[ -s "$2.port" ] || { echo "fake-predictd $1 did not start"; exit 1; }
	: >>"$2.requests"
	printf -v "url_$2" 'http://127.0.0.1:%s' "$(cat "$2.port")"
}

# requests NAME: how many requests that server has had.
requests() {
	wc -l <"$1.requests"
}

# conf SETTINGS...: write plugin.conf, one setting per argument. Unless
# they set timeout_ms, it is 5 s: on a loaded machine an answer can take
# longer than the default 200 ms, and these tests are not about speed.
conf() {
	printf '%s\n' "$@" >plugin.conf
	case "$*" in *timeout_ms*) ;; *) echo 'timeout_ms = 5000' >>plugin.conf ;; esac
}

# script LINES...: write job.sh.
script() {
	{ echo '#!/bin/sh'; printf '%s\n' "$@"; } >job.sh
}

# run [harness options]: the plugin with plugin.conf on job.sh; the result
# line(s) in $out, the plugin's log in run.log.
run() {
	out=$(MPIPREDICT_CONF=$PWD/plugin.conf "$harness" "$plugin" --script job.sh "$@" 2>run.log) ||
		{ echo "plugin-harness failed:"; cat run.log; exit 1; }
}

# expect WHAT EXPECTED GOT
expect() {
	[ "$2" = "$3" ] && return 0
	echo "$1: expected '$2', got '$3'"
	fails=$((fails + 1))
}

# log_lines PATTERN: how many lines of run.log match.
log_lines() {
	grep -c -- "$1" run.log
}

# took: the longest job_submit call of the last run, in ms, as the harness
# measured it around the plugin.
took() {
	sed -n 's/^plugin-harness: job_submit took \([0-9.]*\) ms$/\1/p' run.log | sort -n | tail -n 1
}

# expect_le WHAT LIMIT VALUE: VALUE <= LIMIT (numbers).
expect_le() {
	awk -v l="$2" -v v="$3" 'BEGIN { exit !(v != "" && v + 0 <= l + 0) }' && return 0
	echo "$1: expected at most $2, got '$3'"
	fails=$((fails + 1))
}

# The margin over timeout_ms allowed for a call to end: a scheduling delay
# on a loaded 2-core machine, well under the second budget that asking
# the urls one after the other would cost.
margin_ms=100
