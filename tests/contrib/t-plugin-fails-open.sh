#!/usr/bin/env bash
# Whatever goes wrong with the daemon (down, hung, garbage, HTTP 500, no
# model for the app), the plugin leaves the job exactly as submitted and
# logs one line for it; a hung daemon costs timeout_ms and no more. A
# request body over max_body (measured after JSON escaping) is not sent.
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
note='mpipredict: 300s [280,330] jacobi@7'
script 'srun ./jacobi -n 512'

for s in "gone:daemon down" "hang:hung daemon" "garbage:garbage answer" "err:HTTP 500" "refuse:HTTP 400"; do
	name=${s%%:*} what=${s#*:}
	u=url_$name
	conf "url = ${!u}" mode=fill max_minutes=600 lower_user_limit=yes breaker_failures=0
	run --time 30 --comment mine
	expect "$what: job" "$unchanged" "$out"
	expect "$what: log lines" 1 "$(log_lines "job 'harness' of uid $(id -u): .*job submitted unchanged")"
done
expect "hung daemon: it was called" 1 "$(requests hang)"

# The budget holds: the whole call, as the harness times it around the
# plugin, ends within timeout_ms plus a margin.
conf "url = $url_hang" mode=fill max_minutes=600 timeout_ms=200 breaker_failures=0
run --time 30 --comment mine --jobs 3
expect "hung daemon: the log says it did not answer in time" 3 "$(log_lines 'no answer in time after')"
expect_le "hung daemon, timeout_ms 200: longest call in ms" $((200 + margin_ms)) "$(took)"

script 'srun ./other-app 10'
conf "url = $url_okd" mode=fill max_minutes=600 lower_user_limit=yes
run --time 30 --comment mine
expect "no model: job" "$unchanged" "$out"
expect "no model: log line" 1 "$(log_lines ': no model (HTTP 404: .*) after .* ms; job submitted unchanged')"

# max_body (default 1 MiB, the daemon's limit) caps the body as sent: a
# script of 300 KiB is sent whole, one of 200 KiB of control characters
# (6 bytes each once JSON-escaped: 1.2 MiB) is not sent at all, and one
# over max_body is not even encoded.
conf "url = $url_okd" mode=annotate
{ echo '#!/bin/sh'; echo 'srun ./jacobi -n 512'; head -c 300000 /dev/zero | tr '\0' '#'; echo; } >job.sh
n0=$(requests okd)
run
expect "300 KiB script: sent whole, predicted" "$((n0 + 1)) $(stat -c %s job.sh) comment=$note" \
	"$(requests okd) $(tail -n 1 okd.requests | jq -j .script | wc -c) ${out%% time_limit*}"
{ echo '#!/bin/sh'; echo 'srun ./jacobi -n 512'; head -c 200000 /dev/zero | tr '\0' '\001'; echo; } >job.sh
n0=$(requests okd)
run --comment mine
expect "200 KiB of control characters: not sent, unchanged" "$n0 comment=mine" "$(requests okd) ${out%% time_limit*}"
expect "200 KiB of control characters: one log line" 1 \
	"$(log_lines 'request of [0-9]* bytes (the script JSON-escaped) is over max_body (1048576); job submitted unchanged')"
expect "no request over 1 MiB ever reached the server" 0 "$(awk 'length($0) > 1048576' okd.requests | wc -l)"
conf "url = $url_okd" mode=annotate max_body=4096
script 'srun ./jacobi -n 512' "# $(head -c 5000 /dev/zero | tr '\0' x)"
n0=$(requests okd)
run
expect "script over max_body: not sent, logged" "$n0 1" \
	"$(requests okd) $(log_lines 'script of 5034 bytes is over max_body (4096)')"

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
