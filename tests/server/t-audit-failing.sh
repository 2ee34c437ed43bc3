#!/usr/bin/env bash
# When audit writes fail, the daemon keeps answering, retries with a back
# off (a few attempts and log lines, not a loop), drops what its queue
# cannot hold with a count, writes the rest once the store works again,
# and a SIGTERM while the store is locked stops it within a few seconds.
. "$MPP_SRC/tests/server/lib.sh"

"$HELPERS/mkmodel" "$DB" heat 1 'loop:h.c:3:1.mean=2@0@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"
start_daemon --audit-interval 10 --audit-batch 2 --audit-queue 20
metric() { curl -s "$URL/metrics" | awk -v k="$1" '$1 == k { print $2 }'; }
ticks() { awk '{ print $14 + $15 }' "/proc/$PID/stat"; }

# Every insert into the audit table fails at once (as on a read-only file
# or a full disk; root ignores file modes, so a trigger does it).
sqlite3 "$DB" "CREATE TRIGGER no_audit BEFORE INSERT ON predictions
	BEGIN SELECT RAISE(ABORT, 'audit refused by the test'); END;" ||
	fail "expected to create the trigger"
t0=$(ticks)
for i in $(seq 30); do
	st=$(req POST /v1/predict '{"app":"heat","ntasks":4}')
	expect_status 200 "$st" "prediction $i while audit writes fail"
done
sleep 2
used=$(($(ticks) - t0))
hz=$(getconf CLK_TCK)
[ "$used" -lt $((hz / 2)) ] ||
	fail "expected the daemon to use under 0.5 s of CPU in 2 s of failing writes, got $used ticks of 1/$hz s"
# About 8 attempts in those seconds (10 ms doubling): failure lines at
# the 1st, 2nd, 4th, 8th, a drop line after some; a retry loop would
# write thousands.
lines=$(grep -c 'audit:' daemon.log)
[ "$lines" -ge 1 ] && [ "$lines" -le 15 ] ||
	fail "expected 1 to 15 audit log lines in 2 s of failures, got $lines: $(grep 'audit:' daemon.log | head -3)"
grep -q 'audit refused by the test' daemon.log || fail "expected the store's error in the log"
dropped=$(metric 'mpipredictd_errors_total{kind="audit_dropped"}')
[ "${dropped:-0}" -gt 0 ] || fail "expected records dropped at the queue bound of 20, got ${dropped:-none}"
failed=$(metric 'mpipredictd_errors_total{kind="audit_write"}')
[ "${failed:-0}" -ge 1 ] || fail "expected failed writes counted, got ${failed:-none}"

# The store works again: what the queue held is written, nothing twice.
sqlite3 "$DB" "DROP TRIGGER no_audit"
for _ in $(seq 160); do [ "$(rows predictions)" -gt 0 ] && break; sleep 0.05; done
sleep 0.3
n=$(rows predictions)
[ $((n + dropped)) = 30 ] ||
	fail "expected written + dropped = 30 answered, got $n written and $dropped dropped"
grep -q 'written again' daemon.log || fail "expected a line saying the audit recovered"

# A connection holds the write lock: predictions are still answered, and
# SIGTERM is not held up by SQLite's busy timeout (10 s per attempt).
hold_lock
for i in $(seq 10); do
	st=$(curl -s -m 2 -o body -w '%{http_code}' --data-binary '{"app":"heat","ntasks":4}' "$URL/v1/predict")
	expect_status 200 "$st" "prediction $i while the store is locked"
done
sleep 0.5
start=$(date +%s%N)
kill -TERM "$PID"
wait "$PID"
rc=$?
PID=
ms=$((($(date +%s%N) - start) / 1000000))
release_lock
[ "$rc" = 0 ] || fail "expected exit 0 after SIGTERM, got $rc"
[ "$ms" -lt 6000 ] || fail "expected the daemon to stop within 6 s while the store is locked, took $ms ms"
grep -q 'not written at shutdown\|did not answer' daemon.log ||
	fail "expected a line saying which records were not written at shutdown"
echo "answered through failing and locked audit writes; $n written, $dropped dropped; stopped in $ms ms"
