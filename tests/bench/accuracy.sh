#!/usr/bin/env bash
# make bench-accuracy: how well mpipredict predicts, against baselines and
# the noise floor of this machine, on the four example applications.
#
# Builds each app with mpipredict-cc, runs a design of settings (sizes x
# iterations x 1 and 2 ranks), each REPEATS times, the repeats interleaved
# (every round is a fresh random order of all settings of all apps), then
# tests/bench/accuracy.py trains and predicts on two splits and prints the
# table. Results: $OUT/results.csv, predictions.csv, <app>.svg, runs/.
#
# Environment:
#   MPP_BENCH_DESIGN   full (default, ~110 settings, ~15 min) or quick
#                      (~48 settings, ~5 min)
#   MPP_BENCH_REPEATS  runs per setting (default 3)
#   MPP_BENCH_APPS     apps to run (default: prime jacobi3d is cg)
#   MPP_BENCH_REUSE=1  analyse the runs already in $OUT/runs, run nothing
#   MPP_BENCH_OUT      output folder (default $BUILD/bench/accuracy)
#   MPP_BENCH_MEMORY=0 train without the machine's memory curve (the
#                      memory regime, regress/memory.h): the baseline. By
#                      default mpipredict-calibrate --levels mem measures it
#                      once ($OUT/profile.db, kept with MPP_BENCH_REUSE=1)
#                      and every training store starts from that profile.
#   MPP_BENCH_BETAS    e.g. "0 0.25 0.5 1 1.5": also train with each beta
#                      pinned (mpipredict-train --memory-beta) and print the
#                      parameters path's error at each beside the chosen one
#   SRC=DIR            the development set instead of the example apps
#                      (issue 40): DIR holds checkouts of third-party MPI
#                      codes by folder name (CoMD, hpcg, miniAMR, miniFE,
#                      PENNANT, XSBench);
#                      each with a recipe tests/bench/devset/<name>.sh is
#                      built out of tree with mpipredict-mpicc/-mpicxx and
#                      run at 1 rank: its sizes in the trained range, and
#                      1-2 past it held out (tests/bench/devset/README.md).
#                      MAPE in range is over 5 random 70/30 splits of the
#                      trained range; past the range, trained on all of it.
#                      Output in $BUILD/bench/devset unless MPP_BENCH_OUT.
#   MPP_BENCH_REBUILD=0 with SRC: keep the codes already built in
#                      $OUT/build (building C++ through the rewriter takes
#                      minutes), run the design afresh
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src"
BUILD=${BUILD:-build}
export MPP_SRC=$src MPP_BUILD=$src/$BUILD MPP_TEST_CFLAGS=
. tests/e2e/lib.sh
mode=${MPP_BENCH_DESIGN:-full}
repeats=${MPP_BENCH_REPEATS:-3}
apps=${MPP_BENCH_APPS:-prime jacobi3d is cg}
out=${MPP_BENCH_OUT:-$MPP_BUILD/bench/accuracy}
devset=${SRC:-}
[ -z "$devset" ] || out=${MPP_BENCH_OUT:-$MPP_BUILD/bench/devset}
loglog=$MPP_BUILD/tests/bench/loglog

miss=()
for p in mpipredict-cc mpipredict-train mpipredict-predict; do
	[ -x "$MPP_BUILD/bin/$p" ] || miss+=("$p")
done
[ -x "$loglog" ] || miss+=("$loglog")
if [ ${#miss[@]} -gt 0 ]; then
	echo "bench-accuracy: cannot run, not built: ${miss[*]}" >&2
	exit 1
fi

# The design: per app, sizes and iterations; every pair at 1 and 2 ranks.
declare -A sizes iters
case $mode in
full)
	sizes[prime]="1000000 2000000 3000000 4500000 6000000"
	iters[prime]="1 2"
	sizes[jacobi3d]="64 96 128 160 192"
	iters[jacobi3d]="40 80 160"
	sizes[is]="1000000 2000000 4000000 6000000 8000000"
	iters[is]="5 10 20"
	sizes[cg]="32 48 64 80 96"
	iters[cg]="100 200 300"
	;;
quick)
	sizes[prime]="1000000 2000000 4000000"
	iters[prime]="1 2"
	sizes[jacobi3d]="64 128 192"
	iters[jacobi3d]="40 160"
	sizes[is]="1000000 4000000 8000000"
	iters[is]="5 20"
	sizes[cg]="32 64 96"
	iters[cg]="100 300"
	;;
*)
	echo "bench-accuracy: MPP_BENCH_DESIGN: expected full or quick, got '$mode'" >&2
	exit 1
	;;
esac

# The development set (SRC=DIR): build each code found, then run every
# setting of every code REPEATS times, interleaved as below.
held=()
if [ -n "$devset" ]; then
	[ -d "$devset" ] || { echo "bench-accuracy: SRC=$devset: no such folder" >&2; exit 1; }
	devset=$(cd "$devset" && pwd)
	apps=
	for r in tests/bench/devset/*.sh; do
		code=$(basename "$r" .sh)
		[ -d "$devset/$code" ] || { echo "devset: no $devset/$code, skipped"; continue; }
		apps="$apps $code"
		DEVSET_SIZE=$(. "$r" && echo "$DEVSET_SIZE")
		nheld=$(. "$r" && devset_design | grep -c '^held')
		held+=(--held "$code=$DEVSET_SIZE:$nheld")
		DEVSET_TRAIN=$(. "$r" && echo "${DEVSET_TRAIN:-}")
		[ -z "$DEVSET_TRAIN" ] || held+=(--train-args "$code=$DEVSET_TRAIN")
	done
	[ -n "$apps" ] || { echo "bench-accuracy: SRC=$devset holds none of: $(ls tests/bench/devset/*.sh | xargs -n1 basename | sed 's/\.sh$//' | tr '\n' ' ')" >&2; exit 1; }
fi
if [ -n "$devset" ] && [ "${MPP_BENCH_REUSE:-0}" != 1 ]; then
	if [ "${MPP_BENCH_REBUILD:-1}" = 0 ]; then
		find "$out" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
	else
		rm -rf "$out"
	fi
	mkdir -p "$out/build" "$out/runs"
	settings=()
	for code in $apps; do
		# A design line is ROLE<TAB>PARAMS<TAB>ARGS with PARAMS often empty:
		# split by hand (read with IFS=tab merges empty fields).
		while IFS= read -r line; do
			settings+=("$code"$'\t'"$line")
		done < <(. "tests/bench/devset/$code.sh" && devset_design)
		if [ "${MPP_BENCH_REBUILD:-1}" = 0 ] && [ -s "$out/build/$code.where" ]; then
			echo "build: $code kept from $out/build/$code"
			continue
		fi
		echo "build: $code from $devset/$code (log: $out/build/$code.log)"
		# In a subshell: a recipe cds and sets variables.
		(. "tests/bench/devset/$code.sh" && mkdir -p "$out/build/$code" &&
			devset_build "$devset/$code" "$out/build/$code" &&
			printf '%s\t%s\n' "$DEVSET_EXE" "$DEVSET_RUNDIR" >"$out/build/$code.where") \
			>"$out/build/$code.log" 2>&1 && [ -x "$(cut -f1 "$out/build/$code.where")" ] ||
			{ tail -20 "$out/build/$code.log"; echo "bench-accuracy: building $code failed (see $out/build/$code.log)" >&2; exit 1; }
	done
	total=$((${#settings[@]} * repeats))
	echo "design (development set): ${#settings[@]} settings x $repeats repeats = $total runs at 1 rank, interleaved"
	echo "load before the runs: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/load.txt"
	k=0
	start=$(date +%s)
	printf 'round\tapp\trole\tparams\targs\texit\n' >"$out/runlog.tsv"
	for r in $(seq "$repeats"); do
		while IFS= read -r line; do
			code=${line%%$'\t'*} line=${line#*$'\t'}
			role=${line%%$'\t'*} line=${line#*$'\t'}
			params=${line%%$'\t'*} args=${line#*$'\t'}
			IFS=$'\t' read -r exe rundir <"$out/build/$code.where"
			# shellcheck disable=SC2086
			(cd "$rundir" && OMP_NUM_THREADS=1 MPIPREDICT_APP=$code \
				MPIPREDICT_PARAMS=$params MPIPREDICT_RUNS=$out/runs/ \
				timeout -k 5 300 mpirun -np 1 "$exe" $args \
				</dev/null >/dev/null 2>>"$out/runs.err")
			printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$code" "$role" "$params" "$args" "$?" >>"$out/runlog.tsv"
			k=$((k + 1))
			if [ $((k % 10)) = 0 ] || [ $k = "$total" ]; then
				el=$(($(date +%s) - start))
				echo "  $k/$total runs, ${el}s, about $((el * (total - k) / k))s left"
			fi
		done < <(printf '%s\n' "${settings[@]}" |
			shuf --random-source=<(yes "round $r"))
	done
	echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg), $(($(date +%s) - start)) s of runs" |
		tee -a "$out/load.txt"
	failed=$(awk -F'\t' 'NR > 1 && $6 != 0' "$out/runlog.tsv" | wc -l)
	[ "$failed" = 0 ] || echo "bench-accuracy: $failed runs failed (see $out/runlog.tsv, $out/runs.err)"
elif [ "${MPP_BENCH_REUSE:-0}" != 1 ]; then
	rm -rf "$out"
	mkdir -p "$out/bin" "$out/runs"
	settings=()
	for app in $apps; do
		[ -n "${sizes[$app]:-}" ] || { echo "bench-accuracy: unknown app $app" >&2; exit 1; }
		echo "build: mpipredict-cc mpicc -O2 tests/apps/$app.c"
		(cd "$out/bin" && e2e_instrument "$app" "$out/bin/$app") >"$out/bin/$app.log" 2>&1 ||
			{ cat "$out/bin/$app.log"; echo "bench-accuracy: mpipredict-cc failed for $app" >&2; exit 1; }
		for n in ${sizes[$app]}; do
			for i in ${iters[$app]}; do
				for np in 1 2; do
					settings+=("$app $np -n $n -i $i")
				done
			done
		done
	done
	total=$((${#settings[@]} * repeats))
	echo "design ($mode): ${#settings[@]} settings x $repeats repeats = $total runs, interleaved"
	# Other work on the machine shows up as noise; say how busy it was.
	echo "load before the runs: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$out/load.txt"
	k=0
	start=$(date +%s)
	printf 'round\tapp\tnprocs\targs\texit\n' >"$out/runlog.tsv"
	for r in $(seq "$repeats"); do
		# A fresh order each round, the same on every machine.
		while IFS= read -r s; do
			set -- $s
			MPIPREDICT_RUNS=$out/runs/ timeout -k 5 300 \
				mpirun -np "$2" "$out/bin/$1" "${@:3}" \
				</dev/null >/dev/null 2>>"$out/runs.err"
			printf '%s\t%s\t%s\t%s\t%s\n' "$r" "$1" "$2" "${*:3}" "$?" >>"$out/runlog.tsv"
			k=$((k + 1))
			if [ $((k % 25)) = 0 ] || [ $k = "$total" ]; then
				el=$(($(date +%s) - start))
				echo "  $k/$total runs, ${el}s, about $((el * (total - k) / k))s left"
			fi
		done < <(printf '%s\n' "${settings[@]}" |
			shuf --random-source=<(yes "round $r"))
	done
	echo "load after the runs: $(cut -d' ' -f1-3 /proc/loadavg), $(($(date +%s) - start)) s of runs" |
		tee -a "$out/load.txt"
	failed=$(awk -F'\t' 'NR > 1 && $5 != 0' "$out/runlog.tsv" | wc -l)
	[ "$failed" = 0 ] || echo "bench-accuracy: $failed runs failed (see $out/runlog.tsv, $out/runs.err)"
fi

# The machine profile's memory curve, measured with the node idle.
profile=()
if [ "${MPP_BENCH_MEMORY:-1}" != 0 ]; then
	if [ ! -s "$out/profile.db" ] || [ "${MPP_BENCH_REUSE:-0}" != 1 ]; then
		rm -f "$out/profile.db"*
		OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
			mpirun --bind-to none -np "$(nproc)" "$MPP_BUILD/bin/mpipredict-calibrate" \
			--db "$out/profile.db" --levels mem >/dev/null ||
			{ echo "bench-accuracy: mpipredict-calibrate --levels mem failed" >&2; exit 1; }
	fi
	profile=(--profile-db "$out/profile.db" --betas "${MPP_BENCH_BETAS:-}")
fi
/usr/bin/python3 tests/bench/accuracy.py --runs "$out/runs" --out "$out" \
	--bin "$MPP_BUILD/bin" --loglog "$loglog" --apps "$apps" "${profile[@]}" \
	"${held[@]}" || exit 1
cat "$out/load.txt" 2>/dev/null
echo
echo "results: $out/results.csv, $out/predictions.csv, plots: $(ls "$out"/*.svg 2>/dev/null | tr '\n' ' ')"
