#!/usr/bin/env bash
# make bench-server: mpipredictd's POST /v1/predict against a bare
# libmicrohttpd handler (tests/server/bare-httpd: the same MHD flags,
# acceptor, thread pool and limits, a fixed JSON answer), measured with wrk
# on loopback in the same run.
#
# Two request bodies: the Slurm plugin's (a batch script and counts) and a
# client's measured features (30 of them).
# 1. One table: 1, 16, 256 and 1,024 connections (wrk -t1, closed loop) x
#    both bodies x both servers; REPS repeats of DURATION s each,
#    interleaved (every cell once before any cell twice); per cell the
#    median req/s with its min-max, the median p50 and p99, the requests
#    dropped over all repeats (non-2xx answers and wrk's socket errors: a
#    connect, read or write error, or no answer within 10 s, the daemon's
#    --request-timeout), the server's CPU time per request (all its
#    threads, from /proc; other load on the machine disturbs it less than
#    the rate), and the ratios: daemon / bare at the same connections, and
#    to the same server's 16 connections. Goals (issue 36): >= 0.7x bare,
#    >= 0.8x of 16 connections at 256 and 1,024, nothing dropped.
# 2. Instructions per request under callgrind (valgrind), daemon and bare,
#    at 16 and 1,024 connections, DURATION s of wrk each: a count that
#    other load on a shared machine does not change, unlike rates and CPU
#    times: all threads (the store's and the page's included; those work
#    per second, not per request, and weigh more when valgrind slows the
#    requests down), and the event loop's alone. CALLGRIND=0 skips it.
# The daemon and bare-httpd both run with THREADS (default 1) event-loop
# threads, leaving the second core to wrk. Environment: MPP_BUILD, THREADS,
# DURATION (default 5), REPS (default 3), CONNS (default "1 16 256 1024"),
# CALLGRIND (default 1), CG_CONNS (default "16 1024").
set -eu
build=${MPP_BUILD:?}
threads=${THREADS:-1}
duration=${DURATION:-5}
reps=${REPS:-3}
conns=${CONNS:-1 16 256 1024}
command -v wrk >/dev/null || { echo "bench-server: wrk is missing (make deps-bench)" >&2; exit 1; }

# 1,024 connections need as many descriptors in wrk and in bare-httpd (the
# daemon raises its own limit to --max-connections + 64).
max=0
for c in $conns; do [ "$c" -gt "$max" ] && max=$c; done
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((max + 64)) ]; then
	ulimit -n $((max + 64)) 2>/dev/null || ulimit -n "$(ulimit -Hn)"
	[ "$(ulimit -n)" -ge $((max + 64)) ] ||
		{ echo "bench-server: ulimit -n is $(ulimit -n), $max connections need $((max + 64)) (raise the hard limit)" >&2; exit 1; }
fi

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

# run CONNECTIONS SECONDS PORT BODY PID
#   -> "RATE P50_MS P99_MS DROPPED CPU_US_PER_REQUEST"
# (CPU of every thread of PID, from /proc, divided by the requests served.)
run() {
	local c0 c1 out
	c0=$(cpu_ticks "$5")
	out=$(wrk -t1 -c"$1" -d"$2"s --timeout 10s --latency -s "$4.lua" "http://127.0.0.1:$3/v1/predict")
	c1=$(cpu_ticks "$5")
	echo "$out" | awk -v ticks=$((c1 - c0)) -v hz="$hz" '
		function ms(v,  u) { u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
		                     return (u == "us") ? v / 1000 : (u == "s") ? v * 1000 : v }
		/Requests\/sec/ { rate = $2 }
		/ requests in / { n = $1 }
		$1 == "50%" { p50 = ms($2) }
		$1 == "99%" { p99 = ms($2) }
		/Non-2xx or 3xx responses:/ { drop += $NF }
		/Socket errors:/ { gsub(/,/, ""); drop += $4 + $6 + $8 + $10 }
		END { printf "%.0f %.3f %.3f %d %.1f\n", rate, p50, p99, drop, n ? ticks / hz * 1e6 / n : 0 }'
}
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }
range() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%s-%s", lo, hi }'; }

echo "bench-server: $threads event-loop thread(s), wrk -t1, $reps x ${duration}s per cell, interleaved; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
# Every cell once per round, the servers alternating, so that a change of
# load on the machine falls on all of them alike.
for _ in $(seq "$reps"); do
	for body in script features; do
		for c in $conns; do
			run "$c" "$duration" "$bport" "$body" "$bpid" >>"runs.$body.$c.bare"
			run "$c" "$duration" "$dport" "$body" "$dpid" >>"runs.$body.$c.daemon"
		done
	done
done

# A cell's figures: "RATE RANGE P50 P99 DROPPED CPU".
cell() {
	local f=runs.$1.$2.$3
	printf '%s %s %s %s %s %s\n' "$(awk '{print $1}' "$f" | median)" "$(awk '{print $1}' "$f" | range)" \
		"$(awk '{print $2}' "$f" | median)" "$(awk '{print $3}' "$f" | median)" \
		"$(awk '{ s += $4 } END { print s + 0 }' "$f")" "$(awk '{print $5}' "$f" | median)"
}
printf '%-8s %5s %-11s %8s %-15s %8s %8s %7s %7s %7s %7s\n' body conns server 'req/s' '(min-max)' 'p50 ms' 'p99 ms' dropped 'CPU us' 'x bare' 'x 16c'
for body in script features; do
	for srv in daemon bare; do
		ref=""
		[ -f "runs.$body.16.$srv" ] && ref=$(awk '{print $1}' "runs.$body.16.$srv" | median)
		for c in $conns; do
			read -r rate rng p50 p99 drop cpu < <(cell "$body" "$c" "$srv")
			bare=$(awk '{print $1}' "runs.$body.$c.bare" | median)
			xb=$(awk -v d="$rate" -v b="$bare" -v s="$srv" 'BEGIN { if (s == "bare" || b == 0) print "-"; else printf "%.2f", d / b }')
			x16=$(awk -v d="$rate" -v r="$ref" 'BEGIN { if (r == "" || r == 0) print "-"; else printf "%.2f", d / r }')
			printf '%-8s %5s %-11s %8s %-15s %8s %8s %7s %7s %7s %7s\n' "$body" "$c" \
				"$([ "$srv" = daemon ] && echo mpipredictd || echo bare)" "$rate" "($rng)" "$p50" "$p99" "$drop" "$cpu" "$xb" "$x16"
		done
	done
done
echo "  bodies: script $(wc -c <script.json) bytes, features $(wc -c <features.json) bytes; audit rows written: $(sqlite3 models.db 'SELECT count(*) FROM predictions')"
curl -s "http://127.0.0.1:$dport/metrics" | awk '/^mpipredictd_errors_total/ && $2 > 0 { printf "  daemon: %s %s\n", $1, $2 }'

# Instructions per request under callgrind, same bodies, fixed settings.
[ "${CALLGRIND:-1}" = 1 ] || exit 0
command -v valgrind >/dev/null || { echo "bench-server: valgrind is missing, no instruction counts" >&2; exit 0; }
for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
wait 2>/dev/null || true
pids=()
# callgrind SERVER BODY CONNECTIONS -> instructions per request: all
# threads, and the event loop's alone (the threads that queue answers)
callgrind() {
	local out=cg.$1.$2.$3 n port pid
	rm -f port cg.port "$out"
	if [ "$1" = daemon ]; then
		cp models.db cg.db
		valgrind --tool=callgrind --separate-threads=yes --compress-strings=no \
			--callgrind-out-file="$out" "$build/bin/mpipredictd" --db cg.db \
			--listen 127.0.0.1:0 --port-file cg.port --threads "$threads" 2>cg.log &
	else
		valgrind --tool=callgrind --separate-threads=yes --compress-strings=no \
			--callgrind-out-file="$out" "$build/tests/server/bare-httpd" \
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
	n=$(wrk -t1 -c"$3" -d"$duration"s --timeout 10s -s "$2.lua" "http://127.0.0.1:$port/v1/predict" |
		awk '/ requests in / { print $1 }')
	callgrind_control -d "$pid" >/dev/null 2>&1
	kill "$pid"
	wait "$pid" 2>/dev/null
	local all loop f
	all=$(cat "$out".1-* | awk '/^summary:/ { t += $2 } END { print t + 0 }')
	loop=$(for f in "$out".1-*; do grep -q MHD_queue_response "$f" && cat "$f"; done |
		awk '/^summary:/ { t += $2 } END { print t + 0 }')
	awk -v n="$n" -v a="$all" -v l="$loop" 'BEGIN { if (n > 0) printf "%.0f (event loop %.0f)", a / n, l / n; else printf "no request answered" }'
}
# The other threads (the store's, the page's, retraining) work per second,
# not per request: under valgrind's slowdown they weigh more, the more so
# with 1,024 connections, where fewer requests are answered.
echo "instructions per request (callgrind, ${duration}s of wrk; every thread of the server, and its event loop):"
for body in script features; do
	for c in ${CG_CONNS:-16 1024}; do
		d=$(callgrind daemon "$body" "$c")
		b=$(callgrind bare "$body" "$c")
		printf '  %s request, %4d connections: mpipredictd %s, bare %s\n' "$body" "$c" "$d" "$b"
	done
done
