#!/usr/bin/env bash
# bench-cxx.sh: `make bench-instrument-cxx`, the C++ figures of issue 20.
# Prints, each against a baseline measured in the same run:
#  1. rewrite speed of mpipredict-instrument on a generated 20,000-line C++
#     MPI file (bench/gen-big-cxx.sh: class templates, lambdas, range-for,
#     MPI calls in templates), hyperfine median of 5 after a warm-up, in
#     lines/s of wall and of CPU time, against `clang++ -fsyntax-only` on
#     the same file with the same flags;
#  2. instructions executed by the C++ kernels of bench/kernels.cpp (a
#     templated 2-D stencil, range-for over std::vector, lambdas passed to
#     a loop helper), built with mpicxx -O2 and with mpipredict-mpicxx -O2
#     (callgrind, main minus MPI_Init/MPI_Finalize: deterministic whatever
#     the load);
#  3. wall and CPU time of the same, MPP_BENCH_ROUNDS (default 5)
#     interleaved rounds, medians and their ratio.
# Needs MPP_SRC and MPP_BUILD (module.mk passes them).
set -eu
: "${MPP_SRC:?}" "${MPP_BUILD:?}"
rounds=${MPP_BENCH_ROUNDS:-5}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
work=$(mktemp -d "${TMPDIR:-/tmp}/mpp-bench-cxx.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
B=$MPP_SRC/tests/instrument/bench

echo "== C++ rewrite speed (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
"$B/gen-big-cxx.sh" 20000 >big.cpp
lines=$(wc -l <big.cpp)
mpiflags=$(mpicxx -showme:compile)
hyperfine -N --warmup 1 --runs 5 --export-json speed.json \
	"$MPP_BUILD/bin/mpipredict-instrument -o out big.cpp -- -std=c++17 $mpiflags" \
	"clang++ -std=c++17 -fsyntax-only $mpiflags big.cpp" >/dev/null
jq -r --argjson l "$lines" '.results | (.[0]) as $r | (.[1]) as $b |
	"mpipredict-instrument: \($l) lines, median \($r.median * 1000 | floor) ms wall " +
	"(spread \(($r.max - $r.min) / $r.median * 100 | floor) %), " +
	"\($l / $r.median | floor) lines/s wall, \($l / ($r.user + $r.system) | floor) lines/s CPU",
	"clang++ -fsyntax-only (baseline): median \($b.median * 1000 | floor) ms wall, " +
	"\($l / $b.median | floor) lines/s wall, \($l / ($b.user + $b.system) | floor) lines/s CPU",
	"ratio rewrite / parse-only: wall \($r.median / $b.median * 100 | round / 100), " +
	"CPU \(($r.user + $r.system) / ($b.user + $b.system) * 100 | round / 100)"' speed.json
echo "counters and sites: $(($(wc -l <out/features.tsv) - 1)) manifest rows"

cp "$B/kernels.cpp" .
ln -s "$MPP_BUILD/bin/mpipredict-cc" mpipredict-mpicxx
mpicxx -O2 -std=c++17 kernels.cpp -o kernels.orig
./mpipredict-mpicxx -O2 -std=c++17 kernels.cpp -o kernels.inst 2>notes
mkdir -p runs
export MPIPREDICT_RUNS=$work/runs

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
for k in "t templated stencil" "v range-for over std::vector" "l lambda to a loop helper"; do
	o=$(work_ir ./kernels.orig 1 "${k%% *}")
	i=$(work_ir ./kernels.inst 1 "${k%% *}")
	awk -v n="${k#* }" -v o="$o" -v i="$i" 'BEGIN { printf "%-30s %12d -> %12d  ratio %.4f\n", n, o, i, i / o }'
done

echo "== wall and CPU time, $rounds interleaved rounds (load average: $(cut -d' ' -f1-3 /proc/loadavg))"
for k in t v l; do
	: >"$k.orig.t"
	: >"$k.inst.t"
	for r in $(seq 1 "$rounds"); do
		for v in $([ $((r % 2)) = 1 ] && echo "orig inst" || echo "inst orig"); do
			/usr/bin/time -f "%e %U %S" -a -o "$k.$v.t" "./kernels.$v" 20 "$k" >/dev/null
		done
	done
	awk -v name="kernel $k" '
		function med(a, k,  i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
		FNR == 1 { f++ }
		f == 1 { ow[++no] = $1; oc[no] = $2 + $3 } f == 2 { iw[++ni] = $1; ic[ni] = $2 + $3 }
		END {
			printf "%-10s wall %6.2f/%6.2f s = %.3f (min %.3f)  cpu %6.2f/%6.2f s = %.3f\n",
				name, med(ow, no), med(iw, ni), med(iw, ni) / med(ow, no), iw[1] / ow[1],
				med(oc, no), med(ic, ni), med(ic, ni) / med(oc, no)
		}' "$k.orig.t" "$k.inst.t"
done
