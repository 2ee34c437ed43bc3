#!/usr/bin/env bash
# mpipredict-instrument refuses a header (rewriting one would define the
# counter tables in every .c that includes it): exit 2, one line naming
# the file and what to give instead, nothing written, even beside a good
# .c; the .c that includes the header is instrumented and compiles.
. "$MPP_SRC/tests/instrument/lib.sh"

printf 'static inline int twice(int x)\n{\n\tfor (int i = 0; i < 1; i++)\n\t\tx += x;\n\treturn x;\n}\n' >util.h
printf '#include "util.h"\nint f(int n)\n{\n\twhile (n > 9)\n\t\tn = twice(n) / 3;\n\treturn n;\n}\n' >f.c
for h in util.h util.hpp; do
	cp util.h "$h" 2>/dev/null
	"$INS" -o out f.c "$h" >out.txt 2>err.txt
	rc=$?
	[ $rc = 2 ] || fail "$h: expected exit 2, got $rc"
	[ "$(wc -l <err.txt)" = 1 ] || fail "$h: expected one line, got: $(cat err.txt)"
	grep -q "^mpipredict-instrument: $h: a header, not a C source; give the .c files that include it$" err.txt ||
		fail "$h: expected the refusal naming it, got: $(cat err.txt)"
	[ -e out ] && fail "$h: expected nothing written, got: $(ls -R out)"
done
"$INS" -o out f.c 2>err.txt || fail "f.c alone: exit $?: $(cat err.txt)"
cp util.h out/
gcc -Wall -Werror -c out/f.c -o f.o || fail "the rewritten f.c does not compile"
exit 0
