#!/usr/bin/env bash
# make bench-forward: what forwarding the row to the daemon costs the job
# (issue 39's goal: <= 5 ms median, <= 50 ms worst, with the daemon up,
# slow and down). progs/lastline.c, built with mpipredict-cc, runs as an
# MPI singleton (1 rank, no mpirun); its last statement prints the clock,
# and the harness takes the time from there to the moment wait() returns:
# the runtime's exit handler (the row; with forwarding, the outbox file and
# the posix_spawn of the detached forwarder) and the process's teardown.
# Cases, interleaved in a shuffled order each round: off
# (MPIPREDICT_FORWARD=0), up (a daemon answering), stopped (a daemon held
# by SIGSTOP: it accepts connections and never answers), down (nothing
# listens). Prints min, median and max per case and each median minus
# off's. RUNS (default 21) rounds.
set -u
: "${MPP_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${MPP_BUILD:=$MPP_SRC/build}"
export PATH=$MPP_BUILD/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
runs=${RUNS:-21}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpp-bench.XXXXXX")
pids=()
cleanup() {
	for p in "${pids[@]}"; do
		kill -CONT "$p" 2>/dev/null
		kill -TERM "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir" || exit 1
unset MPIPREDICT_URL MPIPREDICT_TOKEN_FILE MPIPREDICT_FORWARD MPIPREDICT_COLLECT MPIPREDICT_RUNS
export MPIPREDICT_CLIENT_CONF=$dir/none.conf
cp "$MPP_SRC/tests/collector/progs/lastline.c" .
mpipredict-cc mpicc -O2 -o lastline lastline.c >build.log 2>&1 ||
	{ cat build.log; echo "bench-forward: building lastline.c failed" >&2; exit 1; }
echo bench-token >token

# daemon NAME: starts mpipredictd on a free port; its URL in URL, its
# pid added to pids (no command substitution: the daemon would hold its
# pipe open).
daemon() {
	mpipredictd --db "$dir/$1.db" --listen 127.0.0.1:0 --port-file "$1.port" \
		--token-file token >"$1.log" 2>&1 &
	pids+=($!)
	for _ in $(seq 200); do [ -s "$1.port" ] && break; sleep 0.05; done
	[ -s "$1.port" ] || { echo "bench-forward: mpipredictd did not start" >&2; exit 1; }
	URL=http://127.0.0.1:$(cat "$1.port")
}
daemon up
up=$URL
daemon stopped
stopped=$URL
kill -STOP "${pids[1]}"
daemon down
down=$URL
kill -TERM "${pids[2]}" && wait "${pids[2]}"
unset 'pids[2]'

python3 - "$runs" "$up" "$stopped" "$down" <<'PY'
import os, random, statistics, subprocess, sys, time

runs = int(sys.argv[1])
urls = {"up": sys.argv[2], "stopped": sys.argv[3], "down": sys.argv[4]}
cases = ["off", "up", "stopped", "down"]
got = {c: [] for c in cases}
for r in range(runs + 1):
    order = cases[:]
    random.shuffle(order)
    for c in order:
        env = dict(os.environ, MPIPREDICT_RUNS="runs-%s/" % c,
                   MPIPREDICT_TOKEN_FILE=os.path.abspath("token"))
        if c == "off":
            env["MPIPREDICT_FORWARD"] = "0"
        else:
            env["MPIPREDICT_URL"] = urls[c]
        p = subprocess.Popen(["./lastline"], env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        line = p.stdout.readline()
        rc = p.wait()
        end = time.time_ns()
        p.stdout.close()
        if rc != 0 or not line.strip():
            sys.exit("bench-forward: lastline failed (%s, exit %d)" % (c, rc))
        if r > 0:  # the first round warms the caches up
            got[c].append((end - int(line)) / 1e6)
print("bench-forward: from the last statement to the process's end, ms, "
      "%d runs per case, 1 rank (MPI singleton)" % runs)
print("%-8s %8s %8s %8s %12s" % ("case", "min", "median", "max", "median-off"))
off = statistics.median(got["off"])
for c in cases:
    v = got[c]
    m = statistics.median(v)
    print("%-8s %8.2f %8.2f %8.2f %+12.2f" % (c, min(v), m, max(v), m - off))
for c in cases[1:]:
    os.makedirs("runs-%s/outbox" % c, exist_ok=True)
    n = len([f for f in os.listdir("runs-%s/outbox" % c) if f.endswith(".csv")])
    print("%s: %d of %d rows still in the outbox at the end" % (c, n, runs + 1))
PY
