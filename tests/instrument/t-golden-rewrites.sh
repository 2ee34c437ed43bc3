#!/usr/bin/env bash
# Golden rewrites of tricky inputs (tests/instrument/golden/*.c): the
# rewritten text must match the reviewed X.expected, the notes X.notes; the
# rewrite must compile with gcc and clang wherever the original does (with
# -Werror when the original is warning-free), print what the original
# prints, and count exactly what X.counts (worked out by hand) says.
. "$MPP_SRC/tests/instrument/lib.sh"
G=$MPP_SRC/tests/instrument/golden
cp "$G"/*.c "$G"/*.h .

flags_for() {
	case $1 in
	c89) echo "-std=c89 -pedantic-errors -Wdeclaration-after-statement" ;;
	*) echo "" ;;
	esac
}

for src in "$G"/*.c; do
	x=$(basename "$src" .c)
	flags=$(flags_for "$x")
	# shellcheck disable=SC2086
	"$INS" -o out "$x.c" -- $flags 2>"$x.notes" || fail "$x: mpipredict-instrument exited $?"
	normalize "out/$x.c" >"$x.got"
	expect_same "$x rewrite" "$G/$x.expected" "$x.got"
	if [ -f "$G/$x.notes" ]; then
		expect_same "$x notes" "$G/$x.notes" "$x.notes"
	else
		[ -s "$x.notes" ] && fail "$x: expected no notes, got: $(cat "$x.notes")"
	fi
	for cc in gcc clang; do
		werror=
		# shellcheck disable=SC2086
		$cc $flags -Wall -Wextra -Werror -c "$x.c" -o /dev/null 2>/dev/null && werror=-Werror
		# shellcheck disable=SC2086
		$cc $flags -Wall -Wextra $werror -iquote . -c "out/$x.c" -o "$x.$cc.o" ||
			fail "$x: rewrite does not compile with $cc $flags $werror"
		with_testrt "$cc" "$x.orig" "$x.c" $flags || fail "$x: original does not build"
		./"$x.orig" >"$x.want" || fail "$x: original exits $?"
		with_testrt "$cc" "$x.inst" "out/$x.c" -iquote . $flags || fail "$x: rewrite does not link"
		rm -f counts.txt
		./"$x.inst" >"$x.out" || fail "$x: rewritten program exits $? ($cc)"
		expect_same "$x output ($cc)" "$x.want" "$x.out"
		expect_same "$x counts ($cc)" "$G/$x.counts" counts.txt
	done
done

# The OpenMP build of pragmas.c: rewritten as parsed for -fopenmp, it must
# build with -fopenmp, print the same at 1 and 2 threads, and count the same
# on one thread (counters are plain adds: with threads they may race).
"$INS" -o omp pragmas.c -- -fopenmp 2>/dev/null || fail "pragmas: -fopenmp rewrite failed"
for cc in gcc clang; do
	with_testrt "$cc" omp.orig pragmas.c -fopenmp || fail "pragmas: original does not build with $cc -fopenmp"
	with_testrt "$cc" omp.inst omp/pragmas.c -fopenmp || fail "pragmas: rewrite does not build with $cc -fopenmp"
	for t in 1 2; do
		OMP_NUM_THREADS=$t ./omp.orig >omp.want
		rm -f counts.txt
		OMP_NUM_THREADS=$t ./omp.inst >omp.out || fail "pragmas: -fopenmp program exits $?"
		expect_same "pragmas -fopenmp output ($cc, $t threads)" omp.want omp.out
		[ "$t" = 1 ] && expect_same "pragmas -fopenmp counts ($cc)" "$G/pragmas.counts" counts.txt
	done
	grep -q openmp omp.out || fail "pragmas: expected the _OPENMP branch, got $(cat omp.out)"
done
echo "ok: $(ls "$G"/*.c | wc -l) golden inputs"
