#!/usr/bin/env bash
# A lean production build (issue 14): prime.c (a loop left by return, a
# branch in a loop) is built in full with mpipredict-mpicc, run at 12 sizes
# and trained; `mpipredict-predict --used-features` lists what the model
# reads; MPIPREDICT_LEAN=that list builds it again planting only those
# counters. Run with the same arguments, the lean row must hold every
# used counter with the full row's exact value, no counter the model does
# not use, and give the same prediction. OpenMPI, 2 ranks.
. "$MPP_SRC/tests/collector/lib.sh"
command -v mpipredict-mpicc >/dev/null || { echo "mpipredict-mpicc is not built"; exit 77; }
use_mpi openmpi
cp "$MPP_SRC/tests/apps/prime.c" "$MPP_SRC/tests/apps/app_args.h" .
# shellcheck disable=SC2086
mpipredict-mpicc ${MPP_TEST_CFLAGS:-} -O2 -o full prime.c -lm 2>notes.txt || { fail "full build failed: $(cat notes.txt)"; finish; }
# Sizes where the sieve's work, not MPI's start-up, sets the run time:
# at 20000-360000 the run time moved 0.256-0.286 s, and under
# SANITIZE=1 on a loaded machine (CI rehearsal, 2026-11-27) the training
# kept no counter at all.
for n in 200000 300000 450000 600000 800000 1000000 1300000 1600000 2000000 2500000 3000000 3600000; do
	MPIPREDICT_APP=prime MPIPREDICT_RUNS=runs/ run 2 ./full -n $n >/dev/null || fail "full run -n $n exits $?"
done
mpipredict-train --db m.db runs/prime.csv >train.out 2>&1 || { fail "training failed: $(cat train.out)"; finish; }
mpipredict-predict --csv --db m.db --app prime --used-features >used.txt || fail "--used-features exits $?"
grep -Eq '^(loop|then|else|case):' used.txt || { fail "expected the model to use a counter, got: $(cat used.txt)"; finish; }
MPIPREDICT_LEAN=$PWD/used.txt mpipredict-mpicc ${MPP_TEST_CFLAGS:-} -O2 -o lean prime.c -lm 2>notes.txt ||
	{ fail "lean build failed: $(cat notes.txt)"; finish; }
MPIPREDICT_APP=prime MPIPREDICT_RUNS=lean.csv run 2 ./lean -n 300000 >/dev/null || fail "lean run exits $?"
MPIPREDICT_APP=prime MPIPREDICT_RUNS=full.csv run 2 ./full -n 300000 >/dev/null || fail "full run exits $?"
counters() { csvget -H "$1" | grep -E '^(loop|then|else|case):' | sort; }
counters full.csv >full.cols
counters lean.csv >lean.cols
sed -E 's/\.(mean|max)$//' used.txt | grep -E '^(loop|then|else|case):' | sort -u >used.names
# Every lean counter column is a used one, and every used one is there.
sed -E 's/\.(mean|max)$//' lean.cols | sort -u >lean.names
[ "$(cat lean.names)" = "$(cat used.names)" ] ||
	fail "expected the lean build's counters to be exactly the used ones ($(tr '\n' ' ' <used.names)), got: $(tr '\n' ' ' <lean.names)"
[ "$(wc -l <lean.cols)" -lt "$(wc -l <full.cols)" ] ||
	fail "expected fewer counters in the lean build ($(wc -l <lean.cols)) than in the full one ($(wc -l <full.cols))"
while read -r c; do
	a=$(csvget full.csv 1 "$c") b=$(csvget lean.csv 1 "$c")
	[ -n "$a" ] && [ "$a" = "$b" ] || fail "$c: expected the full build's value '$a' in the lean row, got '$b'"
done <lean.cols
pf=$(mpipredict-predict --csv --db m.db --app prime --features full.csv 2>/dev/null | tail -n 1 | cut -d, -f2)
pl=$(mpipredict-predict --csv --db m.db --app prime --features lean.csv 2>/dev/null | tail -n 1 | cut -d, -f2)
[ -n "$pf" ] && [ "$pf" = "$pl" ] || fail "expected the same prediction from both rows, got full '$pf' and lean '$pl'"
finish
