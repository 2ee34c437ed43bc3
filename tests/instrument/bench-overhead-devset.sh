#!/usr/bin/env bash
# bench-overhead-devset.sh: `make bench-overhead SRC=DIR` (issue 34) runs
# this after the kernels: what the training build (mpipredict-mpicc/-mpicxx)
# costs on the development set's real codes. DIR holds the checkouts by
# folder name, as `make bench-accuracy SRC=DIR` takes it. For each code
# with a recipe in tests/bench/devset/ found in DIR:
#  - builds it twice from the recipe: plain (DEVSET_CC=mpicc,
#    DEVSET_CXX=mpicxx) and through the wrapper (the recipe's default),
#    every compile with -fopt-info-vec-optimized added by a shim named as
#    the compiler (the name matters: XSBench picks flags by it);
#  - counts the loops gcc vectorised in each build (distinct file:line of
#    "loop vectorized" in the code's own files; the rewritten copies keep
#    the line numbers) and
#    lists the ones only the plain build vectorised;
#  - runs the smallest in-range setting of its design at 1 rank (a
#    singleton, no mpirun) under callgrind in both builds: main's
#    instructions minus MPI_Init's and MPI_Finalize's, as the kernels'
#    table counts them (the runtime's set-up and its row at finalize are
#    per run, not per loop iteration).
# Prints one line per code and appends each ratio to $MPP_RATIOS when set
# (bench-overhead.sh's summary then covers the codes too).
# Builds are kept in $MPP_BENCH_OUT (default $MPP_BUILD/bench/overhead);
# MPP_BENCH_REBUILD=0 reuses them.
set -u
: "${MPP_SRC:?}" "${MPP_BUILD:?}" "${SRC:?}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# A singleton under a tool: no OpenMPI component may fork helpers.
export OMPI_MCA_plm=isolated OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMP_NUM_THREADS=1
[ -d "$SRC" ] || { echo "bench-overhead: SRC=$SRC: no such folder" >&2; exit 1; }
devset=$(cd "$SRC" && pwd)
codes='' known=''
for r in "$MPP_SRC"/tests/bench/devset/*.sh; do
	code=$(basename "$r" .sh)
	known="$known $code"
	if [ -d "$devset/$code" ]; then codes="$codes $code"; else echo "$code: no $devset/$code, skipped"; fi
done
[ -n "$codes" ] || { echo "bench-overhead: SRC=$devset holds none of:$known" >&2; exit 1; }
out=${MPP_BENCH_OUT:-$MPP_BUILD/bench/overhead}
mkdir -p "$out"
out=$(cd "$out" && pwd)
export MPIPREDICT_RUNS=$out/runs

# Shims: a compiler of the same name that adds -fopt-info-vec-optimized.
# The plain ones shadow mpicc/mpicxx on PATH (the real ones by absolute
# path); the wrapper's call the real wrapper, which finds the real mpicc.
mkdir -p "$out/shim-plain" "$out/shim-inst"
for c in mpicc mpicxx; do
	real=$(command -v $c) || { echo "bench-overhead: no $c on PATH" >&2; exit 1; }
	printf '#!/bin/sh\nexec %s "$@" -fopt-info-vec-optimized\n' "$real" >"$out/shim-plain/$c"
	printf '#!/bin/sh\nexec %s "$@" -fopt-info-vec-optimized\n' \
		"$MPP_BUILD/bin/mpipredict-$c" >"$out/shim-inst/mpipredict-$c"
	chmod +x "$out/shim-plain/$c" "$out/shim-inst/mpipredict-$c"
done

build() { # code variant: builds into $out/build/<code>/<variant>
	local code=$1 v=$2 dir=$out/build/$1/$2
	if [ "${MPP_BENCH_REBUILD:-1}" = 0 ] && [ -s "$dir.where" ]; then
		return 0
	fi
	rm -rf "$dir" "$dir.where"
	mkdir -p "$dir"
	# In a subshell: a recipe cds and sets variables.
	(
		. "$MPP_SRC/tests/bench/devset/$code.sh" || exit 1
		if [ "$v" = plain ]; then
			export PATH=$out/shim-plain:$PATH DEVSET_CC=mpicc DEVSET_CXX=mpicxx
		else
			# The copy's top stands for the user's checkout: the root
			# of feature names and of the project headers the wrapper
			# rewrites (else the git checkout holding $out would be,
			# e.g. mpipredict's own: miniFE's fem/ headers are then
			# project headers, as in a git checkout of miniFE, but not
			# in a copy under /tmp)
			export PATH=$out/shim-inst:$MPP_BUILD/bin:$PATH MPIPREDICT_SRCROOT=$dir
			unset DEVSET_CC DEVSET_CXX
		fi
		devset_build "$devset/$code" "$dir" &&
			printf '%s\t%s\n' "$DEVSET_EXE" "$DEVSET_RUNDIR" >"$dir.where"
	) >"$dir.log" 2>&1 && [ -x "$(cut -f1 "$dir.where")" ] || {
		tail -20 "$dir.log"
		echo "bench-overhead: building $code ($v) failed (see $dir.log)" >&2
		return 1
	}
}

vectorised() { # log: distinct basename:line of the loops gcc vectorised
	# in the code's own files (not the system's headers, e.g. OpenMPI's C++
	# bindings, the same in both builds)
	grep -E ':[0-9]+:[0-9]+: optimized: loop vectorized' "$1" | grep -v '^/usr/' |
		sed -E 's|^([^ ]*/)?([^/: ]+):([0-9]+):[0-9]+: .*|\2:\3|' | sort -u
}

work_ir() { # out-file rundir binary args...: main minus MPI_Init/Finalize
	local cg=$1 rd=$2
	shift 2
	(cd "$rd" && valgrind --tool=callgrind --toggle-collect=main \
		--callgrind-out-file="$cg" "$@" </dev/null >/dev/null 2>&1)
	callgrind_annotate --inclusive=yes "$cg" 2>/dev/null | awk '
		{ n = $1; gsub(",", "", n) }
		/:main \[/ && !m { m = n }
		/:P?MPI_Init \[/ && n + 0 > i { i = n + 0 }
		/:P?MPI_Finalize \[/ && n + 0 > f { f = n + 0 }
		END { print m - i - f }'
}

echo "== development set ($devset): training build against plain, instructions (callgrind, smallest in-range setting, 1 rank) and vectorised loops (gcc -fopt-info-vec-optimized, distinct file:line); load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %-34s %15s %15s %7s   %9s %9s  %s\n' code setting "Ir plain" "Ir inst" ratio "vec plain" "vec inst" "only plain vectorised"
for code in $codes; do
	r=$MPP_SRC/tests/bench/devset/$code.sh
	build "$code" plain && build "$code" inst || exit 1
	# The smallest in-range setting: ROLE<TAB>PARAMS<TAB>ARGS.
	line=$(. "$r" && devset_design | grep '^train' | head -1)
	line=${line#*$'\t'}
	params=${line%%$'\t'*} args=${line#*$'\t'}
	ir=()
	for v in plain inst; do
		IFS=$'\t' read -r exe rundir <"$out/build/$code/$v.where"
		# shellcheck disable=SC2086
		ir+=("$(MPIPREDICT_APP=$code MPIPREDICT_PARAMS=$params \
			work_ir "$out/build/$code/$v.cg" "$rundir" "$exe" $args)")
	done
	vectorised "$out/build/$code/plain.log" >"$out/build/$code/plain.vec"
	vectorised "$out/build/$code/inst.log" >"$out/build/$code/inst.vec"
	lost=$(comm -23 "$out/build/$code/plain.vec" "$out/build/$code/inst.vec" | tr '\n' ' ')
	awk -v c="$code" -v s="${params:+$params }$args" -v o="${ir[0]}" -v i="${ir[1]}" \
		-v vp="$(wc -l <"$out/build/$code/plain.vec")" -v vi="$(wc -l <"$out/build/$code/inst.vec")" \
		-v l="${lost:-none}" 'BEGIN {
		printf "%-9s %-34s %15d %15d %7.4f   %9d %9d  %s\n", c, s, o, i, (o > 0 ? i / o : 0), vp, vi, l }'
	[ -z "${MPP_RATIOS:-}" ] ||
		awk -v o="${ir[0]}" -v i="${ir[1]}" 'BEGIN { printf "%.6f\n", i / o }' >>"$MPP_RATIOS"
	# The rewriter's notes (files it compiled unchanged) explain a ratio of 1.
	grep -h 'not instrumented' "$out/build/$code/inst.log" | sort -u | sed "s/^/$code: /"
done
echo "callgrind profiles and build logs: $out/build/<code>/{plain,inst}.{cg,log} (callgrind_annotate both to see where the difference is)"
