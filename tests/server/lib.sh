# lib.sh: shared shell helpers for the server tests (sourced, not a test).
# Starts mpipredictd on a free loopback port (port 0, reported through
# --port-file), sends requests with curl, and stops the daemon checking
# that it exits 0 on SIGTERM.
set -u

HELPERS=$MPP_BUILD/tests/server
DB=$PWD/models.db

fail() {
	echo "$*"
	[ -n "${PID:-}" ] && kill -9 "$PID" 2>/dev/null
	[ -f daemon.log ] && { echo "--- daemon.log (last lines)"; tail -n 15 daemon.log; }
	exit 1
}

# start_daemon [OPTIONS...]: sets PID, PORT, URL.
start_daemon() {
	rm -f port
	mpipredictd --db "$DB" --listen 127.0.0.1:0 --port-file port \
		--retrain-rows 0 --retrain-interval 0 "$@" \
		2>>daemon.log &
	PID=$!
	for _ in $(seq 200); do
		[ -s port ] && break
		kill -0 "$PID" 2>/dev/null || { PID=; fail "expected the daemon to start, it exited"; }
		sleep 0.05
	done
	[ -s port ] || fail "expected a port file within 10 s"
	PORT=$(cat port)
	URL=http://127.0.0.1:$PORT
}

stop_daemon() {
	kill -TERM "$PID"
	wait "$PID"
	local rc=$?
	PID=
	[ "$rc" -eq 0 ] || fail "expected exit 0 after SIGTERM, got $rc"
}

# req METHOD PATH [BODY [CURL-ARGS...]]: prints the status; body in ./body.
req() {
	local method=$1 path=$2
	shift 2
	local data=()
	if [ $# -gt 0 ]; then
		data=(--data-binary "$1")
		shift
	fi
	curl -s -m 20 -o body -w '%{http_code}' -X "$method" \
		-H 'Content-Type: application/json' "${data[@]}" "$@" "$URL$path"
}

# expect_status WANT GOT WHAT
expect_status() {
	[ "$1" = "$2" ] || fail "$3: expected status $1, got $2: $(head -c 300 body)"
}

# close_to WHAT WANT GOT: equal within a relative 1e-9.
close_to() {
	awk -v a="$2" -v b="$3" 'BEGIN { d = a - b; if (d < 0) d = -d;
		m = a < 0 ? -a : a; exit !(d <= 1e-9 * (m > 1 ? m : 1)) }' ||
		fail "$1: expected $2, got $3"
}

healthy() {
	local st
	st=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "$URL/healthz")
	[ "$st" = 200 ] || fail "$1: expected the daemon still answering /healthz, got $st"
}

rows() {
	sqlite3 "$DB" "SELECT count(*) FROM $1"
}

# hold_lock / release_lock: another connection holds the store's write lock
# (as a training does) until release_lock. The holder waits for the lock
# (.timeout): the daemon may be writing (an audit batch, kept records) at
# that moment, and without a wait BEGIN IMMEDIATE fails at once and
# nothing is held (t-audit-failing and t-runs-while-locked failed so under
# load). Fails the test when the lock is not taken within 5 s.
hold_lock() {
	rm -f lock.sql
	mkfifo lock.sql
	sqlite3 "$DB" <lock.sql >/dev/null 2>&1 &
	LOCK_HOLDER=$!
	exec 3>lock.sql
	echo '.timeout 5000' >&3
	echo 'BEGIN IMMEDIATE; INSERT INTO apps(name, created_at) VALUES ("lock", 0);' >&3
	local _
	for _ in $(seq 100); do
		sqlite3 "$DB" 'PRAGMA busy_timeout = 0; BEGIN IMMEDIATE; ROLLBACK;' >/dev/null 2>&1 ||
			return 0
		sleep 0.05
	done
	fail "expected another connection to take the store's write lock within 5 s"
}
release_lock() {
	echo 'ROLLBACK;' >&3
	exec 3>&-
	wait "$LOCK_HOLDER"
}
