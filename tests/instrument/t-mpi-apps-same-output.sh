#!/usr/bin/env bash
# The example MPI applications (tests/apps/), built with
# `mpipredict-cc mpicc`, print exactly what the plain mpicc builds print at
# 1, 2 and 4 ranks under OpenMPI, nothing on stderr, write a run row, and every call of the
# MPI functions they use from their own code is attributed to a call site
# (no untagged calls of those functions).
. "$MPP_SRC/tests/instrument/lib.sh"
[ -f "$MPP_BUILD/lib/libmpipredict.so" ] || fail "libmpipredict.so is not built (make collector)"
apps=$MPP_SRC/tests/apps
declare -A args=([prime]="-n 3000 -i 2" [jacobi3d]="-n 10 -i 4" [is]="-n 5000 -i 2" [cg]="-n 6 -i 10")
for a in prime jacobi3d is cg; do
	# shellcheck disable=SC2086
	mpicc -O2 -std=c11 -D_GNU_SOURCE $CFLAGS_T "$apps/$a.c" -o "$a.orig" -lm || fail "$a: mpicc build fails"
	# shellcheck disable=SC2086
	"$MCC" mpicc -O2 -std=c11 -D_GNU_SOURCE $CFLAGS_T "$apps/$a.c" -o "$a" -lm 2>"$a.notes" ||
		fail "$a: mpipredict-cc build fails: $(cat "$a.notes")"
	grep -e 'not instrumented' -e mpipredict "$a.notes" &&
		fail "$a: expected every site instrumented, got the above"
	for np in 1 2 4; do
		# shellcheck disable=SC2086
		want=$(mpirun -np $np "./$a.orig" ${args[$a]} 2>/dev/null)
		mkdir -p "runs.$a.$np"
		# shellcheck disable=SC2086
		got=$(MPIPREDICT_RUNS=$PWD/runs.$a.$np mpirun -np $np "./$a" ${args[$a]} 2>err.txt) ||
			fail "$a at $np ranks exits $?: $(tail -3 err.txt)"
		[ -n "$want" ] && [ "$want" = "$got" ] || fail "$a at $np ranks: expected '$want', got '$got'"
		# A normal run says nothing of its own (issue 34).
		[ -s err.txt ] && fail "$a at $np ranks: expected nothing on stderr, got: $(head -3 err.txt)"
		csv=runs.$a.$np/$a.csv
		[ -f "$csv" ] || fail "$a at $np ranks: expected a run row in $csv"
		# Every function with a call site in the file: no untagged calls.
		fns=$(head -1 "$csv" | tr , '\n' | sed -n 's/^call:.*:\(MPI_[A-Za-z_]*\)\.max$/\1/p' | sort -u)
		[ -n "$fns" ] || fail "$a at $np ranks: expected call-site columns in $csv"
		for fn in $fns; do
			v=$(awk -F, -v n="mpi:$fn:untagged:calls.max" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == n) c = i }
				END { print c ? $c : 0 }' "$csv")
			awk -v v="$v" 'BEGIN { exit !(v + 0 == 0) }' ||
				fail "$a at $np ranks: expected no untagged $fn calls, got $v"
		done
	done
done
echo ok
