#!/usr/bin/env bash
# Every installed command follows docs/design.md's conventions: --help and
# --version exit 0 and print to stdout; an unknown option exits 1 with one
# line on stderr that names the option.
set -u
progs=$(find "$MPP_BUILD/bin" -maxdepth 1 -type f -perm -u+x -name 'mpipredict*' 2>/dev/null | sort)
[ -n "$progs" ] || { echo "no program built yet"; exit 77; }
fail=0
for p in $progs; do
	n=$(basename "$p")
	out=$("$p" --help 2>/dev/null); rc=$?
	[ $rc -eq 0 ] && [ -n "$out" ] || { echo "$n --help: expected exit 0 and usage on stdout, got exit $rc"; fail=1; }
	out=$("$p" --version 2>/dev/null); rc=$?
	case "$out" in *[0-9].[0-9]*) ;; *) echo "$n --version: expected a version on stdout, got '$out'"; fail=1 ;; esac
	[ $rc -eq 0 ] || { echo "$n --version: expected exit 0, got $rc"; fail=1; }
	err=$("$p" --no-such-option-xyz 2>&1 >/dev/null); rc=$?
	[ $rc -eq 1 ] || { echo "$n --no-such-option-xyz: expected exit 1, got $rc"; fail=1; }
	lines=$(printf '%s\n' "$err" | grep -c .)
	printf '%s' "$err" | grep -q -- 'no-such-option-xyz' && [ "$lines" -ge 1 ] ||
		{ echo "$n: expected a message naming --no-such-option-xyz, got '$err'"; fail=1; }
done
exit $fail
