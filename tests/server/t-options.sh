#!/usr/bin/env bash
# mpipredictd's command line: usage errors exit 1 naming the option, bad
# files exit 2 naming the file, a taken port exits 2, an idle daemon does
# not spin, and SIGINT stops it cleanly like SIGTERM.
. "$MPP_SRC/tests/server/lib.sh"

check() { # WANT-RC WANT-IN-STDERR ARGS...
	local want=$1 text=$2
	shift 2
	timeout 10 mpipredictd "$@" 2>err >/dev/null
	local rc=$?
	[ "$rc" = "$want" ] || fail "mpipredictd $*: expected exit $want, got $rc ($(cat err))"
	grep -q -- "$text" err || fail "mpipredictd $*: expected a message naming '$text', got '$(cat err)'"
	[ "$(wc -l <err)" = 1 ] || fail "mpipredictd $*: expected one line on stderr, got $(cat err)"
}

check 1 "--db" --listen 127.0.0.1:0
check 1 "--threads" --db "$DB" --threads 0
check 1 "--max-body" --db "$DB" --max-body 12k
check 1 "--log-level" --db "$DB" --log-level loud
check 1 "--listen" --db "$DB" --listen nonsense
check 1 "extra" --db "$DB" extra
check 2 "no/such/dir/models.db" --db no/such/dir/models.db --listen 127.0.0.1:0
check 2 "missing-token" --db "$DB" --token-file missing-token --listen 127.0.0.1:0
: >empty-token
check 2 "empty-token" --db "$DB" --token-file empty-token --listen 127.0.0.1:0

start_daemon
check 2 "127.0.0.1:$PORT" --db "$DB" --listen "127.0.0.1:$PORT"
# Idle, with the default intervals, the daemon sleeps: a background thread
# that spins (as when an interval defaulted to 0) burns a whole core.
ticks() { awk '{ print $14 + $15 }' "/proc/$PID/stat"; }
t0=$(ticks)
sleep 2
used=$(($(ticks) - t0))
hz=$(getconf CLK_TCK)
[ "$used" -lt $((hz * 3 / 10)) ] ||
	fail "expected an idle daemon to use under 0.3 s of CPU in 2 s, got $used ticks of 1/$hz s"
kill -INT "$PID"
wait "$PID"
rc=$?
[ "$rc" = 0 ] || fail "expected exit 0 after SIGINT, got $rc"
echo "options and exits as documented"
