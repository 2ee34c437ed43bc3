#!/usr/bin/env bash
# Whatever goes wrong with the daemon (down, hung, garbage, HTTP 500, no
# model for the app), the plugin leaves the job exactly as submitted and
# logs one line for it.
set -u
. "$MPP_SRC/tests/contrib/lib.sh"
start_fake ok okd
start_fake hang hang
start_fake garbage garbage
start_fake error err
start_fake refuse refuse
start_fake ok gone
kill "${fake_pids[-1]}"; wait "${fake_pids[-1]}" 2>/dev/null
unchanged="comment=mine time_limit=30 time_min=unset"
script 'srun ./jacobi -n 512'

for s in "gone:daemon down" "hang:hung daemon" "garbage:garbage answer" "err:HTTP 500" "refuse:HTTP 400"; do
	name=${s%%:*} what=${s#*:}
	u=url_$name
	conf "url = ${!u}" mode=fill max_minutes=600 lower_user_limit=yes breaker_failures=0
	run --time 30 --comment mine
	expect "$what: job" "$unchanged" "$out"
	expect "$what: log lines" 1 "$(log_lines 'app jacobi: .*job submitted unchanged')"
done
expect "hung daemon: it was called" 1 "$(requests hang)"

conf "url = $url_hang" mode=fill max_minutes=600 timeout_ms=50 breaker_failures=0
run --time 30 --comment mine
expect "hung daemon: the log says it timed out" 1 "$(log_lines 'Timeout was reached')"

script 'srun ./other-app 10'
conf "url = $url_okd" mode=fill max_minutes=600 lower_user_limit=yes
run --time 30 --comment mine
expect "no model: job" "$unchanged" "$out"
expect "no model: log line" 1 "$(log_lines 'app other-app: .*no model after .* ms; job submitted unchanged')"

# A script over 256 KiB is not sent (the daemon would refuse the body),
# its launcher line's app and args are.
{ echo '#!/bin/sh'; echo 'srun ./jacobi -n 512'; head -c 300000 /dev/zero | tr '\0' '#'; echo; } >job.sh
n0=$(requests okd)
conf "url = $url_okd" mode=annotate
run
expect "big script: predicted without the script" "$((n0 + 1)) null [\"-n\",\"512\"]" \
	"$(requests okd) $(tail -n 1 okd.requests | jq -c .script) $(tail -n 1 okd.requests | jq -c .args)"

# A server that answers JSON without the fields, or with an impossible
# interval, is garbage too: a fixed-answer fake with a reversed interval.
"$fake" --mode ok --port-file rev.port --log rev.requests --answer 300,330,280 &
fake_pids+=($!)
for i in $(seq 100); do [ -s rev.port ] && break; sleep 0.05; done
script 'srun ./jacobi -n 512'
conf "url = http://127.0.0.1:$(cat rev.port)" mode=fill max_minutes=600 lower_user_limit=yes
run --time 30 --comment mine
expect "impossible interval: job" "$unchanged" "$out"
expect "impossible interval: log line" 1 "$(log_lines 'impossible interval')"
exit $((fails > 0))
