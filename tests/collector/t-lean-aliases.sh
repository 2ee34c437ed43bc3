#!/usr/bin/env bash
# A lean build plants one counter per feature the model keeps, not one per
# alias folded into it (issue 34: a C++ model kept 3 features, one with
# 693 aliases, and the lean build planted 354 counters). alias.c has 40
# loops that all run n times, so training folds them into one term with
# dozens of aliases; `--used-features` must list one name per term, and
# the lean build's row must hold exactly the distinct counters of that
# list, with the full build's values, and give the same prediction.
. "$MPP_SRC/tests/collector/lib.sh"
command -v mpipredict-mpicc >/dev/null || { echo "mpipredict-mpicc is not built"; exit 77; }
use_mpi openmpi
{
	cat <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
volatile double sink;
int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 10, i, j;
	double s = 0;
	MPI_Init(&argc, &argv);
	for (i = 0; i < n; i++)
		for (j = 0; j < 20000; j++)
			s += (double)(i ^ j) * 1e-9;
C
	for k in $(seq 1 40); do
		printf '\tfor (i = 0; i < n; i++)\n\t\tsink = s + %d;\n' "$k"
	done
	cat <<'C'
	MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	printf("%g\n", s);
	MPI_Finalize();
	return 0;
}
C
} >alias.c
# shellcheck disable=SC2086
mpipredict-mpicc ${MPP_TEST_CFLAGS:-} -O1 -o full alias.c 2>notes.txt || { fail "full build failed: $(cat notes.txt)"; finish; }
for n in 2000 3000 4000 5000 6000 8000 10000 12000 14000 16000 18000 20000; do
	MPIPREDICT_APP=alias MPIPREDICT_RUNS=runs/ run 1 ./full -n $n >/dev/null || fail "full run -n $n exits $?"
done
mpipredict-train --db m.db --json runs/alias.csv >train.json 2>train.err || { fail "training failed: $(cat train.err)"; finish; }
# The premise: some kept feature has many aliases.
most=$(jq '[.models[0].terms[] | .aliases // [] | length] | max' train.json)
nterms=$(jq '.models[0].terms | length' train.json)
[ "${most:-0}" -ge 20 ] || { fail "expected a term with at least 20 aliases (the 40 loops folded), got ${most:-none}"; finish; }
mpipredict-predict --csv --db m.db --app alias --used-features >used.txt || fail "--used-features exits $?"
[ "$(wc -l <used.txt)" = "$nterms" ] ||
	fail "expected one name per term ($nterms) in --used-features, got $(wc -l <used.txt): $(tr '\n' ' ' <used.txt)"
MPIPREDICT_LEAN=$PWD/used.txt mpipredict-mpicc ${MPP_TEST_CFLAGS:-} -O1 -o lean alias.c 2>notes.txt ||
	{ fail "lean build failed: $(cat notes.txt)"; finish; }
MPIPREDICT_APP=alias MPIPREDICT_RUNS=lean.csv run 1 ./lean -n 7000 >/dev/null || fail "lean run exits $?"
MPIPREDICT_APP=alias MPIPREDICT_RUNS=full.csv run 1 ./full -n 7000 >/dev/null || fail "full run exits $?"
counters() { csvget -H "$1" | grep -E '^(loop|then|else|case):' | sed -E 's/\.(mean|max)$//' | sort -u; }
counters lean.csv >lean.names
sed -E 's/\.(mean|max)$//' used.txt | grep -E '^(loop|then|else|case):' | sort -u >used.names
[ "$(cat lean.names)" = "$(cat used.names)" ] ||
	fail "expected the lean build to plant exactly the used counters ($(tr '\n' ' ' <used.names)), got $(wc -l <lean.names): $(tr '\n' ' ' <lean.names)"
[ "$(wc -l <lean.names)" -le "$(wc -l <used.txt)" ] || fail "expected at most one counter per term"
while read -r c; do
	for a in mean max; do
		x=$(csvget full.csv 1 "$c.$a") y=$(csvget lean.csv 1 "$c.$a")
		[ -n "$x" ] && [ "$x" = "$y" ] || fail "$c.$a: expected the full build's value '$x' in the lean row, got '$y'"
	done
done <lean.names
pf=$(mpipredict-predict --csv --db m.db --app alias --features full.csv 2>/dev/null | tail -n 1 | cut -d, -f2)
pl=$(mpipredict-predict --csv --db m.db --app alias --features lean.csv 2>/dev/null | tail -n 1 | cut -d, -f2)
[ -n "$pf" ] && [ "$pf" = "$pl" ] || fail "expected the same prediction from both rows, got full '$pf' and lean '$pl'"
finish
