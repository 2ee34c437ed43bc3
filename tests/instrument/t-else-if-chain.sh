#!/usr/bin/env bash
# An `else if` chain of 300 links (real codes have 257 and 309): braces
# per link would nest 300 blocks and clang stops at 256, so the rewriter
# counts else-branches through the condition. The rewrite must compile
# with gcc and clang and count exactly: link k (v == k) is taken once, and
# its else-branch runs for every v > k, 300 - k times.
. "$MPP_SRC/tests/instrument/lib.sh"
n=300
{
	echo '#include <stdio.h>'
	echo 'static int f(int v)'
	echo '{'
	echo '	int r;'
	echo '	if (v == 0)'
	echo '		r = 0;'
	for k in $(seq 1 $((n - 1))); do
		if [ $((k % 2)) = 0 ]; then
			echo "	else if (v == $k) {"
			echo "		r = $k;"
			echo '	}'
		else
			echo "	else if (v == $k)"
			echo "		r = $k;"
		fi
	done
	echo '	else'
	echo '		r = -1;'
	echo '	return r;'
	echo '}'
	echo 'int main(void)'
	echo '{'
	echo '	long s = 0;'
	echo "	for (int v = 0; v <= $n; v++)"
	echo '		s += f(v);'
	echo '	printf("%ld\n", s);'
	echo '	return 0;'
	echo '}'
} >chain.c

"$INS" -o out chain.c 2>notes || fail "mpipredict-instrument exited $?"
[ -s notes ] && fail "expected no notes, got: $(head -3 notes)"

# Expected counts, in slot order: the loop comes last in the file; each
# link's then-branch comes before its else.
{
	line=5
	for k in $(seq 0 $((n - 1))); do
		col=2
		[ "$k" -gt 0 ] && col=7
		echo "then:chain.c:$line:$col 1"
		echo "else:chain.c:$line:$col $((n - k))"
		if [ "$k" -gt 0 ] && [ $((k % 2)) = 0 ]; then
			line=$((line + 3))
		else
			line=$((line + 2))
		fi
	done
	echo "loop:chain.c:$((line + 7)):2 $((n + 1))"
	echo "unattributed 0"
} >want.counts

gcc -Wall -Wextra -Werror -c chain.c -o /dev/null || fail "original does not compile"
for cc in gcc clang; do
	$cc -Wall -Wextra -Werror -c out/chain.c -o chain.o || fail "rewrite does not compile with $cc"
	with_testrt "$cc" chain.inst out/chain.c || fail "rewrite does not link with $cc"
	rm -f counts.txt
	out=$(./chain.inst) || fail "rewritten program exits $?"
	[ "$out" = $((n * (n - 1) / 2 - 1)) ] || fail "expected $((n * (n - 1) / 2 - 1)), got $out"
	expect_same "chain counts ($cc)" want.counts counts.txt
done
echo "ok: $n links"
