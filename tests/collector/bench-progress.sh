#!/usr/bin/env bash
# make bench-progress: what sending a running job's progress costs it
# (issue 37's goal: <= 0.1 % of the run time). A compute-bound program
# built with mpipredict-cc (an MPI singleton, 1 rank: the helper thread
# competes with the job's own core) runs about SECS seconds (default 5),
# progress off (no SLURM_JOB_ID) and on at MPIPREDICT_PROGRESS_S=1 (60
# times the site default's rate) with a daemon up, in a shuffled order
# each round; RUNS rounds (default 11). Prints the wall time's min,
# median and max per case, the median's difference, and the difference
# per post, from which the default's cost is that per post / 60 s.
set -u
: "${MPP_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${MPP_BUILD:=$MPP_SRC/build}"
export PATH=$MPP_BUILD/bin:$PATH
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
runs=${RUNS:-11}
secs=${SECS:-5}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpp-bench.XXXXXX")
pid=
cleanup() {
	[ -n "$pid" ] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
cd "$dir" || exit 1
unset MPIPREDICT_URL MPIPREDICT_TOKEN_FILE MPIPREDICT_FORWARD MPIPREDICT_COLLECT \
	MPIPREDICT_RUNS SLURM_JOB_ID MPIPREDICT_PROGRESS_S
export MPIPREDICT_CLIENT_CONF=$dir/none.conf MPIPREDICT_FORWARD=0
# A loop of Allreduces over a compute kernel: the counters move while it
# runs (calls counted at each call), as in a real code's time step.
cat >work.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	long steps = argc > 1 ? atol(argv[1]) : 100, i, k;
	double x = 0, y;

	MPI_Init(&argc, &argv);
	for (i = 0; i < steps; i++) {
		for (k = 0; k < 1000000; k++)
			x += (double)(k % 7) * 1e-9;
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	}
	printf("%g\n", y);
	MPI_Finalize();
	return 0;
}
C
mpipredict-cc mpicc -O2 -o work work.c >build.log 2>&1 ||
	{ cat build.log; echo "bench-progress: building work.c failed" >&2; exit 1; }
echo bench-token >token
mpipredictd --db "$dir/p.db" --listen 127.0.0.1:0 --port-file p.port \
	--token-file token >p.log 2>&1 &
pid=$!
for _ in $(seq 200); do [ -s p.port ] && break; sleep 0.05; done
[ -s p.port ] || { echo "bench-progress: mpipredictd did not start" >&2; exit 1; }
url=http://127.0.0.1:$(cat p.port)

python3 - "$runs" "$secs" "$url" <<'PY'
import os, random, statistics, subprocess, sys, time

runs, secs, url = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3]
# Steps for about secs seconds of work: a step's time from runs of 20
# and 60 steps (their difference leaves MPI_Init and the exit out).
def timed(n):
    t = time.time()
    subprocess.run(["./work", str(n)], check=True, stdout=subprocess.DEVNULL)
    return time.time() - t
step = max((timed(60) - timed(20)) / 40, 1e-4)
steps = max(20, int(secs / step))
cases = ["off", "on"]
got = {c: [] for c in cases}
for r in range(runs + 1):
    order = cases[:]
    random.shuffle(order)
    for c in order:
        env = dict(os.environ)
        if c == "on":
            env.update(SLURM_JOB_ID="b%d" % r, MPIPREDICT_PROGRESS_S="1",
                       MPIPREDICT_URL=url, MPIPREDICT_FORWARD="1",
                       MPIPREDICT_TOKEN_FILE=os.path.abspath("token"))
        t = time.time()
        subprocess.run(["./work", str(steps)], env=env, check=True,
                       stdout=subprocess.DEVNULL)
        if r > 0:  # the first round warms the caches up
            got[c].append(time.time() - t)
off, on = statistics.median(got["off"]), statistics.median(got["on"])
posts = max(int(off) - 1, 1)  # one a second from MPI_Init's end
print("bench-progress: wall time of a %.1f s compute-bound run, 1 rank, "
      "%d runs per case, progress every 1 s" % (off, runs))
print("%-4s %8s %8s %8s" % ("case", "min", "median", "max"))
for c in cases:
    v = got[c]
    print("%-4s %8.3f %8.3f %8.3f" % (c, min(v), statistics.median(v), max(v)))
print("on - off: %+.1f ms (%+.2f %%), about %d posts: %+.2f ms per post; "
      "at the default 60 s: %+.4f %% of the run time"
      % (1e3 * (on - off), 100 * (on - off) / off, posts,
         1e3 * (on - off) / max(posts, 1),
         100 * (on - off) / max(posts, 1) / 60))
PY
