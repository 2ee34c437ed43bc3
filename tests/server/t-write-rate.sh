#!/usr/bin/env bash
# --write-rate N: at most N writes a minute with the token (POST /v1/runs
# and /v1/jobs together), in bursts of N; the next is a 429 that names the
# wait and the option, counted in /metrics, and stores nothing. What gets
# a 429 is not lost: mpipredict-jobcomp spools the record (as for a daemon
# that is down) and mpipredict-collect --forward keeps the row.
. "$MPP_SRC/tests/server/lib.sh"

gen=$MPP_BUILD/tests/regress/gen-runs
for i in 1 2 3; do
	"$gen" --runs 1 --features 10 --seed "$i" --first "$i" >"r$i.csv" || fail "expected gen-runs to work"
done
printf 'tok3n\n' >token
chmod 600 token
start_daemon --token-file token --write-rate 3
post() {
	req POST /v1/runs "$(cat "$1")" -H 'Authorization: Bearer tok3n' -H 'Content-Type: text/csv'
}
job() { # JOBID: one jobcomp record
	printf 'JOBID=%s\tUID=0\tUSERNAME=root\tJOBSTATE=COMPLETED\tSUBMIT=100\tSTART=110\tEND=170\tLIMIT=10\tPROCS=2\tNODECNT=1\tPARTITION=debug\tACCOUNT=\tJOBNAME=x\n' "$1"
}

expect_status 200 "$(post r1.csv)" "the first write"
expect_status 200 "$(post r2.csv)" "the second write"
st=$(req POST /v1/jobs "$(job 7)" -H 'Authorization: Bearer tok3n')
expect_status 200 "$st" "the third write (a job)"
expect_status 429 "$(post r3.csv)" "the fourth write in a minute"
grep -q -- "--write-rate" body && grep -q "try again in [0-9]* s" body ||
	fail "expected the 429 to name the wait and the option, got $(cat body)"
[ "$(rows runs)" = 2 ] || fail "expected the refused body not stored, got $(rows runs) runs"
curl -s "$URL/metrics" | grep -q 'mpipredictd_errors_total{kind="write_rate"} 1' ||
	fail "expected one write_rate error in /metrics"
# A wrong token is still a 403, not a 429: the bucket is the token's.
st=$(req POST /v1/runs "$(cat r3.csv)" -H 'Authorization: Bearer wrong')
expect_status 403 "$st" "a wrong token while the bucket is empty"

# The clients keep what gets a 429.
job 8 >rec
mpipredict-jobcomp --url "$URL" --token-file token --spool spool --log jc.log --from rec
[ $? = 0 ] || fail "expected mpipredict-jobcomp to exit 0 on a 429, log: $(cat jc.log)"
grep -q 'JOBID=8' spool || fail "expected the record spooled after a 429, log: $(cat jc.log)"
mkdir -p out/outbox
cp r3.csv out/outbox/r3.csv
MPIPREDICT_URL=$URL MPIPREDICT_TOKEN_FILE=$PWD/token MPIPREDICT_CLIENT_CONF=$PWD/none \
	mpipredict-collect --forward out/outbox >fw.out 2>&1
[ $? = 2 ] && [ -f out/outbox/r3.csv ] && [ ! -d out/outbox/rejected ] ||
	fail "expected the row kept in the outbox (exit 2) after a 429, got: $(cat fw.out); $(ls -R out)"
stop_daemon

# --write-rate 0: no limit.
start_daemon --token-file token --write-rate 0
expect_status 200 "$(post r3.csv)" "a write with no limit"
stop_daemon
exit 0
