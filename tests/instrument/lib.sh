# lib.sh: helpers shared by the instrument tests (sourced, not run).
# Needs MPP_SRC and MPP_BUILD from the test runner.
set -u
INS=$MPP_BUILD/bin/mpipredict-instrument
MCC=$MPP_BUILD/bin/mpipredict-cc
TESTRT=$MPP_SRC/tests/instrument/testrt.c
CFLAGS_T=${MPP_TEST_CFLAGS:-}
# Under SANITIZE=1 the MPI libraries' own leaks are suppressed by module
# (tests/lsan.supp); that needs full stacks through them.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}fast_unwind_on_malloc=0"

fail() {
	echo "FAIL: $*"
	exit 1
}

# The rewritten text with the per-machine parts (the unit id, a hash of the
# file's absolute path, the build id, the directory of header copies)
# replaced by fixed words.
normalize() {
	sed -E 's/__mpp_([a-z]+)_[0-9a-f]{16}/__mpp_\1_ID/g;
		s/= \{([0-9]+), "[0-9a-f]{16}"/= {\1, "BUILDID"/;
		s/__mpp_lib\[\] = "[^"]*"/__mpp_lib[] = "LIBPATH"/;
		s|#include "/[^"]*/mpp-headers/[0-9a-f]{16}/|#include "HEADERS/KEY/|' "$1"
}

# expect_same WHAT EXPECTED_FILE GOT_FILE: fail with a diff if they differ.
expect_same() {
	if ! cmp -s "$2" "$3"; then
		echo "expected $1 as in $2, got $3:"
		diff -u "$2" "$3" | head -40
		exit 1
	fi
}

# testrt_obj CC: compiles the test runtime (testrt.c, which dumps counters
# to counts.txt at exit) once per compiler; prints the object's name.
testrt_obj() {
	[ -f "testrt.$1.o" ] ||
		$1 $CFLAGS_T -std=c11 -I"$MPP_SRC" -c "$TESTRT" -o "testrt.$1.o" ||
		fail "cannot compile testrt.c with $1"
	echo "testrt.$1.o"
}

# with_testrt CC OUT SRC... [FLAGS...]: builds rewritten code with it.
with_testrt() {
	local cc=$1 out=$2 rt
	shift 2
	rt=$(testrt_obj "$cc") || exit 1
	# shellcheck disable=SC2086
	$cc $CFLAGS_T "$@" "$rt" -o "$out"
}

# run_both CC NAME [FLAGS...]: builds NAME.c and its rewrite out/NAME.c
# with CC and FLAGS against the test runtime, runs both and fails unless
# their outputs (want.out, got.out) are the same; the rewrite's counts are
# then in counts.txt.
run_both() {
	local cc=$1 name=$2
	shift 2
	with_testrt "$cc" "$name.orig" "$name.c" "$@" || fail "the original does not build with $cc"
	"./$name.orig" >want.out || fail "the original exits $? ($cc)"
	with_testrt "$cc" "$name.inst" "out/$name.c" "$@" || fail "the rewrite does not build with $cc"
	rm -f counts.txt
	"./$name.inst" >got.out || fail "the rewrite exits $? ($cc)"
	expect_same "the output ($cc)" want.out got.out
}
# After run_both: the loop at FILE:LINE was counted as often as the
# program's own count NAME says (a line "NAME <n>" in got.out).
loop_counted() {
	local file=$1 name=$2 at=$3 cc=$4 want got
	want=$(awk -v k="$name" '$1 == k { print $2 }' got.out)
	got=$(grep "^loop:$file:$at:" counts.txt | awk '{ print $2 }')
	[ -n "$want" ] && [ "$want" = "$got" ] ||
		fail "expected the $name loop ($file:$at) counted $want times ($cc), got '$got'"
}

# check_truth FILE: builds FILE's rewrite out/FILE with gcc and clang at
# -O2 (with -Werror) against the test runtime and runs it; the program
# prints its own counts as "t<n> <count>" lines. Fails unless every line
# "KIND MARK N[+N...]" of truth.txt holds for each compiler: the counter of
# the loop (KIND loop), then or else (KIND then, else) whose statement is
# on FILE's line holding the comment /* MARK */ equals the program's own
# t<N> (or their sum); N "-" only asks that the counter exists.
check_truth() {
	local file=$1 cc
	for cc in gcc clang; do
		$cc -O2 -Wall -Wextra -Werror -c "out/$file" -o truth.o ||
			fail "rewrite does not compile with $cc -Werror"
		with_testrt "$cc" truth.inst "out/$file" -O2 || fail "rewrite does not link with $cc"
		rm -f counts.txt
		./truth.inst >own.txt || fail "$cc: rewritten program exits $?"
		truth_holds "$file" "$cc"
	done
}
truth_holds() {
	local file=$1 cc=$2 kind mark cnt line text word pre col name got want c
	while read -r kind mark cnt; do
		line=$(grep -n "/\* $mark \*/" "$file" | head -1 | cut -d: -f1)
		text=$(sed -n "${line}p" "$file")
		word=$([ "$kind" = loop ] && echo for || echo if)
		[ "$kind" = loop ] && ! [[ $text == *for\ \(* ]] && word=while
		[ "$kind" = loop ] && [[ $text == *do\ \{* ]] && word=do
		pre=${text%%"$word "*}
		[ "$word" = do ] || pre=${text%%"$word ("*}
		col=$((${#pre} + 1))
		name="$kind:$file:$line:$col"
		got=$(awk -v n="$name" '$1 == n { print $2 }' counts.txt)
		[ -n "$got" ] || fail "$cc: no counter $name in counts.txt: $(cat counts.txt)"
		[ "$cnt" = - ] && continue
		want=0
		for c in ${cnt//+/ }; do
			want=$((want + $(awk -v k="t$c" '$1 == k { print $2 }' own.txt)))
		done
		[ "$got" = "$want" ] || fail "$cc: $name ($mark) expected $want (the program's own count), got $got"
	done <truth.txt
}
