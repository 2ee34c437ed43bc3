#!/usr/bin/env bash
# make bench-remaining: how right a running job's remaining time is (issue
# 37's goal: at 50 % progress no worse than the model's in-range error, at
# 90 % under half of it).
#
# Per app: a design of settings (the example apps: sizes x iterations x 1
# and 2 ranks; SRC=DIR: the development set's recipes, the sizes of
# their devset_long_design, at 1 rank). Two settings inside the range are the jobs;
# the others are run REPEATS times (interleaved) and trained on, so a job
# is an in-range setting the model never saw. Then mpipredictd serves the
# store, and each job setting is run twice (the examples: at 1 and 2
# ranks) as a job: SLURM_JOB_ID made up, MPIPREDICT_URL and a token,
# progress every MPP_REMAINING_PROGRESS_S (default 0.1 s), while
# tests/bench/remaining.py polls GET /v1/jobs/{id} every
# MPP_REMAINING_POLL_S (default 0.1 s) and compares every answer with
# the run's actual runtime_s (its row: MPI_Init to MPI_Finalize, the
# clock the posts' elapsed_s runs on). Prints per app the medians over
# its jobs (remaining.py's header says what each column is).
#
# Environment:
#   MPP_BENCH_APPS     example apps (default: prime jacobi3d is cg)
#   SRC=DIR            the development set instead (checkouts by folder
#                      name; recipes tests/bench/devset/*.sh);
#                      MPP_BENCH_CODES picks some (default: every recipe
#                      with a checkout)
#   MPP_BENCH_REPEATS  training runs per setting (default 2)
#   MPP_BENCH_OUT      output folder (default $BUILD/bench/remaining, with
#                      SRC $BUILD/bench/remaining-devset)
#   MPP_BENCH_REBUILD=0 keep the builds already in $OUT/build
#   MPP_BENCH_REUSE=1  keep the training rows in $OUT/train (no training
#                      runs); the model is trained again
#   MPP_BENCH_REANALYSE=1 print the table of the jobs' answers kept in
#                      $OUT/raw.json (the last run's), run nothing
#   MPP_REMAINING_PROGRESS_S, MPP_REMAINING_POLL_S  (above)
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
cd "$src" || exit 1
BUILD=${BUILD:-build}
export MPP_SRC=$src MPP_BUILD=$src/$BUILD MPP_TEST_CFLAGS=
. tests/e2e/lib.sh
repeats=${MPP_BENCH_REPEATS:-2}
devset=${SRC:-}
if [ -n "$devset" ]; then
	out=${MPP_BENCH_OUT:-$MPP_BUILD/bench/remaining-devset}
else
	out=${MPP_BENCH_OUT:-$MPP_BUILD/bench/remaining}
fi

miss=()
for p in mpipredict-cc mpipredict-mpicxx mpipredict-train mpipredict-predict \
	mpipredict-collect mpipredictd; do
	[ -x "$MPP_BUILD/bin/$p" ] || miss+=("$p")
done
if [ ${#miss[@]} -gt 0 ]; then
	echo "bench-remaining: cannot run, not built: ${miss[*]}" >&2
	exit 1
fi
mkdir -p "$out/build"
# No run of the benchmark may reach a daemon other than its own, nor
# pick up a job id from the shell it was started in.
unset MPIPREDICT_URL MPIPREDICT_TOKEN_FILE MPIPREDICT_PROGRESS_S \
	SLURM_JOB_ID MPIPREDICT_RUNS MPIPREDICT_APP MPIPREDICT_PARAMS
export MPIPREDICT_CLIENT_CONF=$out/none.conf

# settings.tsv: app, role (train or job), ranks, params, args, program,
# the folder it runs in.
settings=$out/settings.tsv
: >"$settings.new"
: >"$out/train-args.tsv"
if [ -n "$devset" ]; then
	[ -d "$devset" ] || { echo "bench-remaining: SRC=$devset: no such folder" >&2; exit 1; }
	devset=$(cd "$devset" && pwd)
	codes=${MPP_BENCH_CODES:-$(for r in tests/bench/devset/*.sh; do basename "$r" .sh; done)}
	for code in $codes; do
		[ -f "tests/bench/devset/$code.sh" ] || { echo "bench-remaining: no recipe tests/bench/devset/$code.sh" >&2; exit 1; }
		[ -d "$devset/$code" ] || { echo "devset: no $devset/$code, skipped"; continue; }
		if [ "${MPP_BENCH_REBUILD:-1}" = 0 ] && [ -s "$out/build/$code.where" ]; then
			echo "build: $code kept from $out/build/$code"
		else
			echo "build: $code from $devset/$code (log: $out/build/$code.log)"
			rm -rf "$out/build/$code"
			# Feature names rooted at the copy, as the user's checkout
			# would root them (under build-*/ the root would be
			# mpipredict's own git checkout).
			(export MPIPREDICT_SRCROOT=$out/build/$code &&
				. "tests/bench/devset/$code.sh" && mkdir -p "$out/build/$code" &&
				devset_build "$devset/$code" "$out/build/$code" &&
				printf '%s\t%s\n' "$DEVSET_EXE" "$DEVSET_RUNDIR" >"$out/build/$code.where") \
				>"$out/build/$code.log" 2>&1 && [ -x "$(cut -f1 "$out/build/$code.where")" ] ||
				{ tail -20 "$out/build/$code.log"; echo "bench-remaining: building $code failed (see $out/build/$code.log)" >&2; exit 1; }
		fi
		IFS=$'\t' read -r exe rundir <"$out/build/$code.where"
		DEVSET_TRAIN=$(. "tests/bench/devset/$code.sh" && echo "${DEVSET_TRAIN:-}")
		[ -z "$DEVSET_TRAIN" ] || printf '%s\t%s\n' "$code" "$DEVSET_TRAIN" >>"$out/train-args.tsv"
		# The recipe's sizes for this bench (devset_long_design: jobs
		# of 2-3 s, about 20 posts at 0.1 s; the accuracy design's ran
		# 0.5-0.9 s and got 0-2 posts) are the range; the 2nd and 3rd
		# largest are the jobs, inside it.
		mapfile -t lines < <(. "tests/bench/devset/$code.sh" && devset_long_design)
		n=${#lines[@]}
		for i in "${!lines[@]}"; do
			role=train
			[ "$i" = $((n - 2)) ] || [ "$i" = $((n - 3)) ] && role=job
			rest=${lines[$i]#*$'\t'}
			params=${rest%%$'\t'*} args=${rest#*$'\t'}
			printf '%s\t%s\t1\t%s\t%s\t%s\t%s\n' "$code" "$role" "$params" "$args" \
				"$exe" "$rundir" >>"$settings.new"
			[ $role = job ] && printf '%s\t%s\t1\t%s\t%s\t%s\t%s\n' "$code" "$role" \
				"$params" "$args" "$exe" "$rundir" >>"$settings.new"
		done
	done
else
	# Sizes as bench-accuracy's full design, its smallest and largest
	# iteration counts; the jobs: the 2nd and 3rd largest size at the
	# larger count (the longest runs inside the range).
	declare -A sizes iters
	sizes[prime]="1000000 2000000 3000000 4500000 6000000" iters[prime]="1 2"
	sizes[jacobi3d]="64 96 128 160 192" iters[jacobi3d]="40 160"
	sizes[is]="1000000 2000000 4000000 6000000 8000000" iters[is]="5 20"
	sizes[cg]="32 48 64 80 96" iters[cg]="100 300"
	for app in ${MPP_BENCH_APPS:-prime jacobi3d is cg}; do
		[ -n "${sizes[$app]:-}" ] || { echo "bench-remaining: unknown app $app" >&2; exit 1; }
		if [ "${MPP_BENCH_REBUILD:-1}" = 0 ] && [ -x "$out/build/$app" ]; then
			echo "build: $app kept"
		else
			echo "build: mpipredict-cc mpicc -O2 tests/apps/$app.c"
			(cd "$out/build" && e2e_instrument "$app" "$out/build/$app") >"$out/build/$app.log" 2>&1 ||
				{ cat "$out/build/$app.log"; echo "bench-remaining: mpipredict-cc failed for $app" >&2; exit 1; }
		fi
		read -r -a s <<<"${sizes[$app]}"
		read -r -a it <<<"${iters[$app]}"
		for n in "${s[@]}"; do
			for i in "${it[@]}"; do
				role=train
				[ "$i" = "${it[-1]}" ] && { [ "$n" = "${s[-2]}" ] || [ "$n" = "${s[-3]}" ]; } && role=job
				for np in 1 2; do
					printf '%s\t%s\t%s\t\t-n %s -i %s\t%s\t%s\n' "$app" "$role" "$np" \
						"$n" "$i" "$out/build/$app" "$out/build" >>"$settings.new"
				done
			done
		done
	done
fi
mv "$settings.new" "$settings"
[ -s "$settings" ] || { echo "bench-remaining: nothing to run" >&2; exit 1; }
/usr/bin/python3 tests/bench/remaining.py --settings "$settings" --out "$out" \
	--bin "$MPP_BUILD/bin" --repeats "$repeats" \
	--progress-s "${MPP_REMAINING_PROGRESS_S:-0.1}" \
	--poll-s "${MPP_REMAINING_POLL_S:-0.1}" \
	$([ "${MPP_BENCH_REUSE:-0}" = 1 ] && echo --reuse) \
	$([ "${MPP_BENCH_REANALYSE:-0}" = 1 ] && echo --reanalyse)
