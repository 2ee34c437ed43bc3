#!/usr/bin/env bash
# A daemon that accepts connections but never answers (SIGSTOP): the job
# still exits (the forwarder is detached; bound generous on purpose, the
# cost is measured by `make bench-forward`) and the row is kept; after
# SIGCONT `mpipredict-collect --forward` sends it (a body the daemon took
# meanwhile is answered 200 again, not stored twice).
. "$MPP_SRC/tests/collector/forward.sh"

start_daemon --token-file token
printf '[client]\nurl = %s\ntoken_file = %s\ntimeout_ms = 500\n' "$URL" "$PWD/token" >client.conf
kill -STOP "$PID"
timeout 20 mpirun -np 2 ./e2e >out.txt 2>&1
rc=$?
[ "$rc" = 0 ] || { kill -CONT "$PID"; fail "expected the job to exit 0 within 20 s with the daemon stopped, got $rc"; }
id=$(last_run_id)
mpipredict-collect --forward 2>err
rc=$?
[ "$rc" = 2 ] || { kill -CONT "$PID"; fail "expected exit 2 with the daemon stopped, got $rc: $(cat err)"; }
[ -f "$OUTBOX/$id.csv" ] || { kill -CONT "$PID"; fail "expected the row kept in the outbox"; }
kill -CONT "$PID"
mpipredict-collect --forward 2>err || fail "expected exit 0 after SIGCONT, got $?: $(cat err)"
[ "$(stored "$id")" = 1 ] && [ "$(waiting)" = 0 ] ||
	fail "expected the run stored once and the outbox empty, got stored=$(stored "$id") waiting=$(waiting)"
stop_daemon
echo "a stopped daemon neither holds the job nor loses the row"
