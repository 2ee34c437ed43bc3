#!/usr/bin/env bash
# POST /v1/runs while a training holds the store's write lock (the body
# waits on the ingest thread, its connection suspended):
#  - clients that reset their connection before the answer: the answer the
#    ingest thread made for them is freed, not leaked (LeakSanitizer at the
#    daemon's exit under make check SANITIZE=1), and their rows are stored;
#  - at shutdown the body being written gets its answer and the waiting ones
#    the documented 503, not a bare close; the daemon exits 0.
. "$MPP_SRC/tests/server/lib.sh"

"$MPP_BUILD/tests/regress/gen-runs" --runs 12 --features 10 --seed 1 >all.csv ||
	fail "expected gen-runs to work"
head -n 1 all.csv >hdr.csv
for i in 1 2 3 4 5 6; do
	{ cat hdr.csv; sed -n "$((2 * i)),$((2 * i + 1))p" all.csv; } >part$i.csv
done
echo t0ken >token

# lock / unlock: hold the write lock from another connection.
lock() {
	rm -f lock.sql
	mkfifo lock.sql
	sqlite3 "$DB" <lock.sql >/dev/null 2>&1 &
	holder=$!
	exec 3>lock.sql
	echo 'BEGIN IMMEDIATE; INSERT INTO apps(name, created_at) VALUES ("lock", 0);' >&3
	for _ in $(seq 100); do
		sqlite3 "$DB" 'PRAGMA busy_timeout = 0; BEGIN IMMEDIATE; ROLLBACK;' 2>/dev/null || break
		sleep 0.05
	done
}
unlock() {
	echo 'ROLLBACK;' >&3
	exec 3>&-
	wait "$holder"
}
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
lock
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
unlock
for _ in $(seq 100); do
	[ "$(rows runs)" = 6 ] && break
	sleep 0.1
done
[ "$(rows runs)" = 6 ] || fail "expected the 6 runs of the reset clients stored, got $(rows runs)"
healthy "after the resets"

# Shutdown while one body is being written and two wait.
lock
posts=()
for i in 4 5 6; do
	curl -s -m 30 -o runs$i.body -w '%{http_code}' --data-binary @part$i.csv \
		-H 'Authorization: Bearer t0ken' "$URL/v1/runs" >runs$i.status &
	posts+=($!)
	sleep 0.3
done
kill -TERM "$PID"
sleep 1
unlock
wait "$PID"
rc=$?
PID=
[ $rc = 0 ] || fail "expected exit 0 after SIGTERM, got $rc"
wait "${posts[@]}"
[ "$(cat runs4.status)" = 200 ] || fail "the body being written at shutdown: expected 200, got '$(cat runs4.status)': $(cat runs4.body)"
for i in 5 6; do
	[ "$(cat runs$i.status)" = 503 ] ||
		fail "a body waiting at shutdown: expected 503, got '$(cat runs$i.status)': $(cat runs$i.body)"
	jq -e '.error | contains("shutting down")' runs$i.body >/dev/null ||
		fail "a body waiting at shutdown: expected the error to say the daemon is shutting down, got $(cat runs$i.body)"
done
[ "$(rows runs)" = 8 ] || fail "expected 8 runs stored (6, then the body being written), got $(rows runs)"
grep -q 'runtime error\|AddressSanitizer\|LeakSanitizer' daemon.log && fail "expected a clean daemon log"
echo "resets freed, waiting bodies answered 503 at shutdown"
