#!/usr/bin/env bash
# mpipredictd --history auto chooses its history predictor from its own
# jobs table (history/choose.h): with too few jobs it keeps the champion
# (tsafrir/steps); after finished jobs arrive through POST /v1/jobs it
# chooses again, the same choice and the same scores as
# mpipredict-replay --pred auto on the same jobs as a trace, and shows the
# choice and its evidence in /metrics and on the staff page. Its answers
# are then ours'.
. "$MPP_SRC/tests/server/lib.sh"

awk -v n=600 -v users=12 -f "$MPP_SRC/tests/history/choose-trace.awk" >t.swf
mpipredict-replay --procs 64 --pred auto t.swf >replay || fail "replay: exit $?"
want=$(awk '/^choice /{print $2}' replay)
want_score=$(awk '$1 == "candidate" && $2 == "ours/steps" {sub("avebsld_new=", "", $4); print $4}' replay)
# The trace as jobcomp records (LIMIT in minutes: 39960 s).
awk '{ printf "JOBID=%d\tUID=%d\tUSERNAME=u%d\tJOBSTATE=COMPLETED\tSUBMIT=%d\tSTART=%d\tEND=%d\tLIMIT=666\tPROCS=%d\tNODECNT=1\tJOBNAME=app\n", $1, 1000 + $12, $12, $2, $2, $2 + $4, $5 }' t.swf >jobs.txt

printf 's3cr3t\n' >token
start_daemon --token-file token --history auto --history-every 100 --history-procs 64 --log-level info
req GET /metrics >/dev/null
grep -q '^mpipredictd_history_choice{pred="tsafrir",corrector="steps"} 1$' body ||
	fail "an empty table: expected the champion tsafrir/steps, got: $(grep history_choice body)"
grep -q '^mpipredictd_history_choices_total 1$' body || fail "expected one choice at start, got: $(grep choices_total body)"

st=$(req POST /v1/jobs @jobs.txt -H 'Authorization: Bearer s3cr3t' -H 'Content-Type: text/plain')
expect_status 200 "$st" "600 finished jobs"
ok=
for _ in $(seq 400); do
	req GET /metrics >/dev/null
	grep -q '^mpipredictd_history_choices_total 2$' body && { ok=1; break; }
	sleep 0.05
done
[ -n "$ok" ] || fail "expected a second choice after 600 new jobs, got: $(grep history_ body)"
grep -q "^mpipredictd_history_choice{pred=\"${want%/*}\",corrector=\"${want#*/}\"} 1$" body ||
	fail "expected the replay's choice $want, got: $(grep history_choice body)"
got=$(awk '/^mpipredictd_history_score\{candidate="ours\/steps",metric="avebsld"\}/{printf "%.2f", $2}' body)
[ "$got" = "$want_score" ] || fail "expected ours/steps' AVEbsld $want_score as the replay's, got '$got'"
[ "$(grep -c '^mpipredictd_history_score{' body)" = 32 ] || fail "expected 8 candidates x 4 metrics, got $(grep -c history_score body)"
grep -q '^mpipredictd_history_switches_total 1$' body || fail "expected one switch, got $(grep switches_total body)"
grep -q '^mpipredictd_history_guard_switches_total 0$' body || fail "expected the guard's counter, got $(grep guard body)"

# The staff page names the choice and lists the candidates.
st=$(req GET /)
expect_status 200 "$st" "the staff page"
grep -q "<b id=\"history-choice\">$want</b>" body || fail "expected the page to name $want, got: $(grep -o 'History predictor.\{0,300\}' body)"
[ "$(grep -o '<tr><td>[a-z]*/[a-z]*' body | wc -l)" = 8 ] || fail "expected 8 candidates in the page's table"

# Predictions now come from ours: u3's last two jobs ran 20,300 s (32
# processors) and 63 s (4): its next 4-processor job, 63 s as its last of
# that size (Tsafrir's mean of the last two would be 10,181 s).
st=$(req POST /v1/predict '{"app":"app","user":"u3","time_limit_s":39960,"ntasks":4}')
expect_status 200 "$st" "a prediction from history"
[ "$(jq -r .runtime_s body)" = 63 ] || fail "expected ours' 63 s for u3's 4-processor job, got $(cat body)"
stop_daemon
exit 0
