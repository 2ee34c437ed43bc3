#!/usr/bin/env bash
# The runs file is never opened through a symbolic link: a link planted in
# the runs directory (to another user's file, or dangling to where one would
# be made) gets no row, and the one stderr line says why. A new runs file on
# a full disk (a tiny tmpfs, as root in a mount namespace of its own) is not
# left behind as a 0-byte .csv, and an existing one keeps its bytes. Both
# through the runtime (OpenMPI) and mpipredict-collect.
. "$MPP_SRC/tests/collector/lib.sh"

use_mpi openmpi
build traffic "$progs/traffic.c"
MPIPREDICT_RUNS=ok/ MPIPREDICT_DUMP=dumps run 2 ./traffic loops 2>err.txt ||
	{ fail "expected traffic to run, got: $(cat err.txt)"; finish; }
[ "$(csvget ok/traffic.csv)" = 1 ] || { fail "expected one row in ok/traffic.csv"; finish; }

# A planted link to a file (empty: it would get the header and the row):
# refused, the file unchanged.
mkdir runs
: >victim
ln -s ../victim runs/traffic.csv
MPIPREDICT_RUNS=runs/ run 2 ./traffic loops >out.txt 2>err.txt
rc=$?
[ $rc = 0 ] || fail "runtime, planted link: expected the program's own status 0, got $rc"
[ -s victim ] && fail "runtime, planted link: expected the linked file untouched, got: $(head -c 200 victim)"
grep -q 'mpipredict: .*runs/traffic.csv.*symbolic link' err.txt ||
	fail "runtime, planted link: expected a line naming runs/traffic.csv as a symbolic link, got: $(cat err.txt)"
mpipredict-collect --runs runs/ dumps 2>err.txt
rc=$?
[ $rc = 2 ] || fail "collect, planted link: expected exit 2, got $rc"
[ -s victim ] && fail "collect, planted link: expected the linked file untouched"
grep -q 'symbolic link' err.txt || fail "collect, planted link: expected 'symbolic link' in $(cat err.txt)"
# A dangling link: the file it points to is not created.
mkdir runs2
ln -s ../made-through-link runs2/traffic.csv
mpipredict-collect --runs runs2/ dumps 2>err.txt
[ $? = 2 ] || fail "collect, dangling link: expected exit 2"
[ -e made-through-link ] && fail "collect, dangling link: expected no file made through the link"
# The same with the runs path naming the file itself.
mpipredict-collect --runs runs/traffic.csv dumps 2>err.txt
[ $? = 2 ] || fail "collect, link as the runs file: expected exit 2"
[ -s victim ] && fail "collect, link as the runs file: expected the linked file untouched"

# A full disk.
if [ "$(id -u)" != 0 ] || ! unshare -m true 2>/dev/null; then
	echo "skipping the full-disk half: needs root and mount namespaces"
	finish
fi
mkdir full
cp ok/traffic.csv old.csv
unshare -m bash -c '
	set -u
	mount -t tmpfs -o size=64k tmpfs full || exit 77
	mkdir full/a full/b
	cp old.csv full/b/traffic.csv
	dd if=/dev/zero of=full/filler bs=4k 2>/dev/null
	mpipredict-collect --runs full/a/ dumps 2>err-new.txt; echo $? >rc-new.txt
	mpipredict-collect --runs full/b/ dumps 2>err-old.txt; echo $? >rc-old.txt
	ls -A full/a >left-new.txt
	cmp -s old.csv full/b/traffic.csv; echo $? >same-old.txt
	MPIPREDICT_RUNS=full/a/ '"$RUN"' -np 2 ./traffic loops 2>err-rt.txt; echo $? >rc-rt.txt
	ls -A full/a >left-rt.txt
'
st=$?
if [ $st = 77 ]; then
	echo "skipping the full-disk half: cannot mount a tmpfs here"
	finish
fi
[ "$(cat rc-new.txt)" = 2 ] || fail "full disk, new file: expected exit 2, got $(cat rc-new.txt): $(cat err-new.txt)"
grep -q 'full/a/traffic.csv: No space left' err-new.txt || fail "full disk, new file: expected 'No space left' naming the file, got $(cat err-new.txt)"
[ -s left-new.txt ] && fail "full disk, new file: expected nothing left in the runs directory, got: $(cat left-new.txt)"
[ "$(cat rc-old.txt)" = 2 ] || fail "full disk, existing file: expected exit 2, got $(cat rc-old.txt)"
[ "$(cat same-old.txt)" = 0 ] || fail "full disk, existing file: expected its bytes unchanged"
[ "$(cat rc-rt.txt)" = 0 ] || fail "full disk, runtime: expected the program's status 0, got $(cat rc-rt.txt)"
grep -q 'mpipredict: .*No space left' err-rt.txt || fail "full disk, runtime: expected one line saying 'No space left', got $(cat err-rt.txt)"
[ -s left-rt.txt ] && fail "full disk, runtime: expected nothing left in the runs directory, got: $(cat left-rt.txt)"
finish
