#!/usr/bin/env bash
# make install PREFIX=... installs every built program, library and header,
# and the installed programs run from there.
set -u
prefix=$PWD/prefix
make -s -C "$MPP_SRC" install PREFIX="$prefix" BUILD="$MPP_BUILD" >install.log 2>&1 ||
	{ echo "make install failed:"; cat install.log; exit 1; }
for d in bin lib include share; do
	[ -d "$prefix/$d" ] || { echo "expected $prefix/$d after install"; exit 1; }
done
fail=0
for p in "$MPP_BUILD"/bin/*; do
	[ -e "$p" ] || continue
	n=$(basename "$p")
	[ -x "$prefix/bin/$n" ] || { echo "expected bin/$n installed"; fail=1; continue; }
	"$prefix/bin/$n" --version >/dev/null 2>&1 || { echo "installed bin/$n --version failed"; fail=1; }
done
for l in "$MPP_BUILD"/lib/*; do
	[ -f "$l" ] || continue
	[ -e "$prefix/lib/$(basename "$l")" ] || { echo "expected lib/$(basename "$l") installed"; fail=1; }
done
exit $fail
