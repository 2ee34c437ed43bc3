#!/usr/bin/env bash
# Connections that send nothing do not deny service:
#  - more idle connections than --max-connections: each is closed when it
#    has not sent its request line within --start-timeout (2 s), not held
#    for the whole --request-timeout (30 s here), so a normal request made
#    behind them is answered within curl's 20 s;
#  - with --max-connections-per-ip, idle connections from one address take
#    at most that many slots: a client from another address is answered
#    while they are all held (start timeout 30 s here: nothing is reaped).
. "$MPP_SRC/tests/server/lib.sh"

"$HELPERS/mkmodel" "$DB" heat 1 'loop:h.c:3:1.mean=2@0@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"

start_daemon --max-connections 20 --threads 1 --request-timeout 30
"$HELPERS/httpc" hold "$PORT" 40 40 >hold.out &
hpid=$!
for _ in $(seq 200); do [ -s hold.out ] && break; sleep 0.05; done
[ "$(cat hold.out)" = "held 40" ] || fail "expected 40 idle connections open, got $(cat hold.out)"
st=$(curl -s -m 20 -o body -w '%{http_code}' "$URL/healthz")
[ "$st" = 200 ] || fail "behind 40 idle connections (limit 20): expected 200 within 20 s, got $st"
kill "$hpid" 2>/dev/null
wait "$hpid" 2>/dev/null
stop_daemon

start_daemon --max-connections 50 --max-connections-per-ip 10 --threads 1 \
	--request-timeout 30 --start-timeout 30
"$HELPERS/httpc" hold "$PORT" 60 40 >hold2.out &
hpid=$!
for _ in $(seq 200); do [ -s hold2.out ] && break; sleep 0.05; done
[ "$(cat hold2.out)" = "held 60" ] || fail "expected 60 connections made, got $(cat hold2.out)"
st=$(curl -s -m 20 -o body -w '%{http_code}' --interface 127.0.0.2 "$URL/healthz")
[ "$st" = 200 ] || fail "from 127.0.0.2 behind 60 idle connections from 127.0.0.1 (cap 10 per address): expected 200 within 20 s, got $st"
st=$(curl -s -m 20 -o body -w '%{http_code}' "$URL/healthz")
[ "$st" = 000 ] || fail "from 127.0.0.1 with its 10 connections held: expected the connection refused, got $st"
kill "$hpid" 2>/dev/null
wait "$hpid" 2>/dev/null
healthy "after the idle connections closed"
stop_daemon
echo "idle connections did not keep a normal request out"
