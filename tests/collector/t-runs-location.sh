#!/usr/bin/env bash
# MPIPREDICT_RUNS does what a user means: a path that does not exist and
# does not end in .csv is a directory (rows in <dir>/<app>.csv, also with
# no trailing slash and several missing levels); one ending in .csv is
# that file; an existing file is that file whatever its name; an
# existing directory stays a directory. OpenMPI, 2 ranks (the rule is the
# runtime's, the same for every MPI).
. "$MPP_SRC/tests/collector/lib.sh"

use_mpi openmpi
build traffic "$progs/traffic.c"
MPIPREDICT_RUNS=$PWD/some/new/dir run 2 ./traffic loops || fail "new dir: exit $?"
[ -d some/new/dir ] && [ "$(csvget some/new/dir/traffic.csv)" = 1 ] ||
	fail "expected some/new/dir/traffic.csv with one row, got: $(find some -print 2>&1)"
MPIPREDICT_RUNS=rel/dir run 2 ./traffic loops || fail "relative dir: exit $?"
[ "$(csvget rel/dir/traffic.csv)" = 1 ] || fail "expected rel/dir/traffic.csv, got: $(find rel -print 2>&1)"
MPIPREDICT_RUNS=$PWD/files/all.csv run 2 ./traffic loops || fail "csv: exit $?"
[ -f files/all.csv ] && [ "$(csvget files/all.csv)" = 1 ] || fail "expected the file files/all.csv, got: $(find files -print 2>&1)"
: >existing.rows
MPIPREDICT_RUNS=existing.rows run 2 ./traffic loops || fail "existing file: exit $?"
[ "$(csvget existing.rows)" = 1 ] || fail "expected the row in the existing file existing.rows"
mkdir old.csv
MPIPREDICT_RUNS=old.csv run 2 ./traffic loops || fail "existing dir: exit $?"
[ "$(csvget old.csv/traffic.csv)" = 1 ] || fail "expected old.csv/traffic.csv (an existing directory stays one)"
finish
