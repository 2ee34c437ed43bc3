#!/usr/bin/env bash
# make install PREFIX=... installs every built program, library and header,
# and the installed programs run from there; every installed header compiles
# on its own, the shared files are there, and pkg-config finds the runtime
# through the installed mpipredict.pc.
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
n=0
for h in "$prefix"/include/mpipredict/*.h; do
	[ -e "$h" ] || continue
	n=$((n + 1))
	echo "#include <$(basename "$h")>" | cc -fsyntax-only -I"$prefix/include/mpipredict" -x c - 2>cc.err ||
		{ echo "installed header $(basename "$h") does not compile on its own: $(head -3 cc.err)"; fail=1; }
done
[ "$n" -gt 0 ] || { echo "expected headers in include/mpipredict"; fail=1; }
for f in schema.sql mpipredict.conf mpipredictd.service; do
	[ -n "$(find "$prefix/share/mpipredict" -name "$f")" ] || { echo "expected share/mpipredict/.../$f installed"; fail=1; }
done
pc=$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs mpipredict 2>&1)
case $pc in
*"-I$prefix/include/mpipredict"*"-L$prefix/lib"*-lmpipredict*) ;;
*) echo "expected pkg-config to give the installed include and lib dirs, got '$pc'"; fail=1 ;;
esac
exit $fail
