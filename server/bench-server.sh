#!/usr/bin/env bash
# make bench-server: mpipredictd's POST /v1/predict against a bare
# libmicrohttpd handler (tests/server/bare-httpd: same MHD flags, thread
# pool and limits, fixed JSON answer), measured with wrk on loopback in the
# same run, interleaved, with the same thread settings.
#
# Two request bodies: the Slurm plugin's (a batch script and counts) and a
# client's measured features (30 of them).
# 1. Throughput: wrk -t1 -c16 for DURATION s, REPS times each, alternating;
#    medians and spread (min-max), ratio daemon/bare. Goal >= 0.7.
#    Also the CPU time per request of each process (all its threads, from
#    /proc/PID/stat), which other load on the machine disturbs less.
# 2. Tail latency at 80 % of the maximum rate: wrk has no rate control (and
#    wrk2 is not in Debian), so the load is set by the number of closed-loop
#    connections instead: c = 1, 2, 4, 8 connections each give a rate and a
#    p99; the figure reported is the p99 at the largest c whose rate is at
#    most 80 % of the maximum measured in step 1. Goal <= 1 ms.
# 3. The same p99 seen from inside the daemon: its latency histogram
#    (/metrics, headers to answer) gives the bucket holding the 99th
#    percentile; the rest of wrk's figure is queueing and scheduling.
# 4. Instructions per request under callgrind (valgrind), daemon and bare,
#    a few seconds of wrk -c4 each: a count that other load on a shared
#    machine does not change, unlike rates and CPU times. Both include
#    libmicrohttpd's ~49k for the `rep stosb` that clears a connection's
#    memory pool after each request (counted per byte, cheap in time).
#    CALLGRIND=0 skips it.
# The daemon and bare-httpd both run with THREADS (default 1) event-loop
# threads, leaving the second core to wrk. Environment: MPP_BUILD, THREADS,
# DURATION (default 5), REPS (default 3), CALLGRIND (default 1).
set -eu
build=${MPP_BUILD:?}
threads=${THREADS:-1}
duration=${DURATION:-5}
reps=${REPS:-3}
command -v wrk >/dev/null || { echo "bench-server: wrk is missing (make deps-bench)" >&2; exit 1; }

dir=$(mktemp -d)
pids=()
cleanup() {
	for p in "${pids[@]+"${pids[@]}"}"; do kill "$p" 2>/dev/null || true; done
	wait 2>/dev/null || true
	rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir"

# A trained model and two requests: one run's 30 measured features (what a
# client that knows its counters sends), and what the Slurm plugin sends at
# submission (a batch script, task counts, user, partition).
"$build/tests/regress/gen-runs" --runs 40 --features 30 --seed 3 >runs.csv
"$build/bin/mpipredict-train" --db models.db runs.csv >/dev/null
awk -F, 'NR == 1 { for (i = 10; i <= NF; i++) name[i] = $i; next }
	NR == 2 { printf "{\"app\":\"stencil\",\"features\":{"; sep = ""
	  for (i = 10; i <= NF; i++) { printf "%s\"%s\":%s", sep, name[i], $i; sep = "," }
	  print "}}" }' runs.csv >features.json
jq -n -c --arg s $'#!/bin/bash\n#SBATCH -N 1\n#SBATCH -n 8\n#SBATCH -t 60\nmodule load mpi\nsrun --mpi=pmix ./stencil -n 96 --iters=20\n' \
	'{script: $s, ntasks: 8, nodes: 1, user: "bench", partition: "batch", time_limit_s: 3600}' >script.json
for b in features script; do
	{
		echo 'wrk.method = "POST"'
		echo 'wrk.headers["Content-Type"] = "application/json"'
		printf 'wrk.body = %s\n' "$(jq -Rs . <$b.json)"
	} >$b.lua
done

"$build/bin/mpipredictd" --db models.db --listen 127.0.0.1:0 --port-file port \
	--threads "$threads" 2>daemon.log &
pids+=($!)
"$build/tests/server/bare-httpd" --threads "$threads" >bare.out &
pids+=($!)
for _ in $(seq 100); do [ -s port ] && [ -s bare.out ] && break; sleep 0.05; done
dport=$(cat port)
bport=$(awk '{print $2}' bare.out)
for b in features script; do
	st=$(curl -s -o check.json -w '%{http_code}' --data-binary @$b.json "http://127.0.0.1:$dport/v1/predict")
	[ "$st" = 200 ] || { echo "bench-server: the daemon answered $st to $b.json: $(cat check.json)" >&2; exit 1; }
done

dpid=${pids[0]}
bpid=${pids[1]}
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# wrk CONNECTIONS SECONDS PORT BODY PID -> "RATE P99_MS CPU_US_PER_REQUEST"
# (CPU of every thread of PID, from /proc, divided by the requests served:
# less sensitive than the rate to other load on the machine.)
run() {
	local c0 c1 out
	c0=$(cpu_ticks "$5")
	out=$(wrk -t1 -c"$1" -d"$2"s --latency -s "$4.lua" "http://127.0.0.1:$3/v1/predict")
	c1=$(cpu_ticks "$5")
	echo "$out" | awk -v ticks=$((c1 - c0)) -v hz="$hz" '
		/Requests\/sec/ { rate = $2 }
		/ requests in / { n = $1 }
		$1 == "99%" { v = $2; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
		              p = (u == "us") ? v / 1000 : (u == "s") ? v * 1000 : v }
		END { printf "%.0f %.3f %.1f\n", rate, p, n ? ticks / hz * 1e6 / n : 0 }'
}
# Each mpipredictd thread's share of the CPU so far (the store thread
# writes the audit; MHD threads answer).
threads_cpu() {
	local t out=""
	for t in /proc/"$dpid"/task/*; do
		out="$out $(cat "$t/comm")=$(awk -v hz="$hz" '{ printf "%.1fs", ($14 + $15) / hz }' "$t/stat")"
	done
	echo "  mpipredictd CPU by thread so far:$out"
}
# The daemon's own view: the smallest histogram bound under which 99 % of
# the predictions so far were answered (headers in to answer queued).
inside_p99() {
	curl -s "http://127.0.0.1:$dport/metrics" | awk '
		/^mpipredictd_request_duration_seconds_bucket\{endpoint="predict"/ {
			split($1, a, "le=\""); le = a[2]; sub(/"}$/, "", le)
			n++; bound[n] = le; cum[n] = $2 }
		END { total = cum[n]; for (i = 1; i <= n; i++) if (cum[i] >= 0.99 * total) {
			printf "  inside the daemon, 99%% of %d predictions took <= %s s\n", total, bound[i]; exit } }'
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
spread() { sort -n | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }

echo "bench-server: $threads event-loop thread(s), wrk -t1, $reps x ${duration}s each, interleaved"
for body in script features; do
	: >daemon.runs
	: >bare.runs
	for _ in $(seq "$reps"); do
		run 16 "$duration" "$bport" "$body" "$bpid" >>bare.runs
		run 16 "$duration" "$dport" "$body" "$dpid" >>daemon.runs
	done
	bare=$(awk '{print $1}' bare.runs | median)
	daemon=$(awk '{print $1}' daemon.runs | median)
	bcpu=$(awk '{print $3}' bare.runs | median)
	dcpu=$(awk '{print $3}' daemon.runs | median)
	echo "$body request ($(wc -c <"$body.json") bytes):"
	printf '  throughput, 16 connections: mpipredictd %s req/s (%s), bare %s req/s (%s)\n' \
		"$daemon" "$(awk '{print $1}' daemon.runs | spread)" "$bare" "$(awk '{print $1}' bare.runs | spread)"
	awk -v d="$daemon" -v b="$bare" 'BEGIN { printf "  ratio mpipredictd/bare: %.2f (goal >= 0.70)\n", d / b }'
	printf '  CPU per request (all threads): mpipredictd %s us, bare %s us; ratio bare/mpipredictd %s\n' \
		"$dcpu" "$bcpu" "$(awk -v d="$dcpu" -v b="$bcpu" 'BEGIN { printf "%.2f", b / d }')"
	threads_cpu

	target=$(awk -v d="$daemon" 'BEGIN { printf "%.0f", 0.8 * d }')
	chosen=""
	for c in 1 2 4 8; do
		read -r rate p99 _ < <(run "$c" "$duration" "$dport" "$body" "$dpid")
		read -r brate bp99 _ < <(run "$c" "$duration" "$bport" "$body" "$bpid")
		printf '  %d connection(s): mpipredictd %s req/s p99 %s ms; bare %s req/s p99 %s ms\n' \
			"$c" "$rate" "$p99" "$brate" "$bp99"
		[ "$rate" -le "$target" ] && chosen="$c $rate $p99"
	done
	if [ -n "$chosen" ]; then
		read -r c rate p99 <<<"$chosen"
		printf '  p99 at <= 80%% of max (%s req/s): %s ms with %s connection(s), %s req/s (goal <= 1 ms)\n' \
			"$target" "$p99" "$c" "$rate"
	else
		echo "  p99 at 80% of max: even 1 connection exceeds 80% of the maximum rate"
	fi
	inside_p99
done
echo "  audit rows written during the bench: $(sqlite3 models.db 'SELECT count(*) FROM predictions')"

# Instructions per request under callgrind, same bodies, fixed settings.
[ "${CALLGRIND:-1}" = 1 ] || exit 0
command -v valgrind >/dev/null || { echo "bench-server: valgrind is missing, no instruction counts" >&2; exit 0; }
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()
# callgrind SERVER BODY -> instructions per request
callgrind() {
	local out=cg.$1.$2 n port pid
	rm -f port cg.port "$out"
	if [ "$1" = daemon ]; then
		cp models.db cg.db
		valgrind --tool=callgrind --callgrind-out-file="$out" "$build/bin/mpipredictd" --db cg.db \
			--listen 127.0.0.1:0 --port-file cg.port --threads "$threads" 2>cg.log &
	else
		valgrind --tool=callgrind --callgrind-out-file="$out" "$build/tests/server/bare-httpd" \
			--threads "$threads" >cg.out 2>cg.log &
	fi
	pid=$!
	for _ in $(seq 400); do
		[ -s cg.port ] && port=$(cat cg.port) && break
		[ -s cg.out ] && port=$(awk '{print $2}' cg.out) && break
		sleep 0.05
	done
	rm -f cg.out
	# Counted from here (not the start-up) to the dump after wrk.
	callgrind_control -z "$pid" >/dev/null 2>&1
	n=$(wrk -t1 -c4 -d"$duration"s -s "$2.lua" "http://127.0.0.1:$port/v1/predict" | awk '/ requests in / { print $1 }')
	callgrind_control -d "$pid" >/dev/null 2>&1
	kill "$pid"
	wait "$pid" 2>/dev/null
	awk -v n="$n" '/^summary:/ { t = $2 } END { printf "%.0f", t / n }' "$out.1"
}
echo "instructions per request (callgrind, wrk -c4, ${duration}s; every thread of the server):"
for body in script features; do
	d=$(callgrind daemon "$body")
	b=$(callgrind bare "$body")
	printf '  %s request: mpipredictd %s, bare %s\n' "$body" "$d" "$b"
done
