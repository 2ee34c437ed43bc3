#!/usr/bin/env bash
# Line numbers of the original survive the rewrite: __LINE__, the lines of
# the compiler's diagnostics and the debug line of each call, in code where
# the rewriter adds braces, hoists counters into locals, and opens a block
# before a `#pragma` line (the one place it inserts a newline and #line).
. "$MPP_SRC/tests/instrument/lib.sh"
# gdb reads the line table as a debugger does. (GNU addr2line 2.40 reads
# gcc 12's DWARF 5 file table off by one and names the compiled copy.)
command -v gdb >/dev/null || {
	echo "skip: gdb not installed"
	exit 77
}
cat >lines.c <<'C'
#include <stdio.h>

static void where(int line)
{
	printf("%d %p\n", line, __builtin_return_address(0));
}

static int work(int n)
{
	int s = 0, unused_a;
	for (int i = 0; i < n; i++)
		if (i & 1)
			where(__LINE__);
		else
			s++;
	if (n > 0)
#pragma GCC unroll 2
		for (int k = 0; k < 2; k++)
			where(__LINE__);
	while (n-- > 0) {
		int unused_b;
		where(__LINE__);
		if (n == 1)
			return s;
	}
	where(__LINE__);
	return s;
}

int main(void)
{
	int unused_c;
	where(__LINE__);
	printf("%d\n", work(4));
	where(__LINE__);
	return 0;
}
C
"$INS" -o out lines.c 2>notes.txt || fail "mpipredict-instrument exited $?: $(cat notes.txt)"
grep -q '^#line' out/lines.c || fail "expected #line directives in the rewrite"
grep -q '__mpp_l' out/lines.c || fail "expected a loop counting into a local (the test would not cover it)"
grep -q '^#pragma GCC unroll' out/lines.c || fail "expected the pragma kept on a line of its own"

# Diagnostics: the same file:line:col for every warning.
diags() { # file: the warnings' locations, sorted
	gcc -Wall -Wextra -c "$1" -o /dev/null 2>&1 | grep -o '^[^: ]*:[0-9]*:[0-9]*: warning' | sort
}
diags lines.c >want.diag
diags out/lines.c >got.diag
[ -s want.diag ] || fail "expected warnings from the original (unused variables)"
expect_same "warning locations" want.diag got.diag

# __LINE__ at run time, and the debug line of each call of where().
for v in orig inst; do
	src=$([ $v = orig ] && echo lines.c || echo out/lines.c)
	with_testrt gcc "$v" "$src" -g -O0 -no-pie -fno-pie || fail "$v does not build"
	./"$v" >"$v.out" || fail "$v exits $?"
done
cut -d' ' -f1 orig.out >want.lines
cut -d' ' -f1 inst.out >got.lines
expect_same "__LINE__ values" want.lines got.lines
n=0
while read -r line addr; do
	case $addr in 0x*) ;; *) continue ;; esac
	# The return address is just past the call: look one byte back.
	a=$(printf '0x%x' $((addr - 1)))
	loc=$(gdb -nx -batch -ex "info line *$a" ./inst 2>&1 | grep -o 'Line [0-9]* of "[^"]*"')
	[ "$loc" = "Line $line of \"$PWD/lines.c\"" ] ||
		fail "call of where() at line $line of $PWD/lines.c: the debugger says: $loc"
	n=$((n + 1))
done <inst.out
[ $n -ge 6 ] || fail "expected at least 6 calls checked, got $n"
echo "ok: $n calls, $(wc -l <want.diag) warnings on their original lines"
