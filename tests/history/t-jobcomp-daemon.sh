#!/usr/bin/env bash
# mpipredict-jobcomp without --db sends the job to the daemon that owns the
# store (POST /v1/jobs): by --url and --token-file, or by the client
# configuration (MPIPREDICT_URL). While the daemon is down the record is
# kept in the spool and the command exits 0; the next run sends the spool
# first, then its own record, and empties the spool. A malformed record or
# a refusal (4xx) exits 2 with one log line and nothing spooled.
. "$MPP_SRC/tests/server/lib.sh"

printf 's3cr3t\n' >token
job() { # JOBID [VAR=VALUE...]: one job in the environment, as slurmctld runs it
	local id=$1
	shift
	env -i JOBID="$id" UID=1000 USERNAME=alice JOBSTATE=COMPLETED SUBMIT=1000 \
		START=1010 END=$((1110 + id)) PROCS=4 NODECNT=1 JOBNAME=lbm "$@"
}
jc=$MPP_BUILD/bin/mpipredict-jobcomp
spooled() { [ -s spool ] && grep -c '^JOBID=' spool || echo 0; }

start_daemon --token-file token
job 1 "$jc" --url "$URL" --token-file token --spool spool --log log ||
	fail "daemon up: expected exit 0, got $? ($(cat log))"
[ "$(sqlite3 "$DB" "SELECT job_id, runtime_s, user FROM jobs")" = "1|101.0|alice" ] ||
	fail "daemon up: expected job 1 in the daemon's store, got '$(sqlite3 "$DB" 'SELECT * FROM jobs')'"
[ "$(spooled)" = 0 ] || fail "daemon up: expected nothing spooled, got $(cat spool)"
[ ! -s log ] || fail "daemon up: expected no log line, got $(cat log)"
stop_daemon

# Down: kept, exit 0, one line in the spool per job. The daemon named by
# the client configuration's environment this time.
job 2 MPIPREDICT_URL="$URL" MPIPREDICT_TOKEN_FILE=token "$jc" --spool spool --log log ||
	fail "daemon down: expected exit 0, got $?"
job 3 "$jc" --url "$URL" --token-file token --spool spool --log log ||
	fail "daemon down, second job: expected exit 0, got $?"
[ "$(spooled)" = 2 ] || fail "daemon down: expected 2 records in the spool, got: $(cat spool 2>/dev/null)"
grep -q 'kept in spool for the next run' log || fail "daemon down: expected a log line saying the record was kept, got: $(cat log)"
# The spool is in the format --from reads.
mpipredict-jobcomp --db check.db --from spool >/dev/null || fail "expected --from to read the spool"
[ "$(sqlite3 check.db 'SELECT group_concat(job_id) FROM jobs')" = "2,3" ] ||
	fail "expected the spool to hold jobs 2 and 3, got $(sqlite3 check.db 'SELECT group_concat(job_id) FROM jobs')"

# Back (on another port): the spool first, then the new job; spool empty.
start_daemon --token-file token
: >log
job 4 "$jc" --url "$URL" --token-file token --spool spool --log log ||
	fail "daemon back: expected exit 0, got $? ($(cat log))"
got=$(sqlite3 "$DB" "SELECT group_concat(job_id, ' ') FROM (SELECT job_id FROM jobs ORDER BY job_id)")
[ "$got" = "1 2 3 4" ] || fail "daemon back: expected jobs 1 2 3 4 stored, got '$got'"
[ "$(spooled)" = 0 ] || fail "daemon back: expected the spool emptied, got: $(cat spool)"
[ ! -s log ] || fail "daemon back: expected no log line, got $(cat log)"

# Malformed: exit 2, one line naming the field, nothing sent or spooled.
: >log
job 5 END=oops "$jc" --url "$URL" --token-file token --spool spool --log log
rc=$?
[ $rc = 2 ] || fail "malformed: expected exit 2, got $rc"
grep -q 'job 5: END: not a time' log || fail "malformed: expected a line naming END, got: $(cat log)"
job 6 JOBNAME="$(printf 'l\tbm')" "$jc" --url "$URL" --token-file token --spool spool --log log
[ $? = 2 ] || fail "a tab in the job name: expected exit 2"
grep -q 'job 6: JOBNAME: contains a control byte (0x09 at byte 1)' log ||
	fail "a tab in the job name: expected a line naming JOBNAME, got: $(cat log)"
[ "$(spooled)" = 0 ] && [ "$(rows jobs)" = 4 ] || fail "malformed: expected nothing spooled or stored"

# Refused (a wrong token): the daemon's reason logged, exit 2, not spooled.
printf 'wrong\n' >badtoken
: >log
job 7 "$jc" --url "$URL" --token-file badtoken --spool spool --log log
[ $? = 2 ] || fail "wrong token: expected exit 2"
grep -q 'HTTP 403: authorization: wrong token' log || fail "wrong token: expected the daemon's reason logged, got: $(cat log)"
[ "$(spooled)" = 0 ] && [ "$(rows jobs)" = 4 ] || fail "wrong token: expected nothing spooled or stored"

# A daemon that accepts but never answers (stopped): the command gives up
# within the client timeout (2 s by default), keeps the record, exits 0;
# once the daemon runs again the next job sends it.
kill -STOP "$PID"
: >log
job 8 "$jc" --url "$URL" --token-file token --spool spool --log log
rc=$?
kill -CONT "$PID"
[ $rc = 0 ] && [ "$(spooled)" = 1 ] || fail "stopped daemon: expected exit 0 and 1 record spooled, got $rc, $(spooled)"
job 9 "$jc" --url "$URL" --token-file token --spool spool --log log || fail "after the stop: expected exit 0"
[ "$(spooled)" = 0 ] && [ "$(rows jobs)" = 6 ] || fail "after the stop: expected jobs 8 and 9 stored and the spool empty, got $(rows jobs) jobs, $(spooled) spooled"

# Usage: neither a store nor a daemon; --db with --url.
out=$(env -i "$jc" 2>&1); rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q 'give --db FILE, or --url URL' ||
	fail "no store and no daemon: expected exit 1 naming --db and --url, got $rc '$out'"
"$jc" --db x.db --url "$URL" 2>/dev/null
[ $? = 1 ] || fail "--db with --url: expected a usage error"
stop_daemon
