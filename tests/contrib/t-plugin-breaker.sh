#!/usr/bin/env bash
# After breaker_failures failed calls in a row the plugin stops calling the
# daemon (jobs still go through, unchanged), logs that once, and calls again
# after breaker_seconds; an unknown app (404) is not a failure.
set -u
. "$MPP_SRC/tests/contrib/lib.sh"
start_fake hang hang
start_fake ok okd
script 'srun ./jacobi -n 512'

# timeout_ms 200, not 50: under the sanitizers on a loaded machine a 50 ms
# call can end before its request reaches the server, which then counts 2.
conf "url = $url_hang" mode=fill max_minutes=600 timeout_ms=200 breaker_failures=3 breaker_seconds=600
run --jobs 8
expect "breaker: 8 jobs, all unchanged" "8 comment= time_limit=unset time_min=unset" \
	"$(wc -l <<<"$out") $(sort -u <<<"$out")"
expect "breaker: 3 calls, then none" 3 "$(requests hang)"
expect "breaker: logged once" 1 "$(log_lines '3 failures in a row; not calling the daemon for 600 s')"

# From 4 threads at once: calls already under way when it opens still
# finish, so 3 to 3 + 3 calls; every job goes through.
h0=$(requests hang)
run --jobs 40 --threads 4
calls=$(($(requests hang) - h0))
expect "breaker, 4 threads: 40 jobs, calls in [3,6]" "40 yes" \
	"$(wc -l <<<"$out") $([ "$calls" -ge 3 ] && [ "$calls" -le 6 ] && echo yes || echo "no ($calls calls)")"

# breaker_seconds = 1, jobs 0.7 s apart: calls at 0 s and 1.4 s, none at
# 0.7 s and 2.1 s (each failed call opens it again for a second).
conf "url = $url_hang" mode=fill max_minutes=600 timeout_ms=50 breaker_failures=1 breaker_seconds=1
h0=$(requests hang)
run --jobs 4 --interval-ms 700
expect "breaker reopens after breaker_seconds: 2 calls for 4 jobs" $((h0 + 2)) "$(requests hang)"

# 404s and 400s do not open it: the daemon works, it just will not
# predict those jobs.
start_fake refuse refuse
script 'srun ./other-app 1'
conf "url = $url_okd" mode=fill max_minutes=600 breaker_failures=2 breaker_seconds=600
run --jobs 4
expect "404 is not a failure: every job asks" 4 "$(requests okd)"
conf "url = $url_refuse" mode=fill max_minutes=600 breaker_failures=2 breaker_seconds=600
run --jobs 4
expect "400 is not a failure: every job asks" 4 "$(requests refuse)"
exit $((fails > 0))
