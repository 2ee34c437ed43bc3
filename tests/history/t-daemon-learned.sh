#!/usr/bin/env bash
# mpipredictd --history learned fits its regression in the daemon, from
# the jobs table, and answers from the fit: 300 finished jobs of five
# users, each run 30 % of its limit (+-20 % of noise the features cannot
# foretell), on limits of 10 to 210 minutes. Asked for a limit of 110
# minutes nobody ever used (inside that range: a linear model is not
# asked to extrapolate), the learned answer is near 0.3 x 6600 s; ours
# answers otherwise, from the user's recent runs. The fit survives a
# restart (it is rebuilt from the table) and jobs that arrive while the
# daemon runs are learnt. The online method (--history online) answers
# from its own learner, the same after a restart.
. "$MPP_SRC/tests/server/lib.sh"

# The jobs ended over the last few days, the last ones a few minutes ago
# (the daemon predicts at the current time, and the time since the user's
# last job is one of the features: days of silence the fit never saw would
# be an extrapolation).
base=$(($(date +%s) - 300600))

for i in $(seq 0 299); do
	limit=$((10 * (1 + i % 7) * (1 + (i / 7) % 3)))
	noise=$(((i * 7919) % 41 - 20))
	run=$((limit * 60 * 3 * (100 + noise) / 1000))
	end=$((base + 1000 * i))
	printf 'JOBID=%s\tUID=%s\tUSERNAME=u%s\tJOBSTATE=COMPLETED\tSUBMIT=%s\tSTART=%s\tEND=%s\tLIMIT=%s\tPROCS=%s\tNODECNT=1\tJOBNAME=app%s\n' \
		$((i + 1)) $((1000 + i % 5)) $((i % 5)) $((end - run - 10)) $((end - run)) "$end" \
		"$limit" $((1 + i % 4)) $((i % 3))
done > jobs
mpipredict-jobcomp --db "$DB" --from jobs --keep 100 >/dev/null ||
	fail "expected the 300 jobs to be stored"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM jobs')" = 300 ] || fail "expected 300 jobs stored"
jq_body() { jq -r "$1" body; }
ask='{"uid":1001,"time_limit_s":6600,"ntasks":2}'

start_daemon --history learned
st=$(req POST /v1/predict "$ask")
expect_status 200 "$st" "learned, 300 finished jobs"
learned=$(jq_body .runtime_s)
[ "$(jq_body .basis)" = history ] || fail "expected basis history, got $(cat body)"
awk -v p="$learned" 'BEGIN { exit !(p > 1980 * 0.8 && p < 1980 * 1.2) }' ||
	fail "learned, a limit of 6600 s never seen: expected 0.3 x 6600 = 1980 s +- 20 %, got $learned"
stop_daemon

start_daemon --history ours
st=$(req POST /v1/predict "$ask")
ours=$(jq_body .runtime_s)
[ -n "$ours" ] && [ "$ours" != "$learned" ] ||
	fail "ours, the same job: expected another answer than learned's $learned s, got $ours"
stop_daemon

# The online learner (the SC'15 study's, nag.c) learns the same 300 jobs,
# one gradient step each, when the daemon starts: its answer is its own
# (not ours', which it gives until it has learnt from 200 jobs), inside
# [1 s, the limit], and the same after a restart. The guard is off here
# (--history-guard off): these check the learner's own answers.
start_daemon --history online --history-guard off
st=$(req POST /v1/predict "$ask")
expect_status 200 "$st" "online, 300 finished jobs"
online=$(jq_body .runtime_s)
[ "$(jq_body .basis)" = history ] || fail "online: expected basis history, got $(cat body)"
awk -v p="$online" -v o="$ours" 'BEGIN { exit !(p >= 1 && p <= 6600 && p != o) }' ||
	fail "online: expected an answer of its own in [1, 6600] s (ours: $ours s), got $online"
stop_daemon
start_daemon --history online --history-guard off
st=$(req POST /v1/predict "$ask")
again=$(jq_body .runtime_s)
[ "$st" = 200 ] && awk -v p="$again" -v l="$online" 'BEGIN { d = p - l; exit !(d * d < (0.02 * l) ^ 2) }' ||
	fail "online after a restart: expected $online s within 2 %, got $st $(cat body)"
stop_daemon
# --history-loss: on these 300 jobs the study's loss (over-predictions
# squared x100), with its step size for a trace of long jobs, has not
# settled and answers high; abs on both sides (a median) answers lower
# and nearer 0.3 x 6600 = 1980 s. A bad loss, or the option without
# --history online, is refused at start with its reason.
start_daemon --history online --history-guard off --history-loss abs:1/abs:1/0
st=$(req POST /v1/predict "$ask")
med=$(jq_body .runtime_s)
[ "$st" = 200 ] && awk -v p="$med" -v l="$online" 'BEGIN { d = p - 1980; e = l - 1980; exit !(p < l && d * d < e * e) }' ||
	fail "online, --history-loss abs:1/abs:1/0: expected below the study's loss' $online s and nearer 1980 s, got $st $(cat body)"
stop_daemon
# The guard (on by default): the study's loss, not settled on these jobs,
# errs more than Tsafrir's mean of the last two over the last 64 jobs, so
# the daemon answers with Tsafrir's rule, and says so in /metrics.
start_daemon --history tsafrir
req POST /v1/predict "$ask" >/dev/null
tsafrir=$(jq_body .runtime_s)
stop_daemon
start_daemon --history online
st=$(req POST /v1/predict "$ask")
[ "$st:$(jq_body .runtime_s)" = "200:$tsafrir" ] ||
	fail "online, guarded: expected Tsafrir's $tsafrir s (the learner's own: $online s), got $st $(cat body)"
req GET /metrics >/dev/null
grep -q '^mpipredictd_history_guarded 1$' body && grep -q '^mpipredictd_history_guard_switches_total [1-9]' body ||
	fail "online, guarded: expected mpipredictd_history_guarded 1 and a switch counted, got $(grep guard body)"
stop_daemon
mpipredictd --db "$DB" --history online --history-loss square:100/cube:1/0 > out 2>&1
rc=$?
[ $rc = 1 ] && grep -q "history-loss: 'square:100/cube:1/0'" out ||
	fail "a bad --history-loss: expected exit 1 naming it, got $rc: $(cat out)"
mpipredictd --db "$DB" --history ours --history-loss abs:1/abs:1/0 > out 2>&1
rc=$?
[ $rc = 1 ] && grep -q "only with --history online" out ||
	fail "--history-loss with --history ours: expected exit 1, got $rc: $(cat out)"

# A restart rebuilds the same fit from the table: the same answer (within
# 2 %: the time of day and the time since the user's last job moved on).
start_daemon --history learned
st=$(req POST /v1/predict "$ask")
again=$(jq_body .runtime_s)
[ "$st" = 200 ] && awk -v p="$again" -v l="$learned" 'BEGIN { d = p - l; exit !(d * d < (0.02 * l) ^ 2) }' ||
	fail "after a restart: expected $learned s within 2 %, got $st $(cat body)"
# 100 more jobs of one user that ran their whole limit move the next fit
# (the daemon refits every 100 finished jobs): the answer goes up.
for i in $(seq 300 399); do
	end=$((base + 299000 + 5 * (i - 300)))
	printf 'JOBID=%s\tUID=1001\tUSERNAME=u1\tJOBSTATE=COMPLETED\tSUBMIT=%s\tSTART=%s\tEND=%s\tLIMIT=100\tPROCS=2\tNODECNT=1\tJOBNAME=app1\n' \
		$((i + 1)) $((end - 6010)) $((end - 6000)) "$end"
done > more
mpipredict-jobcomp --db "$DB" --from more --keep 1000 >/dev/null
got=$learned
for _ in $(seq 100); do
	req POST /v1/predict "$ask" >/dev/null
	got=$(jq_body .runtime_s)
	awk -v p="$got" -v l="$learned" 'BEGIN { exit !(p > 1.05 * l) }' && break
	sleep 0.05
done
awk -v p="$got" -v l="$learned" 'BEGIN { exit !(p > 1.05 * l) }' ||
	fail "after 100 jobs that ran their whole limit: expected more than 1.05 x $learned s, got $got"
stop_daemon
exit 0
