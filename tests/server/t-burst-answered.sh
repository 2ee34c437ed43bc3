#!/usr/bin/env bash
# A burst of submissions is answered, not dropped (issue 36), and the
# connections the daemon does close are counted by cause:
#  - 256 keep-alive connections on one event-loop thread, each sending 40
#    predictions back to back; the daemon is stopped (SIGSTOP) for longer
#    than --start-timeout while their next requests sit unread, as when the
#    loop falls behind: every request sent gets its answer, and nothing is
#    counted as reaped or late (before the fix, the reaper closed every
#    connection whose last answer was older than --start-timeout);
#  - then 1,024 connections, 10 requests each, all answered;
#  - a connection that sends nothing is closed (idle_reaped), one kept after
#    a staff page load is counted apart (ui_idle_reaped), and a request
#    trickling one byte a second is closed as timeout_in_flight, with a
#    warn line at the default log level.
. "$MPP_SRC/tests/server/lib.sh"

"$HELPERS/mkmodel" "$DB" heat 1 'loop:h.c:3:1.mean=2@0@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"
body='{"app":"heat","ntasks":4,"user":"burst"}'

metric() {
	curl -s -m 10 "$URL/metrics" | awk -v k="mpipredictd_errors_total{kind=\"$1\"}" '$1 == k { print $2 }'
}

start_daemon --threads 1 --start-timeout 1 --request-timeout 10
"$HELPERS/httpc" burst "$PORT" 256 40 /v1/predict "$body" >burst.out &
bpid=$!
for _ in $(seq 2000); do [ -s burst.out ] && break; sleep 0.01; done
grep -qx begun burst.out || fail "expected the burst to begin, got '$(cat burst.out)'"
# The whole daemon stops, reaper included; the clock goes on, so at SIGCONT
# every idle connection is past its start deadline, most with a request
# waiting in the socket.
kill -STOP "$PID"
sleep 2.5
kill -CONT "$PID"
wait "$bpid"
out=$(tail -n 1 burst.out)
[ "$out" = "sent 10240 answered 10240 status200 10240" ] ||
	fail "256 connections x 40 requests, the daemon stopped 2.5 s (--start-timeout 1): expected every request answered, got '$out'"
for k in timeout_in_flight idle_reaped client_closed; do
	v=$(metric "$k")
	[ "$v" = 0 ] || fail "after the burst: expected errors_total{kind=\"$k\"} 0, got '$v'"
done
grep -q 'kept: a request had begun' daemon.log ||
	fail "expected the daemon to have kept connections past --start-timeout with a request begun (else the test did not make the loop fall behind)"

out=$("$HELPERS/httpc" burst "$PORT" 1024 10 /v1/predict "$body" | tail -n 1)
[ "$out" = "sent 10240 answered 10240 status200 10240" ] ||
	fail "1,024 connections x 10 requests: expected every request answered, got '$out'"
[ "$(metric timeout_in_flight)" = 0 ] ||
	fail "after 1,024 connections: expected no request dropped, got timeout_in_flight $(metric timeout_in_flight)"

# Idle: one connection that never sends a byte is reaped as idle.
"$HELPERS/httpc" hold "$PORT" 1 3 >hold.out
[ "$(metric idle_reaped)" = 1 ] ||
	fail "a connection silent for 3 s (--start-timeout 1): expected idle_reaped 1, got '$(metric idle_reaped)'"

# The staff page kept open by its client, as a browser does: apart.
python3 - "$PORT" <<'EOF' || fail "expected the staff page to answer 200 five times"
import http.client, sys, time
conns = []
for _ in range(5):
    c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=10)
    c.request("GET", "/")
    r = c.getresponse()
    r.read()
    if r.status != 200:
        sys.exit(1)
    conns.append(c)
time.sleep(3)
EOF
[ "$(metric ui_idle_reaped)" = 5 ] ||
	fail "5 staff page loads kept open: expected ui_idle_reaped 5, got '$(metric ui_idle_reaped)'"
[ "$(metric idle_reaped)" = 1 ] ||
	fail "5 staff page loads kept open: expected idle_reaped still 1, got '$(metric idle_reaped)'"
stop_daemon

# A request that never comes whole: dropped, counted and said at the
# default log level (notice), with the option to look at.
: >daemon.log
start_daemon --threads 1 --start-timeout 1 --request-timeout 2
"$HELPERS/httpc" trickle "$PORT" >trickle.out
grep -q 'closed after' trickle.out || fail "expected the trickling client closed, got '$(cat trickle.out)'"
[ "$(metric timeout_in_flight)" = 1 ] ||
	fail "a request trickling 1 byte/s (--request-timeout 2): expected timeout_in_flight 1, got '$(metric timeout_in_flight)'"
[ "$(metric idle_reaped)" = 0 ] ||
	fail "a trickling request is not idle: expected idle_reaped 0, got '$(metric idle_reaped)'"
grep -q 'warn.*request in flight.*--request-timeout' daemon.log ||
	fail "expected a warn line naming the dropped request's cause at the default log level"
stop_daemon
echo "a burst answered whole; connections closed counted by cause"
