#!/usr/bin/env bash
# bench-simulate SRC=DIR: mpipredict-simulate on the development set's real
# third-party codes (tests/bench/devset/: their build recipes and decks),
# not on our own example apps. Per code (CODES, default "PENNANT miniFE"):
#
#   built twice by the recipe's devset_build, unchanged: once with our
#           wrapper (trace mode) and once for SMPI (smpicc/smpicxx and
#           mpp-smpitrace.o), both with -g (call sites); a shim folder on
#           PATH gives the recipe's compiler names those two meanings;
#   traced: the recipe's `train` settings but the largest, at 1 and 2
#           ranks, REPS (3) runs each;
#   predicted and measured (REPS runs each, interleaved with the traces:
#           round i traces every input once and runs the target once):
#     A  2 ranks at the largest traced input from the 1-rank traces only
#        (truth: the 2-rank traces of that input, never given to A);
#     A' 2 ranks at the larger input (the largest `train` setting) from
#        the 1-rank traces only;
#     B  2 ranks at the larger input from the 1- and 2-rank traces;
#     C  4 ranks on one node at the larger input from the 1- and 2-rank
#        traces: on this machine's 2 cores the truth is time-sliced, and
#        so is the prediction (the profile's node has 2 cores); ranks
#        column "4ts";
#   predicted only: 4, 16, 64 ranks (2 per node) at the larger input from
#        the 1- and 2-rank traces (this machine has 2 cores: more ranks
#        would be oversubscribed and are not measured); the prediction, its
#        warnings, and the prediction's wall time and peak memory
#        (/usr/bin/time -v: the largest process of the tree, smpirun's).
# Each prediction's interval (interval_s) is in the tables; for A, A' and
# B `inside` says whether the median truth fell in it and how many of the
# REPS walls did.
# The truth is the trace's wall (MPI_Init to MPI_Finalize, slowest rank,
# median of REPS), as tests/simulate/bench.sh takes it. The profile:
# $MPP_PROFILE (mpipredict-calibrate's JSON), else the test profile.
# Results: $MPP_BUILD/bench/simulate-devset/ (table.txt, ranks.txt, every
# trace, prediction JSON and stderr).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
[ -n "${SRC:-}" ] && [ -d "$SRC" ] ||
	{ echo "usage: make bench-simulate SRC=DIR (DIR holds the devset checkouts)" >&2; exit 1; }
SRC=$(cd "$SRC" && pwd)
export MPP_SRC=$src MPP_BUILD=${MPP_BUILD:-$src/build}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_mpi_yield_when_idle=1 OMP_NUM_THREADS=1
out=$MPP_BUILD/bench/simulate-devset
# MPP_BENCH_REBUILD=0 keeps the builds of an earlier run (as accuracy.sh)
if [ "${MPP_BENCH_REBUILD:-1}" = 0 ]; then rm -rf "$out"/*/tr "$out"/*/*.json "$out"/*/*.err "$out"/*/*.time
else rm -rf "$out"; fi
mkdir -p "$out" && cd "$out" || exit 1
rm -f inside.txt
. "$src/tests/simulate/lib.sh"
if [ -n "${MPP_PROFILE:-}" ]; then cp "$MPP_PROFILE" profile.json; pname=$MPP_PROFILE
else write_profile profile.json; pname="test profile (tests/simulate/lib.sh)"; fi
REPS=${REPS:-3}
# A design line is ROLE<TAB>PARAMS<TAB>ARGS with PARAMS often empty: split
# by hand (read with IFS=tab merges empty fields: miniFE ran without its
# arguments).
split() {
	par_=${1#*$'\t'}
	args_=${par_#*$'\t'}
	par_=${par_%%$'\t'*}
}
median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# The recipes call mpipredict-mpicc/-mpicxx by name. Two shim folders:
# "real" adds -g to our wrapper; "smpi" is smpicc/smpicxx with -g and, when
# linking (no -c/-E/-S/-M), the trace hook mpp-smpitrace.o.
mkdir -p shim/real shim/smpi
for l in c cxx; do
	printf '#!/bin/sh\nexec %s -g "$@"\n' "$MPP_BUILD/bin/mpipredict-mpi$l" >shim/real/mpipredict-mpi$l
	cat >shim/smpi/mpipredict-mpi$l <<EOF
#!/bin/sh
for a; do case \$a in -c|-E|-S|-M|-MM) exec smpi$l -g "\$@";; esac; done
exec smpi$l -g "\$@" "$MPP_BUILD/lib/mpp-smpitrace.o"
EOF
done
chmod +x shim/*/*

echo "bench-simulate SRC=$SRC: $(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg), profile: $pname, $REPS runs each (median)"
printf '%-8s %-2s %-22s %-6s %5s %9s %7s %9s %7s %9s %7s %9s %7s %8s %-17s %-7s %s\n' code id input traced ranks measured spread simulate err no_resid err plainSMPI err pred_wall interval inside warnings >table.txt
cat table.txt
printf '%-8s %-22s %5s %9s %9s %9s %9s %10s %9s %-17s %s\n' code input ranks simulate no_resid residual plainSMPI wall_s maxrss_MB interval 'extrapolated / warnings' >ranks.txt
row() { # code id input traced ranks "walls..." json errfile: the
	# measured median, and the walls' spread (max - min) / median
	local w m sp
	m=$(echo "$6" | tr ' ' '\n' | median)
	sp=$(echo "$6" | tr ' ' '\n' | sort -g | awk -v m="$m" 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f%%", 100 * (hi - lo) / m }')
	w=$(grep -c '^.*warning:' "$8" 2>/dev/null)
	awk -v c="$1" -v i="$2" -v inp="$3" -v t="$4" -v r="$5" -v m="$m" -v sp="$sp" \
	    -v s="$(jq -r '.predicted_s // "nan"' "$7" 2>/dev/null)" \
	    -v nr="$(jq -r '.simulated_s // "nan"' "$7" 2>/dev/null)" \
	    -v b="$(jq -r '.plain_smpi_s // "nan"' "$7" 2>/dev/null)" \
	    -v pw="$(jq -r '(.smpi_run_wall_s // 0) + (.replay_wall_s // 0)' "$7" 2>/dev/null)" -v w="${w:-0}" \
	    -v iv="$(jq -r '.interval_s // [0, 0] | "\(.[0]) \(.[1])"' "$7" 2>/dev/null)" -v ws="$6" \
	    'function e(x, y) { return y > 0 && x == x + 0 ? 100 * (x - y) / y : 0 }
	    BEGIN { split(iv, I, " "); n = split(ws, W, " "); k = 0
	      for (q = 1; q <= n; q++) k += W[q] >= I[1] && W[q] <= I[2]
	      printf "%-8s %-2s %-22s %-6s %5s %9.4f %7s %9.4f %6.1f%% %9.4f %6.1f%% %9.4f %6.1f%% %8.2f %7.4f-%-9.4f %-7s %s\n",
	      c, i, inp, t, r, m, sp, s, e(s, m), nr, e(nr, m), b, e(b, m), pw, I[1], I[2],
	      (m >= I[1] && m <= I[2] ? "y " : "n ") k "/" n, w
	      print (m >= I[1] && m <= I[2]), k, n >>"inside.txt" }' | tee -a table.txt
}

for code in ${CODES:-PENNANT miniFE}; do
	[ -d "$SRC/$code" ] || { echo "$code: no checkout in $SRC, skipped"; continue; }
	unset -f devset_build devset_design
	unset DEVSET_EXE DEVSET_RUNDIR
	# shellcheck disable=SC1090
	. "$src/tests/bench/devset/$code.sh"
	if [ "${MPP_BENCH_REBUILD:-1}" != 0 ] || [ ! -s "$out/$code/smpi.txt" ]; then
		rm -rf "${out:?}/$code" && mkdir -p "$out/$code/real" "$out/$code/smpi"
		(PATH="$out/shim/real:$MPP_BUILD/bin:$PATH" devset_build "$SRC/$code" "$out/$code/real" \
		  >"$out/$code/build-real.log" 2>&1 && echo "$DEVSET_EXE $DEVSET_RUNDIR" >"$out/$code/real.txt") &&
		(PATH="$out/shim/smpi:$MPP_BUILD/bin:$PATH" devset_build "$SRC/$code" "$out/$code/smpi" \
		  >"$out/$code/build-smpi.log" 2>&1 && echo "$DEVSET_EXE" >"$out/$code/smpi.txt") ||
			{ echo "$code: build failed (see $out/$code/build-*.log)"; continue; }
	fi
	read -r exe rundir <"$out/$code/real.txt"
	read -r sexe <"$out/$code/smpi.txt"
	# the smpi build's own decks (the recipe writes them under its WORK)
	srundir=${rundir/#$out\/$code\/real/$out/$code/smpi}
	mapfile -t lines < <(devset_design | awk -F'\t' '$1 == "train"')
	n=${#lines[@]}
	[ "$n" -ge 3 ] || { echo "$code: fewer than 3 train settings"; continue; }
	tr=$out/$code/tr
	mkdir -p "$tr"
	export PATH="$MPP_BUILD/bin:$PATH"
	for i in $(seq "$REPS"); do
		for k in $(seq $((n - 1))); do
			split "${lines[k - 1]}"; par=$par_ args=$args_
			for np in 1 2; do
				# shellcheck disable=SC2086
				(cd "$rundir" && MPIPREDICT_PARAMS="$par" MPIPREDICT_TRACE=$tr/t$k-$np-$i \
				  mpirun -np $np "$exe" $args >/dev/null 2>&1) || echo "$code: traced run $k at $np failed"
			done
		done
		split "${lines[n - 1]}"; par=$par_ args=$args_
		# shellcheck disable=SC2086
		(cd "$rundir" && MPIPREDICT_PARAMS="$par" MPIPREDICT_TRACE=$tr/m-$i \
		  mpirun -np 2 "$exe" $args >/dev/null 2>&1) || echo "$code: target run failed"
		# shellcheck disable=SC2086
		(cd "$rundir" && MPIPREDICT_PARAMS="$par" MPIPREDICT_TRACE=$tr/m4-$i \
		  mpirun --oversubscribe -np 4 "$exe" $args >/dev/null 2>&1) || echo "$code: target run at 4 failed"
	done
	one=() both=()
	for d in "$tr"/t*-1-*; do one+=(--train "$d"); done
	for d in "$tr"/t*-*; do both+=(--train "$d"); done
	pred() { # name ranks nodes params args... (trains in T)
		local nm=$1 np=$2 nd=$3 par=$4
		shift 4
		# shellcheck disable=SC2086
		(cd "$srundir" && MPIPREDICT_PARAMS="$par" /usr/bin/time -v -o "$out/$code/$nm.time" \
		  mpipredict-simulate predict --profile "$out/profile.json" "${T[@]}" \
		  --ranks "$np" --nodes "$nd" --json -- "$sexe" "$@" \
		  >"$out/$code/$nm.json" 2>"$out/$code/$nm.err") ||
			echo "$code $nm: predict failed: $(grep -v '^\s' "$out/$code/$nm.err" | tail -2)"
	}
	split "${lines[n - 2]}"; lpar=$par_ largs=$args_
	split "${lines[n - 1]}"; tpar=$par_ targs=$args_
	T=("${one[@]}")
	# shellcheck disable=SC2086
	pred A 2 1 "$lpar" $largs
	# shellcheck disable=SC2086
	pred A1 2 1 "$tpar" $targs
	T=("${both[@]}")
	# shellcheck disable=SC2086
	pred B 2 1 "$tpar" $targs
	# shellcheck disable=SC2086
	pred C 4 1 "$tpar" $targs
	ma=$(for i in $(seq "$REPS"); do wall_of "$tr/t$((n - 1))-2-$i"; done | tr '\n' ' ')
	mb=$(for i in $(seq "$REPS"); do wall_of "$tr/m-$i"; done | tr '\n' ' ')
	row "$code" A "$largs $lpar" 1 2 "${ma% }" "$code/A.json" "$code/A.err"
	row "$code" "A'" "$targs $tpar" 1 2 "${mb% }" "$code/A1.json" "$code/A1.err"
	row "$code" B "$targs $tpar" "1,2" 2 "${mb% }" "$code/B.json" "$code/B.err"
	mc=$(for i in $(seq "$REPS"); do wall_of "$tr/m4-$i"; done | tr '\n' ' ')
	row "$code" C "$targs $tpar" "1,2" 4ts "${mc% }" "$code/C.json" "$code/C.err"
	for np in ${BIG_RANKS:-4 16 64}; do
		# shellcheck disable=SC2086
		pred r$np "$np" $((np / 2)) "$tpar" $targs
		awk -v c="$code" -v inp="$targs $tpar" -v r="$np" \
		    -v s="$(jq -r '.predicted_s // "nan"' "$code/r$np.json" 2>/dev/null)" \
		    -v nr="$(jq -r '.simulated_s // "nan"' "$code/r$np.json" 2>/dev/null)" \
		    -v rs="$(jq -r '.residual_s // "nan"' "$code/r$np.json" 2>/dev/null)" \
		    -v b="$(jq -r '.plain_smpi_s // "nan"' "$code/r$np.json" 2>/dev/null)" \
		    -v w="$(awk -F': ' '/Elapsed \(wall/ { n = split($2, t, ":"); s = 0; for (i = 1; i <= n; i++) s = s * 60 + t[i]; print s }' "$code/r$np.time")" \
		    -v m="$(awk -F': ' '/Maximum resident/ { print $2 / 1024 }' "$code/r$np.time")" \
		    -v iv="$(jq -r '.interval_s // [0, 0] | "\(.[0]) \(.[1])"' "$code/r$np.json" 2>/dev/null)" \
		    -v x="x$(jq -r '.extrapolated_ranks // "-"' "$code/r$np.json" 2>/dev/null)$(jq -r 'if .capped then ", capped" else "" end' "$code/r$np.json" 2>/dev/null); $(grep -c 'warning:' "$code/r$np.err") warning(s)" \
		    'BEGIN { split(iv, I, " "); printf "%-8s %-22s %5s %9.4f %9.4f %9.4f %9.4f %10.2f %9.0f %7.4f-%-9.4f %s\n", c, inp, r, s, nr, rs, b, w, m, I[1], I[2], x }' >>ranks.txt
	done
done
echo "never-run configurations (measured: median wall of $REPS runs at 2 ranks on 2 cores; spread: (max - min) / median):"
cat table.txt
awk '{ y += $1; k += $2; n += $3; t++ } END { printf "truth inside the interval: %d of %d (walls: %d of %d)\n", y, t, k, n }' inside.txt 2>/dev/null
echo "larger rank counts (not measured: 2 cores), 2 ranks per node:"
cat ranks.txt
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg); files in $out"
