#!/usr/bin/env bash
# mpipredict-jobcomp stores finished jobs from a spool and from the
# environment (as Slurm's jobcomp/script runs it): malformed and
# half-written records get one log line each and are skipped, a job seen
# again is updated and never duplicated, each user keeps only the last
# --keep jobs, and a prediction audited without a job id (the Slurm plugin
# cannot know it at submission) is joined to the job by user and submit
# time. mpipredict-accuracy then reports per app and per user.
set -u
fail=0
t=$'\t'
rec() { # JOBID USER UID SUBMIT START END [STATE] [NAME]
	printf 'JOBID=%s\tUID=%s\tUSERNAME=%s\tJOBSTATE=%s\tSUBMIT=%s\tSTART=%s\tEND=%s\tLIMIT=01:00:00\tPROCS=4\tNODECNT=1\tPARTITION=debug\tJOBNAME=%s\n' \
		"$1" "$3" "$2" "${7:-COMPLETED}" "$4" "$5" "$6" "${8:-job$1}"
}
mpipredict-jobcomp --db m.db --from /dev/null > /dev/null || { echo "empty spool: expected exit 0"; exit 1; }
# Audit records the daemon would have written: one with a job id, two
# without (the plugin's), one of another user at the same time.
sqlite3 m.db "INSERT INTO predictions(at, job_id, app, basis, user, runtime_s, lower_s, upper_s) VALUES
 (1000.5, '11', 'lbm', 'parameters', 'uid:1000', 100, 80, 120),
 (2001, NULL, 'lbm', 'parameters', 'uid:1000', 300, 250, 350),
 (3000.2, NULL, 'cg', 'history', 'uid:1000', 50, 10, 90),
 (3000.1, NULL, 'cg', 'history', 'uid:2000', 999, 1, 9999)"
{
	rec 11 alice 1000 1000 1010 1110
	printf 'JOBID=12\tUID=1000\tJOBSTATE=COMPLETED\tSUBMIT=2000\tSTART=oops\tEND=2400\n'
	rec 12 alice 1000 2000 2010 2310
	printf 'JOBID=13\tUID=1000\tJOBSTATE=COMPLETED\tSUBMIT=3000\tSTART=3001\tEND=2999\n'
	printf 'this is not a record\n'
	rec 13 alice 1000 3000 3001 3061 COMPLETED lbm-small
	rec 12 alice 1000 2000 2010 2320
	printf 'JOBID=14\tUID=1000\tJOBSTATE=COMPL'
} > spool
out=$(mpipredict-jobcomp --db m.db --from spool --log log 2>&1); rc=$?
[ $rc -eq 0 ] || { echo "spool: expected exit 0, got $rc: $out"; fail=1; }
[ "$out" = "stored 4 jobs, skipped 4 records" ] || { echo "expected 'stored 4 jobs, skipped 4 records', got '$out'"; fail=1; }
nlog=$(wc -l < log)
[ "$nlog" -eq 4 ] || { echo "expected 4 log lines (one per bad record), got $nlog: $(cat log)"; fail=1; }
grep -q 'spool:2: START: not a time' log || { echo "expected a line naming spool:2 and START, got: $(cat log)"; fail=1; }
grep -q 'spool:4: END: 2999 before START 3001' log || { echo "expected a line naming spool:4 and END, got: $(cat log)"; fail=1; }
grep -q 'spool:8: half-written' log || { echo "expected spool:8 half-written, got: $(cat log)"; fail=1; }
got=$(sqlite3 m.db "SELECT count(*), count(DISTINCT job_id) FROM jobs")
[ "$got" = "3|3" ] || { echo "expected 3 jobs stored once each, got $got"; fail=1; }
got=$(sqlite3 m.db "SELECT runtime_s, time_limit_s, ntasks, nodes, partition FROM jobs WHERE job_id = '12'")
[ "$got" = "310.0|3600.0|4|1|debug" ] || { echo "job 12: expected the update (runtime 310, limit 3600, 4 tasks, 1 node, debug), got $got"; fail=1; }
# Joined: 11 by its id; 12 and 13 claimed their audit records (alice's,
# not uid 2000's made 0.1 s closer).
got=$(sqlite3 m.db "SELECT group_concat(job_id || ':' || app, ' ') FROM (SELECT job_id, app FROM jobs ORDER BY job_id)")
[ "$got" = "11:lbm 12:lbm 13:cg" ] || { echo "expected the apps of the predictions (11:lbm 12:lbm 13:cg), got $got"; fail=1; }
got=$(sqlite3 m.db "SELECT job_id FROM predictions WHERE user = 'uid:2000'")
[ -z "$got" ] || { echo "uid 2000's audit record was claimed by job $got"; fail=1; }
# The same spool again: nothing duplicated.
mpipredict-jobcomp --db m.db --from spool --log log > /dev/null
got=$(sqlite3 m.db "SELECT count(*) FROM jobs"),$(sqlite3 m.db "SELECT count(*) FROM predictions WHERE job_id IS NOT NULL")
[ "$got" = "3,3" ] || { echo "after a second ingest: expected 3 jobs and 3 joined predictions, got $got"; fail=1; }
# From the environment, as slurmctld runs it (a LIMIT as Slurm writes it).
env -i JOBID=15 UID=1000 USERNAME=alice JOBSTATE=TIMEOUT SUBMIT=4000 START=4001 END=7601 \
	LIMIT=1-00:00:00 PROCS=8 NODECNT=2 "$MPP_BUILD/bin/mpipredict-jobcomp" --db m.db ||
	{ echo "environment record: expected exit 0"; fail=1; }
got=$(sqlite3 m.db "SELECT runtime_s, time_limit_s, state FROM jobs WHERE job_id = '15'")
[ "$got" = "3600.0|86400.0|TIMEOUT" ] || { echo "job 15: expected 3600|86400|TIMEOUT, got $got"; fail=1; }
err=$(env -i JOBID=16 UID=1000 JOBSTATE=COMPLETED SUBMIT=1 START=2 "$MPP_BUILD/bin/mpipredict-jobcomp" --db m.db 2>&1); rc=$?
[ $rc -eq 2 ] && [ "$(printf '%s\n' "$err" | wc -l)" -eq 1 ] && printf '%s' "$err" | grep -q 'job 16: END: missing' ||
	{ echo "environment without END: expected exit 2 and one line naming END, got $rc '$err'"; fail=1; }
# Accuracy: per app and per user, from the joined records.
out=$(mpipredict-accuracy --db m.db --by app)
exp=$(printf 'app\tjobs\tmae_s\tmape_pct\tunder\tinside\ncg\t1\t10.0\t16.7\t1.000\t1.000\nlbm\t2\t5.0\t1.6\t0.500\t1.000')
[ "$out" = "$exp" ] || { echo "accuracy by app: expected"; echo "$exp"; echo "got"; echo "$out"; fail=1; }
out=$(mpipredict-accuracy --db m.db --by user | tail -n +2 | cut -f1,2)
[ "$out" = "alice${t}3" ] || { echo "accuracy by user: expected alice with 3 jobs, got '$out'"; fail=1; }
# Pruning: --keep 2 keeps alice's last two jobs by end time.
rec 17 alice 1000 8000 8001 8100 | mpipredict-jobcomp --db m.db --from - --keep 2 > /dev/null
got=$(sqlite3 m.db "SELECT group_concat(job_id, ' ') FROM (SELECT job_id FROM jobs WHERE user = 'alice' ORDER BY end_at)")
[ "$got" = "15 17" ] || { echo "--keep 2: expected alice's jobs 15 17, got $got"; fail=1; }
exit $fail
