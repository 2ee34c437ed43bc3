#!/usr/bin/env bash
# The run's app name, in this order: $MPIPREDICT_APP when set and not
# empty; else the name the build was instrumented with (mpipredict-cc
# --app NAME, mpipredict-instrument --app NAME), carried in every unit;
# else the executable's basename. Files instrumented with different names:
# the first file's (by name), one line from mpipredict-cc's link and
# nothing on stderr at run time (issue 34: a run's output must stay the
# plain build's). 2 ranks, OpenMPI and
# MPICH; progs/e2e.c built through the real rewriter.
. "$MPP_SRC/tests/collector/lib.sh"
command -v mpipredict-cc >/dev/null || { echo "mpipredict-cc is not built"; exit 77; }
cp "$progs/e2e.c" .
cat >zz.c <<'X'
/* A second unit for the mixed --app case. */
int zz(int n);
int zz(int n)
{
	int i, s = 0;
	for (i = 0; i < n; i++)
		s += i;
	return s;
}
X

app_of() { # $1 csv: its app column, and that it is named after the app
	local a
	a=$(csvget "$1" 1 app) || { echo "(unreadable $1)"; return; }
	[ "$(basename "$1")" = "$a.csv" ] || echo "($1 holds app $a)"
	echo "$a"
}

for m in $MPIS; do
	use_mpi "$m"
	[ "$m" = mpich ] && export MPIPREDICT_LIBDIR=$LIBDIR
	rm -rf runs out e2e e2e-plain e2e-inst mixed ./*.o
	# shellcheck disable=SC2086
	mpipredict-cc --app myapp "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -o e2e e2e.c ||
		{ fail "$m: mpipredict-cc --app failed"; continue; }
	MPIPREDICT_RUNS=runs/ run 2 ./e2e || fail "$m: e2e exited with $?"
	got=$(app_of runs/myapp.csv)
	[ "$got" = myapp ] || fail "$m: expected app myapp from --app, got $got"
	MPIPREDICT_APP=fromenv MPIPREDICT_RUNS=runs/ run 2 ./e2e || fail "$m: e2e exited with $?"
	got=$(app_of runs/fromenv.csv)
	[ "$got" = fromenv ] || fail "$m: expected MPIPREDICT_APP=fromenv to win over --app, got $got"
	MPIPREDICT_APP= MPIPREDICT_RUNS=runs/ run 2 ./e2e || fail "$m: e2e exited with $?"
	[ "$(csvget runs/myapp.csv)" = 2 ] || fail "$m: expected an empty MPIPREDICT_APP to fall back to --app (2 rows in runs/myapp.csv)"

	# shellcheck disable=SC2086
	mpipredict-cc "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -o e2e-plain e2e.c || fail "$m: mpipredict-cc failed"
	MPIPREDICT_RUNS=runs/ run 2 ./e2e-plain || fail "$m: e2e-plain exited with $?"
	got=$(app_of runs/e2e-plain.csv)
	[ "$got" = e2e-plain ] || fail "$m: expected the executable's name without --app, got $got"

	mpipredict-instrument -o out --app instapp e2e.c 2>err.txt || fail "$m: mpipredict-instrument --app failed: $(cat err.txt)"
	grep -qx '# app: instapp' out/features.tsv || fail "$m: expected '# app: instapp' in features.tsv"
	# shellcheck disable=SC2086
	$MPI_CC ${MPP_TEST_CFLAGS:-} -O1 -o e2e-inst out/e2e.c -L"$LIBDIR" -Wl,-rpath,"$LIBDIR" -lmpipredict ||
		fail "$m: building the mpipredict-instrument output failed"
	MPIPREDICT_RUNS=runs/ run 2 ./e2e-inst || fail "$m: e2e-inst exited with $?"
	got=$(app_of runs/instapp.csv)
	[ "$got" = instapp ] || fail "$m: expected app instapp from mpipredict-instrument --app, got $got"

	# shellcheck disable=SC2086
	mpipredict-cc --app first "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -c e2e.c &&
		mpipredict-cc --app second "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -c zz.c &&
		mpipredict-cc "$MPI_CC" ${MPP_TEST_CFLAGS:-} -o mixed e2e.o zz.o 2>link.txt || fail "$m: building mixed failed: $(cat link.txt)"
	[ "$(grep -c 'different --app names (first, second); its runs use first.*MPIPREDICT_APP' link.txt)" = 1 ] ||
		fail "$m: expected the link to say once that the files have different --app names, got: $(cat link.txt)"
	MPIPREDICT_RUNS=runs/ run 2 ./mixed 2>err.txt || fail "$m: mixed exited with $?"
	got=$(app_of runs/first.csv)
	[ "$got" = first ] || fail "$m: expected app first (e2e.c sorts before zz.c), got $got"
	[ -s err.txt ] && fail "$m: expected nothing on stderr at run time, got: $(cat err.txt)"
	# One --app for every file: the link says nothing.
	# shellcheck disable=SC2086
	mpipredict-cc --app first "$MPI_CC" ${MPP_TEST_CFLAGS:-} -O1 -c zz.c &&
		mpipredict-cc "$MPI_CC" ${MPP_TEST_CFLAGS:-} -o mixed e2e.o zz.o 2>link.txt || fail "$m: building one-app failed: $(cat link.txt)"
	[ -s link.txt ] && fail "$m: expected a quiet link when every file has one --app, got: $(cat link.txt)"
	unset MPIPREDICT_LIBDIR
done
mpipredict-cc --app >/dev/null 2>err.txt
[ $? = 1 ] && grep -q -- '--app needs a name' err.txt || fail "expected mpipredict-cc --app without a name to fail with exit 1, got: $(cat err.txt)"
finish
