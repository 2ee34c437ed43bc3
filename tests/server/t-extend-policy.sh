#!/usr/bin/env bash
# The limit-extension policy's decisions (mpipredictd --extend on, issue
# 37), against a stand-in scontrol: a script of this test's that records
# its arguments and answers `show job` from a file per job (the real
# slurmctld path is tests/slurm/extend.sh, in make check-slurm). A job
# predicted to outlive its limit by less than the cap is extended once,
# rounded up to whole minutes, and told in its Comment; one in time is left
# alone (by the limit it posted, without asking Slurm, or by Slurm's own);
# one over the cap is told once and not extended; one over the cap only at
# the upper bound of its interval waits for a narrower one; Slurm's limit is never
# shortened (a stale posted limit); a reservation on the job's nodes before
# the new end stops it; a failed scontrol update is audited as failed.
# Every action is an extensions row, a /metrics count and a row on the
# staff page. Off by default: no scontrol call at all.
. "$MPP_SRC/tests/server/lib.sh"

# runtime = 2 + 0.5 * loop, loop = 10 * nprocs: at 4 ranks 22 s, interval
# x0.5 / x2: the upper bound of the time left is (1 - progress) * 44 s.
"$HELPERS/mkmodel" "$DB" jac 2 'loop:a.c:1:1.mean=0.5@2.302585092994046@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"
printf 's3cr3t\n' >token
auth=(-H 'Authorization: Bearer s3cr3t')
mkdir jobs
# The stand-in: every call is a line of scontrol.log.
cat >scontrol <<'SH'
#!/bin/sh
dir=$(dirname "$0")
echo "$*" >>"$dir/scontrol.log"
case "$1 $2 $3" in
"-o show job")
	[ -f "$dir/jobs/$4" ] || { echo "slurm_load_jobs error: Invalid job id specified" >&2; exit 1; }
	cat "$dir/jobs/$4" ;;
"-o show reservation")
	if [ -s "$dir/reservations" ]; then cat "$dir/reservations"; else echo "No reservations in the system"; fi ;;
"show hostnames "*)
	echo "$3" | tr ',' '\n' ;;
update*)
	case "$2 $3" in
	JobId=107\ TimeLimit=*) echo "slurm_update error: Access/permission denied" >&2; exit 1 ;;
	esac ;;
esac
exit 0
SH
chmod 755 scontrol
: >scontrol.log

# job ID LIMIT RUNTIME NODES: what `scontrol -o show job ID` says.
job() {
	local start
	start=$(date -d "@$(($(date +%s) - ${3#00:00:}))" +%Y-%m-%dT%H:%M:%S)
	echo "JobId=$1 JobName=x UserId=u(1) JobState=RUNNING Reason=None RunTime=$3 TimeLimit=$2 TimeMin=N/A StartTime=$start EndTime=Unknown NodeList=$4 BatchHost=$4 Comment=(null)" >"jobs/$1"
}

# post ID DONE [LIMIT]: a progress post of job ID, DONE of the 40
# iterations done, 25 s after the program started.
post() {
	local lim=${3:+,\"time_limit_s\":$3}
	st=$(req POST /v1/progress "{\"job_id\":\"$1\",\"app\":\"jac\",\"nprocs\":4,\"nnodes\":1,\"elapsed_s\":25$lim,\"features\":{\"loop:a.c:1:1.mean\":$2}}" "${auth[@]}")
	expect_status 200 "$st" "progress post of job $1"
}

# wait_log PATTERN: until scontrol.log has a line matching it (10 s).
wait_log() {
	for _ in $(seq 200); do
		grep -q -- "$1" scontrol.log && return 0
		sleep 0.05
	done
	fail "expected a scontrol call matching '$1' within 10 s; calls: $(cat scontrol.log)"
}

# 1. Off by default: a job that would be extended; no scontrol call.
job 101 00:01:00 00:00:30 n1
start_daemon --token-file token --scontrol "$PWD/scontrol"
post 101 10 60
sleep 1
[ ! -s scontrol.log ] || fail "expected no scontrol call with the policy off, got $(cat scontrol.log)"
curl -s "$URL/metrics" | grep -q '^mpipredictd_extensions_total{outcome="extended"} 0$' ||
	fail "expected extensions_total 0 with the policy off"
curl -s "$URL/" | grep -q 'The limit-extension policy is off' ||
	fail "expected the staff page to say the policy is off"
stop_daemon
rm -f jobs/*

# 2. On, with the default cap (20 % of the limit, at most 7200 s).
start_daemon --token-file token --scontrol "$PWD/scontrol" --extend on
# Within the cap: at 30 s of a 60 s limit a quarter done, 0.75 * 44 =
# 33 s left at most: the job ends by 63 s, 3 s past; the cap is 12 s.
# Extended to 2 minutes, once, and told.
job 101 00:01:00 00:00:30 n1
post 101 10 60
wait_log 'update JobId=101 Comment='
grep -qx -- 'update JobId=101 TimeLimit=2' scontrol.log ||
	fail "expected scontrol update JobId=101 TimeLimit=2, got $(cat scontrol.log)"
grep -q -- 'update JobId=101 Comment=mpipredict: limit extended by 1 min: predicted to need 0:01:0[0-9]$' scontrol.log ||
	fail "expected job 101's Comment to say it was extended, got $(grep 101 scontrol.log)"
grep -q 'extend: job 101: limit 00:01:00 -> 2 min' daemon.log ||
	fail "expected a log line for job 101's extension"
post 101 12 60
sleep 0.5
[ "$(grep -c 'JobId=101 TimeLimit' scontrol.log)" = 1 ] || fail "expected one extension of job 101, got $(grep -c 'JobId=101 TimeLimit' scontrol.log)"

# In time by its posted limit (25 + 33 s of 600): Slurm is not asked.
job 102 00:10:00 00:00:30 n1
post 102 10 600
# In time by Slurm's limit, the post saying none: asked, left alone.
job 103 00:10:00 00:00:30 n1
post 103 10
wait_log 'show job 103'
# Over the cap: nothing done yet, 22 s left (at most 44) at 55 s of 60:
# 17 s past (39 at most), more than 12 s. Told once, not extended.
job 104 00:01:00 00:00:55 n1
post 104 0 60
wait_log 'update JobId=104 Comment='
grep -q -- 'update JobId=104 Comment=mpipredict: predicted to need 0:00:1[0-9] beyond your limit, more than the site.s cap 0:00:12; not extended$' scontrol.log ||
	fail "expected job 104's Comment to say the need is over the cap, got $(grep 104 scontrol.log)"
post 104 1 60
wait_log 'show job 104.*'
sleep 0.5
[ "$(grep -c 'JobId=104' scontrol.log)" = 1 ] || fail "expected job 104 told once and never extended, got $(grep 104 scontrol.log)"
# Over the cap at the upper bound only: at 50 s of 60 a quarter done,
# 16.5 s left (at most 33): 6.5 s past (23 at most). The interval is too
# wide to say: nothing done, nothing told. Three quarters done, 5.5 s
# left (at most 11): past by 1 s at most, extended (the post names no
# limit: by the one it posted it would be in time, 25 + 11 s of 60).
job 109 00:01:00 00:00:50 n1
post 109 10 60
wait_log 'show job 109'
sleep 0.5
grep -q 'update JobId=109' scontrol.log && fail "expected job 109 (over the cap at its upper bound only) neither told nor extended, got $(grep 109 scontrol.log)"
post 109 30
wait_log 'update JobId=109 Comment='
grep -qx -- 'update JobId=109 TimeLimit=2' scontrol.log || fail "expected job 109 extended once its interval narrowed, got $(grep 109 scontrol.log)"
# Never shorter: the job posts a 60 s limit, Slurm says 30 minutes (an
# admin raised it): in time, left alone, not set to 2 minutes.
job 105 00:30:00 00:00:30 n1
post 105 10 60
wait_log 'show job 105'
# A reservation on n1 starting in 60 s, before the new end (2 minutes
# from the start, 90 s from now): job 106 on n1 is not extended, job 108
# on n2 is.
echo "ReservationName=maint StartTime=$(date -d @$(($(date +%s) + 60)) +%Y-%m-%dT%H:%M:%S) EndTime=2030-01-01T00:00:00 Duration=1-00:00:00 Nodes=n1 NodeCnt=1 CoreCnt=2 Features=(null) PartitionName=(null) Flags=MAINT State=INACTIVE" >reservations
job 106 00:01:00 00:00:30 n1
post 106 10 60
wait_log 'update JobId=106 Comment='
grep -q -- 'update JobId=106 Comment=mpipredict: predicted to need 0:00:0[0-9] beyond your limit; not extended: reservation maint starts on its nodes at ' scontrol.log ||
	fail "expected job 106's Comment to name the reservation, got $(grep 106 scontrol.log)"
job 108 00:01:00 00:00:30 n2
post 108 10 60
wait_log 'update JobId=108 Comment='
grep -qx -- 'update JobId=108 TimeLimit=2' scontrol.log || fail "expected job 108 (on n2) extended, got $(grep 108 scontrol.log)"
rm -f reservations
# scontrol update refused: audited as failed, no Comment.
job 107 00:01:00 00:00:30 n1
post 107 10 60
wait_log 'update JobId=107 TimeLimit=2'
for _ in $(seq 100); do
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM extensions WHERE job_id = '107'")" = 1 ] && break
	sleep 0.05
done

grep -q 'JobId=102\|job 102' scontrol.log && fail "expected job 102 (in time by its post) never asked about, got $(grep 102 scontrol.log)"
grep -q 'update JobId=103\|update JobId=105' scontrol.log &&
	fail "expected jobs 103 and 105 (in time by Slurm's limit) left alone, got $(grep 'update' scontrol.log)"
got=$(sqlite3 "$DB" "SELECT job_id || ':' || outcome || ':' || coalesce(CAST(new_limit_s AS INTEGER), '-') FROM extensions ORDER BY id" | tr '\n' ' ')
[ "$got" = "101:extended:120 104:over_cap:- 109:extended:120 106:reservation:- 108:extended:120 107:failed:- " ] ||
	fail "expected the audit rows 101 extended to 120 s, 104 over_cap, 109 extended, 106 reservation, 108 extended, 107 failed; got '$got'"
sqlite3 "$DB" "SELECT detail FROM extensions WHERE job_id = '107'" | grep -q 'Access/permission denied' ||
	fail "expected job 107's row to say why scontrol failed"
curl -s "$URL/metrics" >metrics
for o in extended:3 over_cap:1 reservation:1 failed:1; do
	grep -qx "mpipredictd_extensions_total{outcome=\"${o%:*}\"} ${o#*:}" metrics ||
		fail "expected mpipredictd_extensions_total{outcome=\"${o%:*}\"} ${o#*:}, got $(grep extensions_total metrics)"
done
curl -s "$URL/" >page.html
grep -q '<table id="extensions">' page.html && grep -q '<td>101</td><td>extended</td><td>0:01:00</td><td>0:02:00</td>' page.html ||
	fail "expected the staff page to list job 101's extension"
stop_daemon

# Settings are checked, also in the configuration file.
mpipredictd --db "$DB" --extend maybe 2>err && fail "expected --extend maybe refused"
grep -q "extend.*expected on or off" err || fail "expected the refusal to name --extend, got $(cat err)"
mpipredictd --db "$DB" --extend-cap-pct 0 2>err && fail "expected --extend-cap-pct 0 refused"
printf '[mpipredictd]\nextend = on\nextend-cap-s = x\n' >d.conf
mpipredictd --config d.conf --db "$DB" 2>err && fail "expected extend-cap-s = x refused"
grep -q 'd.conf:3: extend-cap-s' err || fail "expected the file's line named, got $(cat err)"
echo "the extension policy extends within the cap once, tells over the cap, never shortens, respects reservations, audits each action; off by default"
