#!/usr/bin/env bash
# A header with 100,000 feature columns (real codes give 18,000) loads and
# predicts the same as the narrow file; the same header with one name given
# twice is refused naming that column; and a column given twice in a second
# file, whose name the first file already had, is refused too (it was
# silently accepted, the later column winning). Correctness only: the speed
# of the duplicate check (it was quadratic) is in regress/README.md.
set -u
fail=0
"$MPP_BUILD/tests/regress/gen-runs" --runs 40 --features 30 --seed 5 >runs.csv || exit 1
mpipredict-train --db m.db runs.csv >/dev/null 2>&1 || { echo "training failed"; exit 1; }
mpipredict-predict --csv --db m.db --app stencil --features runs.csv >narrow.out 2>err.txt ||
	{ echo "expected the narrow file predicted, got $(cat err.txt)"; exit 1; }
# The same rows with 100,000 more columns (x1..x100000, value 0).
n=100000
awk -F, -v n="$n" 'NR == 1 { printf "%s", $0; for (i = 1; i <= n; i++) printf ",x%d", i; print ""; next }
	{ printf "%s", $0; for (i = 1; i <= n; i++) printf ",0"; print "" }' runs.csv >wide.csv
mpipredict-predict --csv --db m.db --app stencil --features wide.csv >wide.out 2>err.txt ||
	{ echo "expected the $n-column file loaded, got exit $?: $(cat err.txt)"; fail=1; }
cmp -s narrow.out wide.out || { echo "expected the same predictions from the wide file"; fail=1; }
# One duplicate far into the header: x77777 again as the last column.
awk -F, -v n="$n" 'NR == 1 { printf "%s", $0; for (i = 1; i <= n; i++) printf ",x%d", i; print ",x77777"; next }
	{ printf "%s", $0; for (i = 1; i <= n + 1; i++) printf ",0"; print "" }' runs.csv >dup.csv
mpipredict-predict --csv --db m.db --app stencil --features dup.csv >dup.out 2>err.txt
rc=$?
[ $rc = 2 ] || { echo "duplicate column: expected exit 2, got $rc"; fail=1; }
grep -q 'dup.csv:1: column x77777 appears twice' err.txt ||
	{ echo "duplicate column: expected 'dup.csv:1: column x77777 appears twice', got '$(cat err.txt)'"; fail=1; }
[ -s dup.out ] && { echo "duplicate column: expected no output"; fail=1; }
# Two duplicates: the one whose second occurrence comes first is named.
hdr='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args'
{ echo "$hdr,b,a,c,a,b"; echo "r1,app1,b1,t,,1,1,1.5,,1,2,3,4,5"; } >two.csv
mpipredict-train --db t.db two.csv >/dev/null 2>err.txt
grep -q 'two.csv:1: column a appears twice' err.txt ||
	{ echo "two duplicates: expected column a named, got '$(cat err.txt)'"; fail=1; }
# A second file repeating a column the first one has.
{ echo "$hdr,f1,f2"; for i in 1 2 3 4 5 6; do echo "r$i,app1,b1,t,,$i,1,$i.5,,$i,$((i * i))"; done; } >one.csv
{ echo "$hdr,f2,f1,f2"; for i in 7 8 9; do echo "r$i,app1,b1,t,,$i,1,$i.5,,$((i * i)),$i,$((i * i))"; done; } >again.csv
mpipredict-train --db t.db one.csv again.csv >/dev/null 2>err.txt
rc=$?
[ $rc = 2 ] || { echo "duplicate across files: expected exit 2, got $rc"; fail=1; }
grep -q 'again.csv:1: column f2 appears twice' err.txt ||
	{ echo "duplicate across files: expected 'again.csv:1: column f2 appears twice', got '$(cat err.txt)'"; fail=1; }
exit $fail
