#!/usr/bin/env bash
# POST /v1/runs while a training holds the store's write lock (the body
# waits on the ingest thread, its connection suspended):
#  - clients that reset their connection before the answer: their rows are
#    stored, nothing leaks (LeakSanitizer at the daemon's exit under make
#    check SANITIZE=1), the daemon goes on;
#  - at shutdown the body being written gets its answer and the seven
#    waiting ones the documented 503, not a bare close (the daemon closed
#    them before they were sent, and the answers it had made for them
#    leaked); the daemon exits 0.
. "$MPP_SRC/tests/server/lib.sh"

"$MPP_BUILD/tests/regress/gen-runs" --runs 24 --features 10 --seed 1 >all.csv ||
	fail "expected gen-runs to work"
head -n 1 all.csv >hdr.csv
for i in $(seq 12); do
	{ cat hdr.csv; sed -n "$((2 * i)),$((2 * i + 1))p" all.csv; } >part$i.csv
done
echo t0ken >token

raw_post() { # FILE.csv -> FILE.http
	{
		printf 'POST /v1/runs HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer t0ken\r\n'
		printf 'Content-Length: %d\r\n\r\n' "$(wc -c <"$1")"
		cat "$1"
	} >"${1%.csv}.http"
}

"$HELPERS/mkmodel" "$DB" heat 1 'loop:h.c:3:1.mean=2@0@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"
start_daemon --token-file token --threads 1

# Three clients reset while their bodies wait for the lock.
hold_lock
resets=()
for i in 1 2 3; do
	raw_post part$i.csv
	"$HELPERS/httpc" reset "$PORT" part$i.http 300 >reset$i.out &
	resets+=($!)
done
wait "${resets[@]}"
for i in 1 2 3; do
	[ "$(cat reset$i.out)" = reset ] || fail "expected client $i to reset, got $(cat reset$i.out)"
done
release_lock
for _ in $(seq 100); do
	[ "$(rows runs)" = 6 ] && break
	sleep 0.1
done
[ "$(rows runs)" = 6 ] || fail "expected the 6 runs of the reset clients stored, got $(rows runs)"
healthy "after the resets"

# Shutdown while one body is being written and seven wait (the ingest
# queue holds 8).
hold_lock
posts=()
for i in $(seq 4 11); do
	curl -s -m 30 -o runs$i.body -w '%{http_code}' --data-binary @part$i.csv \
		-H 'Authorization: Bearer t0ken' "$URL/v1/runs" >runs$i.status &
	posts+=($!)
	sleep 0.2
done
kill -TERM "$PID"
sleep 1
release_lock
wait "$PID"
rc=$?
PID=
[ $rc = 0 ] || fail "expected exit 0 after SIGTERM, got $rc"
wait "${posts[@]}"
[ "$(cat runs4.status)" = 200 ] || fail "the body being written at shutdown: expected 200, got '$(cat runs4.status)': $(cat runs4.body)"
for i in $(seq 5 11); do
	[ "$(cat runs$i.status)" = 503 ] ||
		fail "a body waiting at shutdown: expected 503, got '$(cat runs$i.status)': $(cat runs$i.body)"
	jq -e '.error | contains("shutting down")' runs$i.body >/dev/null ||
		fail "a body waiting at shutdown: expected the error to say the daemon is shutting down, got $(cat runs$i.body)"
done
[ "$(rows runs)" = 8 ] || fail "expected 8 runs stored (6, then the body being written), got $(rows runs)"
grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' daemon.log && fail "expected a clean daemon log"
echo "resets freed, waiting bodies answered 503 at shutdown"
