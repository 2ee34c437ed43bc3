#!/usr/bin/env bash
# mpipredict-jobcomp (with --db, as with the daemon's POST /v1/jobs, which
# t-jobs-ingest checks) refuses the text the store must not hold
# (common/text.h): a user name over 256 bytes, invalid UTF-8, a lone
# surrogate, control or NUL bytes in a label, PROCS or NODECNT of 0 for a
# job that ran; each record skipped with one line naming the line and
# field, the good ones stored. A job that never started may report 0.
set -u
fail() { echo "$*"; exit 1; }
rec() { # JOBID [SED-EXPR]
	printf 'JOBID=%s\tUID=1000\tUSERNAME=alice\tJOBSTATE=COMPLETED\tSUBMIT=1000\tSTART=1010\tEND=1110\tPROCS=4\tNODECNT=1\tPARTITION=debug\tACCOUNT=phys\tJOBNAME=lbm\n' "$1" |
		sed "${2:-}"
}
long=$(printf 'u%.0s' $(seq 300))
{
	rec 1
	rec 2 "s/USERNAME=alice/USERNAME=$long/"
	rec 3 's/JOBNAME=lbm/JOBNAME=l\xffbm/'
	rec 4 's/ACCOUNT=phys/ACCOUNT=p\xed\xa0\x80s/'
	rec 5 's/PARTITION=debug/PARTITION=de\x07bug/'
	rec 6 's/JOBNAME=lbm/JOBNAME=l\x00bm/'
	rec 7 's/PROCS=4/PROCS=0/'
	rec 8 's/NODECNT=1/NODECNT=0/'
	rec 9 's/START=1010/START=0/; s/PROCS=4/PROCS=0/; s/NODECNT=1/NODECNT=0/; s/COMPLETED/CANCELLED/'
} >spool
out=$(mpipredict-jobcomp --db m.db --from spool --log log); rc=$?
[ $rc = 0 ] || fail "expected exit 0 (bad records skipped), got $rc"
[ "$out" = "stored 2 jobs, skipped 7 records" ] || fail "expected 'stored 2 jobs, skipped 7 records', got '$out'"
for want in 'spool:2: USERNAME: 300 bytes, longer than the limit of 256' \
	'spool:3: JOBNAME: not valid UTF-8 (byte 1)' \
	'spool:4: ACCOUNT: not valid UTF-8 (byte 1)' \
	'spool:5: PARTITION: contains a control byte (0x07 at byte 2)' \
	'spool:6: JOBNAME: contains a NUL byte' \
	'spool:7: PROCS: 0 for a job that started' \
	'spool:8: NODECNT: 0 for a job that started'; do
	grep -qF -- "$want" log || fail "expected the log to say '$want', got: $(cat log)"
done
[ "$(wc -l <log)" = 7 ] || fail "expected one log line per refused record, got: $(cat log)"
got=$(sqlite3 m.db "SELECT group_concat(job_id || ':' || ifnull(ntasks, 'null') || ':' || ifnull(nodes, 'null'), ' ') FROM (SELECT * FROM jobs ORDER BY job_id)")
[ "$got" = "1:4:1 9:null:null" ] || fail "expected jobs 1 (4 CPUs, 1 node) and 9 (never started, counts unknown), got '$got'"
# From the environment, as Slurm runs it: exit 2, one line.
err=$(env -i JOBID=10 UID=1000 USERNAME=alice JOBSTATE=COMPLETED SUBMIT=1 START=2 END=3 JOBNAME="$(printf 'a\rb')" \
	"$MPP_BUILD/bin/mpipredict-jobcomp" --db m.db 2>&1); rc=$?
[ $rc = 2 ] && printf '%s' "$err" | grep -q 'job 10: JOBNAME: contains a control byte (0x0d at byte 1)' ||
	fail "a CR in the job name from the environment: expected exit 2 naming JOBNAME, got $rc '$err'"
exit 0
