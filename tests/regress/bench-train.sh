#!/usr/bin/env bash
# make bench-train: one training on 10,000 runs x 1,000 features (synthetic,
# gen-runs), three times, interleaved with a baseline of the same size:
# mpipredict-predict over the same file (reading and parsing the CSV and
# applying a model, the floor any training pays). Prints medians and spread
# of wall time, CPU time and peak RSS (/usr/bin/time -v), the ratio to the
# baseline, and the goal: under 10 s and 1 GiB.
set -eu
build=${MPP_BUILD:?}
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-train.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$build/tests/regress/gen-runs" --runs 10000 --features 1000 --seed 11 >runs.csv
echo "bench-train: 10000 runs x 1000 features, $(($(stat -c %s runs.csv) / 1048576)) MiB of CSV; $(nproc) CPUs, load $(cut -d' ' -f1 /proc/loadavg)"
measure() { # label command...
	local label=$1; shift
	/usr/bin/time -v "$@" >/dev/null 2>time.txt
	awk -v l="$label" -F': ' '
		/Elapsed/ { n = split($2, t, ":"); w = 0; for (i = 1; i <= n; i++) w = w * 60 + t[i] }
		/User time/ { u = $2 } /System time/ { s = $2 }
		/Maximum resident/ { r = $2 / 1024 }
		END { printf "%s %.2f %.2f %.0f\n", l, w, u + s, r }' time.txt >>results.txt
}
: >results.txt
for i in 1 2 3; do
	rm -f m.db
	measure train "$build/bin/mpipredict-train" --db m.db runs.csv
	measure base "$build/bin/mpipredict-predict" --csv --db m.db --app stencil --features runs.csv
done
awk '
	{ w[$1, ++n[$1]] = $2; c[$1, n[$1]] = $3; r[$1, n[$1]] = $4 }
	function med(a, l,   x, y, z) { x = a[l, 1]; y = a[l, 2]; z = a[l, 3]
		return x < y ? (y < z ? y : (x < z ? z : x)) : (x < z ? x : (y < z ? z : y)) }
	function lo(a, l) { return a[l,1] < a[l,2] ? (a[l,1] < a[l,3] ? a[l,1] : a[l,3]) : (a[l,2] < a[l,3] ? a[l,2] : a[l,3]) }
	function hi(a, l) { return a[l,1] > a[l,2] ? (a[l,1] > a[l,3] ? a[l,1] : a[l,3]) : (a[l,2] > a[l,3] ? a[l,2] : a[l,3]) }
	END {
		for (k = 0; k < 2; k++) {
			l = k ? "base" : "train"
			printf "%-6s wall %6.2f s (%.2f-%.2f)  cpu %6.2f s (%.2f-%.2f)  peak RSS %5.0f MiB (%.0f-%.0f)\n",
				l, med(w, l), lo(w, l), hi(w, l), med(c, l), lo(c, l), hi(c, l), med(r, l), lo(r, l), hi(r, l)
		}
		printf "train / baseline: wall %.1fx, cpu %.1fx\n", med(w, "train") / med(w, "base"), med(c, "train") / med(c, "base")
		ok = med(w, "train") < 10 && med(r, "train") < 1024
		printf "goal (< 10 s wall, < 1 GiB): %s\n", ok ? "met" : "NOT met"
	}' results.txt
load=$(cut -d' ' -f1 /proc/loadavg)
awk -v l="$load" -v n="$(nproc)" 'BEGIN { if (l > n) printf "note: load %s on %d CPUs inflates wall times; CPU time and the ratio are the steadier figures\n", l, n }'
