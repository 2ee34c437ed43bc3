#!/usr/bin/env bash
# Golden rewrites of C++ sources (tests/instrument/golden/*.cpp): templates
# instantiated for several types (one counter per source location), member
# functions defined in class bodies, constexpr functions left alone,
# lambdas, range-for, if with an init-statement or a condition variable,
# if constexpr, exceptions thrown out of counted loops (locals added in a
# catch that rethrows). The rewritten text must match the
# reviewed X.expected, the notes X.notes; the rewrite must compile with g++
# and clang++ (-Werror where the original is warning-free), print what the
# original prints, and count exactly what X.counts (worked out by hand) says.
. "$MPP_SRC/tests/instrument/lib.sh"
G=$MPP_SRC/tests/instrument/golden
cp "$G"/*.cpp .

for src in "$G"/*.cpp; do
	x=$(basename "$src" .cpp)
	"$INS" -o out "$x.cpp" -- -std=c++17 2>"$x.notes" || fail "$x: mpipredict-instrument exited $?"
	normalize "out/$x.cpp" >"$x.got"
	expect_same "$x rewrite" "$G/$x.expected" "$x.got"
	if [ -f "$G/$x.notes" ]; then
		expect_same "$x notes" "$G/$x.notes" "$x.notes"
	else
		[ -s "$x.notes" ] && fail "$x: expected no notes, got: $(cat "$x.notes")"
	fi
	for cxx in g++ clang++; do
		cc=${cxx%++}
		[ "$cc" = g ] && cc=gcc
		werror=
		$cxx -std=c++17 -Wall -Wextra -Werror -c "$x.cpp" -o /dev/null 2>/dev/null && werror=-Werror
		# shellcheck disable=SC2086
		$cxx -std=c++17 -Wall -Wextra $werror -c "out/$x.cpp" -o "$x.$cc.o" ||
			fail "$x: rewrite does not compile with $cxx $werror"
		rt=$(testrt_obj "$cc") || exit 1
		# shellcheck disable=SC2086
		$cxx $CFLAGS_T -std=c++17 "$x.cpp" -o "$x.orig" || fail "$x: original does not build"
		# shellcheck disable=SC2086
		$cxx $CFLAGS_T -std=c++17 "out/$x.cpp" "$rt" -o "$x.inst" || fail "$x: rewrite does not link"
		./"$x.orig" >"$x.want" || fail "$x: original exits $?"
		rm -f counts.txt
		./"$x.inst" >"$x.out" || fail "$x: rewritten program exits $? ($cxx)"
		expect_same "$x output ($cxx)" "$x.want" "$x.out"
		expect_same "$x counts ($cxx)" "$G/$x.counts" counts.txt
		# A build without exceptions (`try` refused there) counts the same.
		if $cxx -std=c++17 -fno-exceptions -c "$x.cpp" -o /dev/null 2>/dev/null; then
			# shellcheck disable=SC2086
			$cxx $CFLAGS_T -std=c++17 -fno-exceptions -Wall -Wextra $werror "out/$x.cpp" "$rt" -o "$x.noeh" ||
				fail "$x: rewrite does not build with $cxx -fno-exceptions"
			rm -f counts.txt
			./"$x.noeh" >"$x.out" || fail "$x: -fno-exceptions build exits $?"
			expect_same "$x counts ($cxx -fno-exceptions)" "$G/$x.counts" counts.txt
		fi
	done
done
exit 0
