#!/usr/bin/env bash
# make bench-collector: the cost of libmpipredict's PMPI layer. The same
# loops (progs/bench.c) built plain and instrumented (tagged call sites,
# linked with libmpipredict), run alternately in one session:
#   - 8-byte ping-pong (MPI_Send + MPI_Recv), 2 ranks, time per round trip;
#   - MPI_Allreduce of one double, 2 ranks, time per call;
#   - the same on 1 rank, where the call is a local copy: the difference of
#     the medians is the layer's cost per call, with no network to hide it.
# Each program times its own loop (MPI_Wtime, after a warm-up), so start-up
# does not blur the figure. Prints, per loop, the median time of each build,
# the ratio of the medians, the spread ((max-min)/median) of each, and the
# ratio of the minima, then callgrind's instruction counts per call (load
# does not change those). Goal: ratio <= 1.05. REPS (default 9) and ITERS
# (default 200000) change the effort.
set -u
: "${MPP_SRC:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${MPP_BUILD:=$MPP_SRC/build}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
reps=${REPS:-9}
iters=${ITERS:-200000}
dir=$(mktemp -d "${TMPDIR:-/tmp}/mpp-bench.XXXXXX")
trap 'rm -rf "$dir"' EXIT
src=$MPP_SRC/tests/collector/progs/bench.c
lib=$MPP_BUILD/lib
mpicc -O2 -o "$dir/plain" "$src" || exit 1
mpicc -O2 -DINSTRUMENTED -I"$MPP_BUILD/include/mpipredict" -o "$dir/inst" "$src" \
	-L"$lib" -Wl,-rpath,"$lib" -lmpipredict || exit 1
export MPIPREDICT_RUNS=$dir/runs/

stats() { # prints: median min max of the numbers on stdin
	sort -g | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; print m, v[1], v[NR] }'
}

echo "bench-collector: PMPI layer cost, $iters iterations, $reps alternating runs of each build"
for spec in pingpong:2 allreduce:2 allreduce:1; do
	loop=${spec%:*} np=${spec#*:}
	: >"$dir/plain.$loop" && : >"$dir/inst.$loop"
	for ((i = 0; i < reps; i++)); do
		for b in plain inst; do
			mpirun -np "$np" --bind-to none "$dir/$b" "$loop" "$iters" >>"$dir/$b.$loop" ||
				{ echo "bench-collector: $b $loop failed"; exit 1; }
		done
	done
	read -r pm pmin pmax < <(stats <"$dir/plain.$loop")
	read -r im imin imax < <(stats <"$dir/inst.$loop")
	awk -v l="$loop/$np" -v pm="$pm" -v pmin="$pmin" -v pmax="$pmax" -v im="$im" -v imin="$imin" -v imax="$imax" 'BEGIN {
		printf "%-11s plain %.3f us (spread %.0f%%)  instrumented %.3f us (spread %.0f%%)  ratio of medians %.3f, of minima %.3f, difference %.0f ns\n",
			l, pm, 100 * (pmax - pmin) / pm, im, 100 * (imax - imin) / im, im / pm, imin / pmin, 1000 * (im - pm) }'
done
# Instructions are immune to the host's load: callgrind counts those of
# the 1-rank loops (warm-up + timed, 1.1 x N iterations) in each build:
# Allreduce of one double (a local copy), and MPI_Send + MPI_Recv of 8 bytes
# to itself (the ping-pong's calls without its waiting, which would make
# the count depend on timing).
if command -v valgrind >/dev/null; then
	n=20000
	for loop in allreduce self; do
		for b in plain inst; do
			valgrind --tool=callgrind --toggle-collect=loop \
				--callgrind-out-file="$dir/cg.$loop.$b" "$dir/$b" $loop $n >/dev/null 2>&1 ||
				{ echo "bench-collector: callgrind $b $loop failed"; exit 1; }
		done
		awk -v n=$n -v l="$loop/1" '/^totals:/ { v[FILENAME ~ /inst$/] = $2 }
			END { c = 1.1 * n; printf "%-11s instructions per iteration: plain %.0f, instrumented %.0f (+%.0f)\n", l, v[0] / c, v[1] / c, (v[1] - v[0]) / c }' \
			"$dir/cg.$loop.plain" "$dir/cg.$loop.inst"
	done
fi
rows=$(grep -c . "$dir/runs/inst.csv" 2>/dev/null)
echo "bench-collector: the instrumented runs wrote $((rows - 1)) rows (expected $((3 * reps + 2)))"
