#!/usr/bin/env bash
# POST /v1/jobs stores finished jobs' records (mpipredict-jobcomp --from's
# format) with the token only; a body with one malformed record is a 400
# naming its line and field, and nothing of it is stored. The text rule of
# every route into the store (common/text.h) holds on /v1/jobs and on
# /v1/runs alike: invalid UTF-8, a lone surrogate, a NUL or control byte,
# a label over 256 bytes, a zero count are refused with the field named.
. "$MPP_SRC/tests/server/lib.sh"

printf 's3cr3t\n' >token
start_daemon --token-file token
auth=(-H 'Authorization: Bearer s3cr3t' -H 'Content-Type: text/plain')

# rec JOBID [EXTRA FIELDS...]: one record, tab-separated, to stdout.
rec() {
	local id=$1
	shift
	printf 'JOBID=%s\tUID=1000\tUSERNAME=alice\tJOBSTATE=COMPLETED\tSUBMIT=1000\tSTART=1010\tEND=1110\tLIMIT=10\tPROCS=4\tNODECNT=1\tPARTITION=debug\tJOBNAME=lbm' "$id"
	for f in "$@"; do printf '\t%s' "$f"; done
	printf '\n'
}

rec 11 >one
st=$(req POST /v1/jobs @one -H 'Content-Type: text/plain')
expect_status 401 "$st" "no token"
st=$(req POST /v1/jobs @one -H 'Authorization: Bearer wrong')
expect_status 403 "$st" "wrong token"
[ "$(rows jobs)" = 0 ] || fail "expected no jobs after refused posts, got $(rows jobs)"

{ rec 11; rec 12; } >two
st=$(req POST /v1/jobs @two "${auth[@]}")
expect_status 200 "$st" "two records with the token"
[ "$(jq .stored body)" = 2 ] || fail "expected {\"stored\":2}, got $(cat body)"
got=$(sqlite3 "$DB" "SELECT group_concat(job_id || ':' || runtime_s || ':' || user || ':' || ntasks, ' ') FROM (SELECT * FROM jobs ORDER BY job_id)")
[ "$got" = "11:100.0:alice:4 12:100.0:alice:4" ] || fail "expected jobs 11 and 12 stored, got '$got'"
# Sent again (a retry): the rows are updated, never doubled.
st=$(req POST /v1/jobs @two "${auth[@]}")
expect_status 200 "$st" "the same records again"
[ "$(rows jobs)" = 2 ] || fail "expected 2 jobs after a retry, got $(rows jobs)"

# refused WHAT WANT-IN-ERROR FILE: a 400 whose error has WANT, nothing stored.
refused() {
	local before st
	before=$(rows jobs)
	st=$(req POST /v1/jobs "@$3" "${auth[@]}")
	expect_status 400 "$st" "$1"
	jq -r .error body | grep -qF -- "$2" || fail "$1: expected the error to say '$2', got $(cat body)"
	[ "$(rows jobs)" = "$before" ] || fail "$1: expected nothing stored, got $(rows jobs) jobs (was $before)"
	[ "$(sqlite3 "$DB" "SELECT count(*) FROM jobs WHERE job_id = '13'")" = 0 ] ||
		fail "$1: the good record of the body was stored"
}

# A good record, then a malformed one: all or nothing.
{ rec 13; printf 'JOBID=14\tUID=1000\tJOBSTATE=COMPLETED\tSUBMIT=1\tSTART=oops\tEND=9\n'; } >bad
refused "a malformed START" 'request body:2: START: not a time in seconds' bad
{ rec 13; printf 'this is not a record\n'; } >bad
refused "a line that is not KEY=VALUE" "request body:2: field 'this is not a record' is not KEY=VALUE" bad
printf '\n# nothing\n' >bad
refused "no record" 'no job records' bad

# The text rule, each on line 2 after a good record.
long=$(printf 'u%.0s' $(seq 300))
{ rec 13; rec 15 | sed "s/USERNAME=alice/USERNAME=$long/"; } >bad
refused "a 300-byte user" 'request body:2: USERNAME: 300 bytes, longer than the limit of 256' bad
{ rec 13; rec 15 | sed 's/JOBNAME=lbm/JOBNAME=l\xffbm/'; } >bad
refused "invalid UTF-8 in the job name" 'request body:2: JOBNAME: not valid UTF-8 (byte 1)' bad
{ rec 13; rec 15 "$(printf 'ACCOUNT=a\xed\xa0\x80b')"; } >bad
refused "a lone surrogate in the account" 'request body:2: ACCOUNT: not valid UTF-8 (byte 1)' bad
{ rec 13; rec 15 | sed 's/JOBNAME=lbm/JOBNAME=l\x1bbm/'; } >bad
refused "a control byte in the job name" 'request body:2: JOBNAME: contains a control byte (0x1b at byte 1)' bad
{ rec 13; rec 15 | sed 's/PARTITION=debug/PARTITION=de\x00bug/'; } >bad
refused "a NUL in the partition" 'request body:2: PARTITION: contains a NUL byte' bad
{ rec 13; rec 15 | sed 's/PROCS=4/PROCS=0/'; } >bad
refused "PROCS=0 for a job that ran" 'request body:2: PROCS: 0 for a job that started' bad
{ rec 13; rec 15 | sed 's/NODECNT=1/NODECNT=0/'; } >bad
refused "NODECNT=0 for a job that ran" 'request body:2: NODECNT: 0 for a job that started' bad

# The same rule on POST /v1/runs (run_id, app, build_id, job_id, args).
hdr='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:a.c:1:1.mean'
run_refused() {
	local st
	printf '%s\n%s\n%b\n' "$hdr" 'r0,lbm,b1,2026-01-01T00:00:00Z,7,4,1,10,-n 1,5' "$2" >runs.csv
	st=$(req POST /v1/runs @runs.csv -H 'Authorization: Bearer s3cr3t' -H 'Content-Type: text/csv')
	expect_status 400 "$st" "runs: $1"
	jq -r .error body | grep -qF -- "$3" || fail "runs: $1: expected the error to say '$3', got $(cat body)"
	[ "$(rows runs)" = 0 ] || fail "runs: $1: expected nothing stored, got $(rows runs) runs"
}
run_refused "a NUL in run_id" 'r\000x,lbm,b1,2026-01-01T00:00:00Z,7,4,1,10,-n 1,5' 'run_id: contains a NUL byte'
run_refused "invalid UTF-8 in app" 'r1,lb\xc0\xafm,b1,2026-01-01T00:00:00Z,7,4,1,10,-n 1,5' 'row 2: app: not valid UTF-8 (byte 2)'
run_refused "a lone surrogate in args" 'r1,lbm,b1,2026-01-01T00:00:00Z,7,4,1,10,-n \xed\xa0\x80,5' 'row 2: args: not valid UTF-8 (byte 3)'
run_refused "a control byte in job_id" 'r1,lbm,b1,2026-01-01T00:00:00Z,7\x01,4,1,10,-n 1,5' 'row 2: job_id: contains a control byte (0x01 at byte 1)'
run_refused "a control byte in build_id" 'r1,lbm,b\x7f,2026-01-01T00:00:00Z,7,4,1,10,-n 1,5' 'row 2: build_id: contains a control byte (0x7f at byte 1)'
run_refused "a 300-byte run_id" "$long,lbm,b1,2026-01-01T00:00:00Z,7,4,1,10,-n 1,5" 'row 2: run_id: 300 bytes, longer than the limit of 256'
# And a good body still goes in.
printf '%s\n%s\n' "$hdr" 'r0,lbm,b1,2026-01-01T00:00:00Z,7,4,1,10,-n 1,5' >runs.csv
st=$(req POST /v1/runs @runs.csv -H 'Authorization: Bearer s3cr3t' -H 'Content-Type: text/csv')
expect_status 200 "$st" "a good run after the refused ones"

healthy "after every refusal"
stop_daemon
