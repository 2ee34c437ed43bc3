#!/usr/bin/env bash
# Several urls, one budget: a url that is down, answers 5xx or garbage
# hands over to the next at once; one that has not answered after hedge_ms
# (default timeout_ms / 4) is joined by the next in parallel, and the first
# good answer wins, all within timeout_ms. A refusal (4xx) is an answer.
# A url that fails or stays silent breaker_failures times in a row is
# asked last for breaker_seconds. Times are the harness's, around the
# plugin call.
set -u
. "$MPP_SRC/tests/contrib/lib.sh"
start_fake ok okd
start_fake hang hang
start_fake garbage garbage
start_fake error err
start_fake refuse refuse
start_fake ok slow --delay-ms 150
start_fake ok gone
kill "${fake_pids[-1]}"; wait "${fake_pids[-1]}" 2>/dev/null
script 'srun ./jacobi -n 512'
note='mpipredict: 300s [280,330] jacobi@7'
predicted="comment=$note time_limit=6 time_min=unset"

# The first url hangs, the second answers: predicted within the default
# budget of 200 ms (hedge at 50 ms), three jobs in a row.
conf "url = $url_hang $url_okd" mode=fill max_minutes=600 timeout_ms=200 breaker_failures=0
n0=$(requests okd)
run --jobs 3
expect "hung first url: the second's prediction, 3 jobs" "3 $predicted" "$(wc -l <<<"$out") $(sort -u <<<"$out")"
expect "hung first url: both asked for each job" "3 $((n0 + 3))" "$(requests hang) $(requests okd)"
expect_le "hung first url: longest call in ms (timeout 200)" $((200 + margin_ms)) "$(took)"

# A hung first url that stays hung is asked last after breaker_failures
# silences in a row: later jobs go to the second url first and do not pay
# hedge_ms; the first is not asked again while it is demoted.
conf "url = $url_hang $url_okd" mode=fill max_minutes=600 timeout_ms=2000 breaker_failures=2 \
	breaker_seconds=600
h0=$(requests hang)
run --jobs 6
expect "hung first url, breaker_failures 2: 6 jobs predicted" "6 $predicted" "$(wc -l <<<"$out") $(sort -u <<<"$out")"
expect "hung first url, breaker_failures 2: asked twice, then last" $((h0 + 2)) "$(requests hang)"
expect "hung first url, breaker_failures 2: logged once" 1 \
	"$(log_lines "$url_hang/v1/predict: 2 failures or silences in a row; asking it last for 600 s")"
expect_le "hung first url demoted: the last job's call in ms (no hedge_ms 500 wait)" 400 \
	"$(sed -n 's/^plugin-harness: job_submit took \([0-9.]*\) ms$/\1/p' run.log | tail -n 1)"

# Down, 5xx, garbage: the next url is asked at once, not after hedge_ms
# (here 2.5 s of a 5 s budget: a call of 2.5 s or more would show it).
for s in gone:down err:500 garbage:garbage; do
	u=url_${s%%:*}
	conf "url = ${!u} $url_okd" mode=fill max_minutes=600 timeout_ms=5000 hedge_ms=2500
	run
	expect "${s#*:} first url: the second's prediction" "$predicted" "$out"
	expect_le "${s#*:} first url: call in ms, well under hedge_ms 2500" 2000 "$(took)"
done

# Hedging does not give up on the first url: a slow but healthy first url
# (150 ms) still wins when the second, asked at 20 ms, is down.
conf "url = $url_slow $url_gone" mode=fill max_minutes=600 timeout_ms=2000 hedge_ms=20
run
expect "slow first url, dead second: the first's prediction" "$predicted" "$out"

# A refusal is an answer: the second url is not asked.
conf "url = $url_refuse $url_okd" mode=fill max_minutes=600 timeout_ms=5000 hedge_ms=2500
n0=$(requests okd)
run --comment mine
expect "400 from the first url: unchanged, second not asked" "comment=mine $n0" \
	"${out%% time_limit*} $(requests okd)"

# Every url hangs: unchanged, each asked once, within the budget.
start_fake hang hang2
conf "url = $url_hang $url_hang2" mode=fill max_minutes=600 timeout_ms=200 breaker_failures=0
h0=$(requests hang) h20=$(requests hang2)
run --comment mine
expect "all urls hung: unchanged" "comment=mine time_limit=unset time_min=unset" "$out"
expect "all urls hung: each asked once" "$((h0 + 1)) $((h20 + 1))" "$(requests hang) $(requests hang2)"
expect "all urls hung: one log line naming both" 1 \
	"$(log_lines "$url_hang/v1/predict: no answer in time; $url_hang2/v1/predict: no answer in time after")"
expect_le "all urls hung: call in ms (timeout 200)" $((200 + margin_ms)) "$(took)"
exit $((fails > 0))
