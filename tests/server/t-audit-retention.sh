#!/usr/bin/env bash
# The audit has a retention the operator sets: records older than
# --audit-keep-days go at start (and every minute), all but the newest
# --audit-keep-rows go as well (here checked after a stop, when the store
# thread applies it once more); 0 and 0 keep everything. Oldest first: the
# newest records are the ones kept.
. "$MPP_SRC/tests/server/lib.sh"

"$HELPERS/mkmodel" "$DB" heat 1 'loop:h.c:3:1.mean=2@0@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"
# Three records from 1970 and one from an hour ago.
now=$(date +%s)
sqlite3 "$DB" "INSERT INTO predictions(at, app, basis, user, runtime_s, lower_s, upper_s) VALUES
	(1000, 'heat', 'parameters', 'old1', 1, 1, 1), (1001, 'heat', 'parameters', 'old2', 1, 1, 1),
	(1002, 'heat', 'parameters', 'old3', 1, 1, 1), ($now - 3600, 'heat', 'parameters', 'recent', 1, 1, 1)" ||
	fail "expected to insert old records"
start_daemon --audit-keep-days 1 --audit-keep-rows 5 --audit-interval 10
for _ in $(seq 100); do
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM predictions WHERE user LIKE 'old%'")" = 0 ] && break
	sleep 0.1
done
[ "$(sqlite3 "$DB" "SELECT count(*) FROM predictions WHERE user LIKE 'old%'")" = 0 ] ||
	fail "expected the records older than a day deleted soon after the start, got $(rows predictions) rows"
[ "$(sqlite3 "$DB" "SELECT user FROM predictions")" = recent ] ||
	fail "expected the record of an hour ago kept, got $(sqlite3 "$DB" "SELECT user FROM predictions")"
for i in $(seq 12); do
	st=$(req POST /v1/predict "{\"app\":\"heat\",\"ntasks\":2,\"user\":\"u$i\"}")
	expect_status 200 "$st" "prediction $i"
done
stop_daemon
got=$(sqlite3 "$DB" "SELECT group_concat(user, ' ') FROM (SELECT user FROM predictions ORDER BY id)")
[ "$got" = "u8 u9 u10 u11 u12" ] || fail "expected the newest 5 records kept (u8..u12), got '$got'"

# 0 and 0: nothing deleted.
start_daemon --audit-keep-days 0 --audit-keep-rows 0 --audit-interval 10
for i in $(seq 13 15); do
	st=$(req POST /v1/predict "{\"app\":\"heat\",\"ntasks\":2,\"user\":\"u$i\"}")
	expect_status 200 "$st" "prediction $i"
done
stop_daemon
[ "$(rows predictions)" = 8 ] || fail "expected all 8 records kept without a retention, got $(rows predictions)"
# A bad value is a usage error.
mpipredictd --db "$DB" --audit-keep-rows -1 2>err.txt
[ $? = 1 ] && grep -q -- '--audit-keep-rows' err.txt || fail "expected exit 1 naming --audit-keep-rows, got $(cat err.txt)"
echo "retention applied: newest kept"
