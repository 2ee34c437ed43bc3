# csmith.sh: the body of the csmith differential tests, sourced by
# t-csmith-differential.sh (C) and t-csmith-cxx-differential.sh (C++).
# Random programs, instrumented and original, must print the same
# checksum, and most must count something. The caller sets:
#   n            how many programs (seeds 1..n)
#   LABEL        the name in the summary line
#   CSMITH_LANG  csmith's language options (empty for C)
#   CCX, STD     the compiler and its language standard option
#   EXT          the source file extension
. "$MPP_SRC/tests/instrument/lib.sh"
command -v csmith >/dev/null || fail "csmith is not installed (make deps)"
[ -f /usr/include/csmith/csmith.h ] || fail "libcsmith-dev is not installed (make deps)"
# The programs are built without sanitizers (MPP_TEST_CFLAGS): what is
# under test here is the rewriter, which runs as built.
gcc -std=c11 -I"$MPP_SRC" -c "$TESTRT" -o testrt.plain.o || fail "cannot compile testrt.c"

one() {
	local s=$1 p=p$1
	# csmith writes platform.info in its working directory: two at once
	# in one directory race for it (CI saw seed 2 fail to generate).
	(mkdir "$p.gen" && cd "$p.gen" && csmith $CSMITH_LANG --seed "$s" -o "../$p.$EXT") >/dev/null 2>&1 ||
		{ echo "$s gen-failed"; return; }
	$CCX $STD -O1 -w -I/usr/include/csmith "$p.$EXT" -o "$p.orig" || { echo "$s orig-build-failed"; return; }
	timeout 5 ./"$p.orig" >"$p.want" 2>/dev/null
	case $? in 0) ;; 124) echo "$s dropped"; rm -f "$p".*; return ;; *) echo "$s orig-crash"; return ;; esac
	mkdir -p "$p.d"
	if ! "$INS" -o "$p.d" "$p.$EXT" -- $STD -I/usr/include/csmith >"$p.log" 2>&1; then
		echo "$s rewrite-failed"
		return
	fi
	$CCX $STD -O1 -w -I/usr/include/csmith "$p.d/$p.$EXT" testrt.plain.o -o "$p.inst" 2>>"$p.log" ||
		{ echo "$s inst-build-failed"; return; }
	MPP_TESTRT_OUT=$p.counts timeout 15 ./"$p.inst" >"$p.got" 2>/dev/null ||
		{ echo "$s inst-run-failed"; return; }
	if cmp -s "$p.want" "$p.got"; then
		local rows nz
		rows=$(grep -c -v -e '^#' -e '^name' "$p.d/features.tsv")
		nz=$(awk '$1 != "unattributed" && $2 > 0' "$p.counts" 2>/dev/null | wc -l)
		if [ "$rows" -gt 0 ]; then
			echo "$s same $rows $nz"
			rm -rf "$p".*
		else
			echo "$s no-manifest-rows"
		fi
	else
		echo "$s differs"
	fi
}
export -f one
export INS CSMITH_LANG CCX STD EXT

seq 1 "$n" | xargs -P 2 -I{} bash -c 'one {}' >results.txt
same=$(grep -c ' same ' results.txt)
dropped=$(grep -c ' dropped$' results.txt)
bad=$(grep -v -e ' same ' -e ' dropped$' results.txt | sort -n)
echo "$LABEL: $n programs, $same same, $dropped dropped (original > 5 s);" \
	"$(awk '$2 == "same" { r += $3; z += $4 } END { printf "%d counters, %d of them non-zero", r, z }' results.txt)" \
	"$(awk '$2 == "same" && $4 > 0 { c++ } END { printf "(in %d programs)", c }' results.txt)"
if [ -n "$bad" ]; then
	echo "expected every program to print the same checksum, got:"
	echo "$bad"
	for s in $(echo "$bad" | awk '{print $1}' | head -3); do
		echo "--- seed $s:"
		tail -5 "p$s.log" 2>/dev/null
		diff "p$s.want" "p$s.got" 2>/dev/null | head -5
	done
	exit 1
fi
counting=$(awk '$2 == "same" && $4 > 0' results.txt | wc -l)
[ "$counting" -ge $((same * 3 / 4)) ] ||
	fail "expected at least $((same * 3 / 4)) of $same programs with non-zero counters, got $counting"
[ "$same" -ge $((n * 8 / 10)) ] || fail "expected at least $((n * 8 / 10)) compared programs, got $same"
