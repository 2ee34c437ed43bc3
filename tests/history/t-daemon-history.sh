#!/usr/bin/env bash
# mpipredictd answers a job whose app has no model, or that names no app,
# from the user's finished jobs (basis "history"): Tsafrir's mean of the
# last two, capped at the job's limit; it learns jobs that finish while it
# runs, remembers them across a restart, audits what it answered, and
# answers as before (404, 400) for a user without history or with
# --history off.
. "$MPP_SRC/tests/server/lib.sh"

rec() { # JOBID END RUNTIME
	printf 'JOBID=%s\tUID=1000\tUSERNAME=alice\tJOBSTATE=COMPLETED\tSUBMIT=%s\tSTART=%s\tEND=%s\tLIMIT=60\tPROCS=4\tNODECNT=1\tJOBNAME=lbm\n' \
		"$1" $(($2 - $3 - 5)) $(($2 - $3)) "$2"
}
{ rec 1 1000 100; rec 2 2000 200; } | mpipredict-jobcomp --db "$DB" --from - >/dev/null ||
	fail "expected the jobs to be stored"
jq_body() { jq -r "$1" body; }
lbm='{"app":"lbm","uid":1000,"time_limit_s":3600,"ntasks":4}'

start_daemon --log-level info
st=$(req POST /v1/predict "$lbm")
expect_status 200 "$st" "an app without a model, a user with two finished jobs"
[ "$(jq_body .basis)" = history ] || fail "expected basis history, got $(cat body)"
[ "$(jq_body .runtime_s)" = 150 ] || fail "expected (100 + 200) / 2 = 150 s, got $(jq_body .runtime_s)"
[ "$(jq_body '.lower_s <= .runtime_s and .runtime_s <= .upper_s and .upper_s <= 3600')" = true ] ||
	fail "expected lower <= runtime <= upper <= 3600, got $(cat body)"
[ "$(jq_body .app)" = lbm ] || fail "expected app lbm in the answer, got $(cat body)"
st=$(req POST /v1/predict '{"app":"lbm","user":"alice","time_limit_s":120,"ntasks":4}')
expect_status 200 "$st" "by user name"
[ "$(jq_body .runtime_s)" = 120 ] && [ "$(jq_body '.upper_s <= 120')" = true ] ||
	fail "expected the prediction capped at the limit 120 s, got $(cat body)"
st=$(req POST /v1/predict '{"uid":1000,"time_limit_s":3600}')
expect_status 200 "$st" "no app at all"
[ "$(jq_body .basis):$(jq_body .runtime_s)" = history:150 ] || fail "no app: expected history 150, got $(cat body)"
st=$(req POST /v1/predict '{"app":"lbm","uid":5,"time_limit_s":3600,"ntasks":4}')
expect_status 404 "$st" "a user without history, an app without a model"
st=$(req POST /v1/predict '{"uid":5}')
expect_status 400 "$st" "a user without history and no app"
# A job that finishes while the daemon runs is learnt.
rec 3 3000 600 | mpipredict-jobcomp --db "$DB" --from - >/dev/null
got= tries=0
for _ in $(seq 100); do
	req POST /v1/predict "$lbm" >/dev/null
	tries=$((tries + 1))
	got=$(jq_body .runtime_s)
	[ "$got" = 400 ] && break
	sleep 0.05
done
[ "$got" = 400 ] || fail "after job 3 (600 s) finished: expected (200 + 600) / 2 = 400 s, got $got"
req GET /metrics >/dev/null
grep -q 'mpipredictd_predictions_total{basis="history"} [1-9]' body ||
	fail "expected history predictions counted in /metrics, got $(grep basis body)"
stop_daemon
got=$(sqlite3 "$DB" "SELECT count(*), min(user), min(app) FROM predictions WHERE basis = 'history'")
# Three answers above, then one per poll until job 3 was learnt.
[ "$got" = "$((3 + tries))|alice|" ] ||
	fail "expected $((3 + tries)) history predictions audited (alice's; one without an app), got $got"
# A restart keeps the history; --history off answers as before.
start_daemon
st=$(req POST /v1/predict "$lbm")
[ "$st:$(jq_body .runtime_s)" = 200:400 ] || fail "after a restart: expected 400 s, got $st $(cat body)"
stop_daemon
start_daemon --history tsafrir
st=$(req POST /v1/predict "$lbm")
[ "$st:$(jq_body .runtime_s)" = 200:400 ] || fail "--history tsafrir: expected 400 s, got $st $(cat body)"
stop_daemon
# The learned method answers as ours until it has 200 finished jobs to fit.
start_daemon --history learned
st=$(req POST /v1/predict "$lbm")
[ "$st:$(jq_body .runtime_s):$(jq_body .basis)" = 200:400:history ] ||
	fail "--history learned, 3 jobs: expected ours' 400 s, got $st $(cat body)"
stop_daemon
start_daemon --history off
st=$(req POST /v1/predict "$lbm")
expect_status 404 "$st" "--history off"
stop_daemon
# A job reported again while the daemon runs (another run time: Slurm's
# jobcomp ran twice, or a site re-ingests a spool) is relearnt without a
# restart: job 3 now ran 1000 s, (200 + 1000) / 2 = 600 s.
start_daemon --log-level info
st=$(req POST /v1/predict "$lbm")
[ "$st:$(jq_body .runtime_s)" = 200:400 ] || fail "before the update: expected 400 s, got $st $(cat body)"
rec 3 3400 1000 | mpipredict-jobcomp --db "$DB" --from - >/dev/null
got=
for _ in $(seq 100); do
	req POST /v1/predict "$lbm" >/dev/null
	got=$(jq_body .runtime_s)
	[ "$got" = 600 ] && break
	sleep 0.05
done
[ "$got" = 600 ] || fail "after job 3 was reported again (1000 s): expected (200 + 1000) / 2 = 600 s without a restart, got $got"
grep -q 'history: a finished job was reported again: rebuilt' daemon.log ||
	fail "expected the rebuild after an update in the log, got $(grep history: daemon.log)"
[ "$(sqlite3 "$DB" "SELECT count(*), max(runtime_s) FROM jobs WHERE job_id = '3'")" = "1|1000.0" ] ||
	fail "expected job 3 stored once, with 1000 s"
# And a new job after the update is still learnt (the mark moved on).
rec 9 5000 1400 | mpipredict-jobcomp --db "$DB" --from - >/dev/null
for _ in $(seq 100); do
	req POST /v1/predict "$lbm" >/dev/null
	got=$(jq_body .runtime_s)
	[ "$got" = 1200 ] && break
	sleep 0.05
done
[ "$got" = 1200 ] || fail "after job 9 (1400 s): expected (1000 + 1400) / 2 = 1200 s, got $got"
stop_daemon
# Bounded: ours keeps a key per user, app, request and size, under both
# identities (8 keys for alice's jobs so far); with --history-max-keys 12,
# her jobs of four new sizes pass it and the daemon rebuilds from the table
# (pruned to her last 3 by --keep: 12 keys), still answering from her last
# two jobs of the same request.
for n in 4 5 6 7 8; do
	printf 'JOBID=%s\tUID=1000\tUSERNAME=alice\tJOBSTATE=COMPLETED\tSUBMIT=1\tSTART=%s\tEND=%s\tLIMIT=60\tPROCS=%s\tNODECNT=1\tJOBNAME=lbm\n' \
		"$n" $((n * 1000)) $((n * 1000 + 100 * n)) "$n"
done > more
start_daemon --history-max-keys 12 --log-level info
mpipredict-jobcomp --db "$DB" --from more --keep 3 >/dev/null
got=
for _ in $(seq 100); do
	grep -q 'history: .* keys, over 12: rebuilt' daemon.log && break
	sleep 0.05
done
grep -q 'history: .* keys, over 12: rebuilt' daemon.log || fail "expected a rebuild past 12 keys in the log"
st=$(req POST /v1/predict '{"app":"lbm","uid":1000,"time_limit_s":3600,"ntasks":4}')
[ "$st:$(jq_body .runtime_s)" = 200:750 ] ||
	fail "after the rebuild: expected (700 + 800) / 2 = 750 s, got $st $(cat body)"
stop_daemon
mpipredictd --db "$DB" --history maybe 2>err; rc=$?
[ $rc -eq 1 ] && grep -q -- '--history' err || fail "--history maybe: expected exit 1 naming --history, got $rc $(cat err)"
exit 0
