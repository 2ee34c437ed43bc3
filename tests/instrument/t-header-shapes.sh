#!/usr/bin/env bash
# Which headers mpipredict-instrument rewrites into counted copies, in the
# shapes real codes include them (issue 20), and that every build still
# compiles (gcc, -Wall -Wextra -Werror) and prints what the original does:
#   - src/grid.h includes "stencil.h" from its own directory: both copied,
#     the nested directive pointed at the copy, counted once for two .c;
#   - a `.inc` file included inside a function body, and a header included
#     inside a C++ namespace: left alone (a copy's tables must be at file
#     scope);
#   - an X-macro header included twice, and a header named by a macro
#     (`#include HDR`): left alone;
#   - features.tsv lists a header's rows once for two including files.
. "$MPP_SRC/tests/instrument/lib.sh"
mkdir -p src
cat >src/stencil.h <<'E'
#ifndef STENCIL_H
#define STENCIL_H
static inline int smooth(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += i % 3 ? 1 : 2;
	return s;
}
#endif
E
cat >src/grid.h <<'E'
#ifndef GRID_H
#define GRID_H
#include "stencil.h"
static inline int grid(int n)
{
	int t = 0;
	while (n-- > 0)
		if (n % 2)
			t += smooth(n);
	return t;
}
#endif
E
cat >src/body.inc <<'E'
	for (int k = 0; k < n; k++)
		s += k;
E
cat >src/colors.def <<'E'
X(red)
X(green)
E
cat >src/named.h <<'E'
static inline int named(int n) { int r = 0; for (int i = 0; i < n; i++) r++; return r; }
E
cat >src/a.c <<'E'
#include <stdio.h>
#include "grid.h"
#define NAMED "named.h"
#include NAMED
int b_part(int n);
enum {
#define X(c) c,
#include "colors.def"
#undef X
	ncolors
};
static const char *names[] = {
#define X(c) #c,
#include "colors.def"
#undef X
};
static int f(int n)
{
	int s = 0;
#include "body.inc"
	return s;
}
int main(void)
{
	printf("%d %d %d %s %d %d\n", grid(6), b_part(4), f(5), names[ncolors - 1],
	       named(3), smooth(2));
	return 0;
}
E
cat >src/b.c <<'E'
#include "grid.h"
int b_part(int n) { return grid(n) + smooth(n); }
E
touch src/Makefile
"$INS" -o out src/a.c src/b.c 2>notes || fail "mpipredict-instrument exited $?: $(cat notes)"
copies=$(cd out && find mpp-headers -type f | sed 's|.*/||' | sort | tr '\n' ' ')
[ "$copies" = "grid.h stencil.h " ] || fail "expected copies of grid.h and stencil.h only, got '$copies'"
grep -q '#include "/[^"]*/mpp-headers/[0-9a-f]*/stencil.h" /\*"stencil.h"\*/' out/mpp-headers/*/grid.h ||
	fail "expected grid.h's copy to include stencil.h's copy, got: $(grep include out/mpp-headers/*/grid.h)"
grep -q '^#include "body.inc"' out/a.c || fail "expected body.inc's directive untouched"
rows=$(grep -c '^loop:stencil\.h:6:' out/features.tsv)
[ "$rows" = 1 ] || fail "expected one features.tsv row for stencil.h's loop, got $rows"
rt=$(testrt_obj gcc) || exit 1
# shellcheck disable=SC2086
gcc $CFLAGS_T -O1 src/a.c src/b.c -o orig || fail "the original does not build"
# shellcheck disable=SC2086
gcc $CFLAGS_T -O1 -Wall -Wextra -Werror -iquote src out/a.c out/b.c "$rt" -o inst ||
	fail "the rewrite does not build with -Wall -Wextra -Werror"
[ "$(./orig)" = "$(./inst)" ] || fail "expected output '$(./orig)', got '$(./inst)'"
# smooth: 2 in main, 4 from b_part, and from grid(n) for odd n below 6 and 4:
# n = 5, 3, 1 and 3, 1 -> 5+3+1+3+1 = 13 calls' iterations.
want="loop:stencil.h:6:2 $((2 + 4 + 5 + 3 + 1 + 3 + 1))
loop:grid.h:7:2 10
then:grid.h:8:3 5"
got=$(grep -E '^(loop|then):(stencil|grid)\.h' counts.txt | sort)
[ "$got" = "$(sort <<<"$want")" ] || fail "expected counts
$want
got
$got"
grep -q 'named\.h\|body\.inc\|colors\.def' counts.txt && fail "expected no counters of named.h, body.inc, colors.def: $(cat counts.txt)"

# C++: a header included inside a namespace stays as it is.
printf 'namespace q {\n#include "named.h"\n}\nint main() { return q::named(2) - 2; }\n' >src/ns.cpp
"$INS" -o out2 src/ns.cpp 2>notes || fail "mpipredict-instrument on ns.cpp exited $?"
[ -d out2/mpp-headers ] && fail "expected no header copy for a namespace include"
# shellcheck disable=SC2086
g++ $CFLAGS_T -Wall -Wextra -Werror -iquote src out2/ns.cpp "$rt" -o ns || fail "ns.cpp's rewrite does not build"
./ns || fail "ns.cpp's rewrite exits $?"
echo "ok"
