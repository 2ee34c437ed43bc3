#!/usr/bin/env bash
# bench.sh: `make bench-instrument`. Prints two figures, each as a ratio
# against a baseline measured in the same run:
#  1. rewrite speed of mpipredict-instrument on a generated 20,000-line MPI
#     file (hyperfine, median of 7 after a warm-up), in lines/s of wall
#     time and of CPU time, against `clang -fsyntax-only` on the same file;
#  2. run-time overhead of the counters at -O2: each program built plain
#     (mpicc -O2) and with `mpipredict-cc mpicc -O2`, run in interleaved
#     pairs (order alternating), MPP_BENCH_ROUNDS rounds (default 9);
#     prints the median wall times (/usr/bin/time), their ratio, the ratio
#     of the minima, the spread (max - min) / median of each, and the same
#     ratios for CPU time (user + sys), which a loaded machine disturbs
#     less than wall time;
#  3. instructions executed by the same programs' own work (callgrind),
#     orig and inst: a deterministic view of the counters' cost.
# Needs MPP_SRC and MPP_BUILD (module.mk passes them).
set -eu
: "${MPP_SRC:?}" "${MPP_BUILD:?}"
rounds=${MPP_BENCH_ROUNDS:-9}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d "${TMPDIR:-/tmp}/mpp-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
B=$MPP_SRC/tests/instrument/bench

echo "== rewrite speed (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
"$B/gen-big.sh" 20000 >big.c
lines=$(wc -l <big.c)
mpiflags=$(mpicc -showme:compile)
hyperfine -N --warmup 1 --runs 7 --export-json speed.json \
	"$MPP_BUILD/bin/mpipredict-instrument -o out big.c" \
	"clang -fsyntax-only $mpiflags big.c" >/dev/null
jq -r --argjson l "$lines" '.results | (.[0]) as $r | (.[1]) as $b |
	"mpipredict-instrument: \($l) lines, median \($r.median * 1000 | floor) ms wall " +
	"(spread \(($r.max - $r.min) / $r.median * 100 | floor) %), " +
	"\($l / $r.median | floor) lines/s wall, \($l / ($r.user + $r.system) | floor) lines/s CPU",
	"clang -fsyntax-only (baseline): median \($b.median * 1000 | floor) ms wall, " +
	"\($l / $b.median | floor) lines/s wall",
	"ratio rewrite / parse-only: \($r.median / $b.median * 100 | round / 100)"' speed.json
echo "sites: $(($(wc -l <out/features.tsv) - 1)) manifest rows"

echo "== counter overhead at -O2 ($rounds interleaved rounds; load average: $(cut -d' ' -f1-3 /proc/loadavg))"
mkdir -p runs
export MPIPREDICT_RUNS=$work/runs
build() { # name source...
	local n=$1
	shift
	mpicc -O2 -std=c11 -D_GNU_SOURCE "$@" -o "$n.orig" -lm
	"$MPP_BUILD/bin/mpipredict-cc" mpicc -O2 -std=c11 -D_GNU_SOURCE "$@" -o "$n.inst" -lm
}
cp "$B/kernels.c" .
build kernels kernels.c
for a in prime jacobi3d cg is; do build "$a" "$MPP_SRC/tests/apps/$a.c"; done
measure() { # name args...: prints one line of figures
	local n=$1 r v
	shift
	: >"$n.orig.t"
	: >"$n.inst.t"
	for r in $(seq 1 "$rounds"); do
		for v in $( [ $((r % 2)) = 1 ] && echo "orig inst" || echo "inst orig"); do
			/usr/bin/time -f "%e %U %S" -a -o "$n.$v.t" "./$n.$v" "$@" >/dev/null
		done
	done
	awk -v name="$n $*" '
		function med(a, k,  i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
		FNR == 1 { f++ }
		f == 1 { ow[++no] = $1; oc[no] = $2 + $3 } f == 2 { iw[++ni] = $1; ic[ni] = $2 + $3 }
		END {
			mow = med(ow, no); miw = med(iw, ni); moc = med(oc, no); mic = med(ic, ni)
			printf "%-24s wall %6.2f/%6.2f s = %.3f (min %.3f, spread %2.0f/%2.0f%%)  cpu %6.2f/%6.2f s = %.3f (min %.3f)\n",
				name, mow, miw, miw / mow, iw[1] / ow[1], (ow[no] - ow[1]) / mow * 100,
				(iw[ni] - iw[1]) / miw * 100, moc, mic, mic / moc, ic[1] / oc[1]
		}' "$n.orig.t" "$n.inst.t"
}
echo "program                  wall orig/inst median = ratio            cpu (user+sys) orig/inst median = ratio"
measure kernels 20 r
measure kernels 30 b
measure kernels 80 s
measure kernels 40 i
measure prime -n 4000000
measure jacobi3d -n 64 -i 100
measure cg -n 32 -i 1000
measure is -n 8000000 -i 4

# Instructions executed (callgrind, deterministic whatever the load) by
# the program's own work: main minus MPI_Init and MPI_Finalize, which the
# runtime extends with its one-off start and its final reduction.
echo "== instructions executed outside MPI_Init/MPI_Finalize (callgrind), orig -> inst"
work_ir() { # binary args...
	valgrind --tool=callgrind --toggle-collect=main --callgrind-out-file=cg.out "$@" >/dev/null 2>&1
	callgrind_annotate --inclusive=yes cg.out 2>/dev/null | awk '
		{ n = $1; gsub(",", "", n) }
		/:main \[/ && !m { m = n }
		/:P?MPI_Init \[/ && n + 0 > i { i = n + 0 }
		/:P?MPI_Finalize \[/ && n + 0 > f { f = n + 0 }
		END { print m - i - f }'
}
ir() { # name args...
	local n=$1 o i
	shift
	o=$(work_ir "./$n.orig" "$@")
	i=$(work_ir "./$n.inst" "$@")
	awk -v n="$n $*" -v o="$o" -v i="$i" 'BEGIN { printf "%-24s %12d -> %12d  ratio %.4f\n", n, o, i, i / o }'
}
ir kernels 1 r
ir kernels 1 b
ir kernels 1 s
ir kernels 1 i
ir prime -n 100000
ir jacobi3d -n 24 -i 10
ir cg -n 12 -i 50
ir is -n 200000 -i 2
