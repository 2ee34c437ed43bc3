#!/usr/bin/env bash
# GET /healthz tells apart an empty store (200 no_models), a working one
# (200 ok, once a model is stored under the running daemon) and a store
# that takes no writes (503 store_not_writable, and ok again once it
# does), with the store's schema version and the daemon's version; an
# audit refused by the store's content (a trigger) is not a store that
# cannot be written. The start line at the default level names the
# version, the store, its schema, the models and the address.
#
# The store is made unwritable with a file size limit on the running
# daemon (prlimit --fsize): a write past it fails with EFBIG as on a full
# disk, for root too (root ignores file modes, so chmod 0444 cannot be
# used in CI; it is checked as well when not root).
. "$MPP_SRC/tests/server/lib.sh"

version=$(mpipredictd --version | cut -d' ' -f2)
start_daemon --audit-interval 10
schema=$(sqlite3 "$DB" 'PRAGMA user_version')
[ "$schema" -ge 1 ] || fail "expected a schema version in the store, got '$schema'"
health() { # WANT-STATUS WANT-CODE WANT-MODELS WHAT: waits up to 15 s
	local st
	for _ in $(seq 150); do
		st=$(req GET /healthz)
		[ "$st" = "$2" ] && [ "$(jq -r .status body)" = "$1" ] && break
		sleep 0.1
	done
	[ "$st" = "$2" ] && [ "$(jq -c '[.status, .models, .schema, .version]' body)" = "[\"$1\",$3,$schema,\"$version\"]" ] ||
		fail "$4: expected $2 {status: $1, models: $3, schema: $schema, version: $version}, got $st $(cat body)"
}
health no_models 200 0 "an empty store"
grep -qE "notice mpipredictd $version: store $DB \(schema $schema\), 0 active models, listening on 127.0.0.1:$PORT \([0-9]+ threads?\), .*config none$" daemon.log ||
	fail "expected the start line at the default level, got $(cat daemon.log)"

"$HELPERS/mkmodel" "$DB" heat 1 'a=1' >/dev/null || fail "expected mkmodel to work"
health ok 200 1 "a model stored under the running daemon"

# The audit refused by a trigger: the keeper's probe write succeeds, so
# the store is still writable.
sqlite3 -cmd ".timeout 5000" "$DB" "CREATE TRIGGER no_audit BEFORE INSERT ON predictions
	BEGIN SELECT RAISE(ABORT, 'audit refused by the test'); END;" || fail "expected the trigger"
st=$(req POST /v1/predict '{"app":"heat","features":{"a":1}}')
expect_status 200 "$st" "a prediction while the audit is refused"
for _ in $(seq 100); do grep -q 'audit refused by the test' daemon.log && break; sleep 0.05; done
grep -q 'audit refused by the test' daemon.log || fail "expected the refused audit in the log"
health ok 200 1 "an audit refused by a trigger"
sqlite3 -cmd ".timeout 5000" "$DB" "DROP TRIGGER no_audit" || fail "expected to drop the trigger"
for _ in $(seq 200); do [ "$(rows predictions)" -gt 0 ] && break; sleep 0.05; done
[ "$(rows predictions)" -gt 0 ] || fail "expected the refused record written once the trigger is gone"

# No write past the -wal's present size: the next audit commit fails.
wal=$(stat -c %s "$DB-wal")
[ "$wal" -gt 0 ] || fail "expected a -wal file after the audit writes"
[ "$(stat -c %s daemon.log)" -lt $((wal - 2048)) ] || fail "expected daemon.log smaller than the -wal (it is limited too)"
prlimit --pid "$PID" --fsize="$wal:" || fail "expected prlimit to set the daemon's file size limit"
st=$(req POST /v1/predict '{"app":"heat","features":{"a":2}}')
expect_status 200 "$st" "a prediction while the store cannot grow"
health store_not_writable 503 1 "a store that cannot be written"
grep -q "error store: $DB does not take writes" daemon.log || fail "expected a log line saying the store takes no writes"
st=$(req POST /v1/predict '{"app":"heat","features":{"a":3}}')
expect_status 200 "$st" "predictions answered while the store cannot be written"
kill -0 "$PID" || fail "expected the daemon alive past its file size limit (SIGXFSZ ignored)"
prlimit --pid "$PID" --fsize=unlimited || fail "expected prlimit to lift the limit"
health ok 200 1 "the store writable again"
grep -q "store: $DB takes writes again" daemon.log || fail "expected a line saying the store takes writes again"

if [ "$(id -u)" != 0 ]; then
	chmod 0444 "$DB"
	health store_not_writable 503 1 "a store file made read-only"
	chmod 0644 "$DB"
	health ok 200 1 "the store file writable again"
	checked=", and after chmod 0444"
else
	checked="; chmod 0444 not checked: root ignores file modes"
fi
stop_daemon
grep -qE "notice mpipredictd $version: Terminated, stopping" daemon.log || fail "expected one line at shutdown"
echo "no_models, ok, store_not_writable past a file size limit and ok again$checked"
