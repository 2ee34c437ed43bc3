#!/usr/bin/env bash
# Bad inputs give exit 2 and a one-line message naming the file (and the
# line), and no model is written; a malformed row among good ones is
# reported as file:line and skipped.
set -u
hdr='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,f1,f2'
good() { # first-id count build
	for i in $(seq "$1" $(($1 + $2 - 1))); do
		echo "r$i,app1,$3,2026-01-01T00:00:00Z,,$((i % 4 + 1)),1,$((i + 1)).5,-n $i,$((i * 3)),$((i * i))"
	done
}
fail=0
models() { [ -f m.db ] && sqlite3 m.db 'SELECT count(*) FROM models' 2>/dev/null || echo 0; }
expect_error() { # name pattern file...
	local name=$1 pat=$2; shift 2
	rm -f m.db
	mpipredict-train --db m.db "$@" >out.txt 2>err.txt
	local rc=$?
	if [ $rc != 2 ]; then echo "$name: expected exit 2, got $rc"; fail=1; fi
	if ! grep -q -e "$pat" err.txt; then echo "$name: expected a message matching '$pat', got '$(cat err.txt)'"; fail=1; fi
	if [ "$(models)" != 0 ]; then echo "$name: expected no model written"; fail=1; fi
}

: >empty.csv
expect_error "empty file" 'empty.csv: empty file' empty.csv
echo "$hdr" >header.csv
expect_error "header only" 'header.csv: no usable row' header.csv
{ echo "$hdr"; echo "r1,app1,b1,t,,4,1,2.5,-n 8,1"; echo "r2,app1,b1,t,,4,1,2.5,-n 8,1,2,3"; } >ragged.csv
expect_error "ragged rows" 'ragged.csv:2: 10 fields, the header has 11' ragged.csv
grep -q 'ragged.csv:3: 12 fields' err.txt || { echo "ragged rows: expected line 3 reported too"; fail=1; }
{ echo "$hdr"; echo "r1,app1,b1,t,,4,1,2.5,-n 8,abc,1"; } >nonnum.csv
expect_error "non-numeric" "nonnum.csv:2: f1: 'abc' is not a finite number" nonnum.csv
{ echo "$hdr"; echo "r1,app1,b1,t,,4,1,nan,-n 8,1,1"; echo "r2,app1,b1,t,,4,1,1,-n 8,NaN,1"; } >nan.csv
expect_error "NaN" "nan.csv:2: runtime_s: 'nan'" nan.csv
grep -q "nan.csv:3: f1: 'NaN' is not a finite number" err.txt || { echo "NaN: expected line 3 reported"; fail=1; }
{ echo "$hdr"; good 1 8 b1; good 5 1 b1; } >dup.csv
expect_error "duplicate run ids" "dup.csv:10: duplicate run_id 'r5' (first at line 6)" dup.csv
{ echo "$hdr"; good 1 8 b1; } >b1.csv
{ echo "$hdr"; good 20 8 b2; } >b2.csv
expect_error "mixed builds" "app app1: runs of build_id 'b1' and 'b2'" b1.csv b2.csv
expect_error "missing file" 'nosuch.csv: No such file' nosuch.csv
expect_error "unknown app" "no runs of app 'other'" --app other b1.csv
printf '\n\r\n\nrun_id,app,xx\n' >late.csv
expect_error "header after blank lines" 'late.csv:4: header column 3 must be build_id' late.csv
# Files without any feature column: a clear error, not a crash (glibc's
# realloc to 0 bytes freed the column list once).
fixed='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args'
{ echo "$fixed"; echo "r1,app1,b1,t,,1,1,1.5,"; } >nofeat1.csv
{ echo "$fixed"; echo "r2,app1,b1,t,,1,1,1.5,"; } >nofeat2.csv
expect_error "no feature columns" 'app app1: 2 runs, at least 5 needed' nofeat1.csv nofeat2.csv
{ echo "$hdr"; good 1 3 b1; } >few.csv
expect_error "too few runs" 'at least 5 needed' few.csv

# One bad row among good ones: reported, skipped, the model is trained.
rm -f m.db
{ echo "$hdr"; good 1 8 b1; echo "r99,app1,b1,t,,4,1,2.5,-n 8,1"; } >onebad.csv
mpipredict-train --db m.db onebad.csv >out.txt 2>err.txt || { echo "one bad row: expected success, got $(cat err.txt)"; fail=1; }
grep -q 'onebad.csv:10: 10 fields, the header has 11 (skipped)' err.txt || { echo "one bad row: expected onebad.csv:10 reported, got '$(cat err.txt)'"; fail=1; }
grep -q '^app1: version [0-9]*, 8 runs' out.txt || { echo "one bad row: expected 8 runs used, got '$(head -1 out.txt)'"; fail=1; }
# Mixed builds are accepted when asked for.
rm -f m.db
mpipredict-train --db m.db --allow-mixed-builds b1.csv b2.csv >out.txt 2>err.txt || { echo "--allow-mixed-builds: expected success, got $(cat err.txt)"; fail=1; }
[ "$(models)" = 1 ] || { echo "--allow-mixed-builds: expected one model"; fail=1; }
got=$(sqlite3 m.db 'SELECT build_id FROM models')
[ "$got" = "b1+b2" ] || { echo "--allow-mixed-builds: expected the model's build_id b1+b2 (both builds), got '$got'"; fail=1; }
mpipredict-predict --csv --db m.db --app app1 --features b2.csv >/dev/null 2>err.txt || { echo "predict b2 rows: $(cat err.txt)"; fail=1; }
[ ! -s err.txt ] || { echo "expected no build warning for b2 rows under a b1+b2 model, got '$(cat err.txt)'"; fail=1; }
rm -f m.db
mpipredict-train --db m.db b1.csv >/dev/null 2>&1
mpipredict-predict --csv --db m.db --app app1 --features b2.csv >/dev/null 2>err.txt
grep -q 'build b2, the model was trained on build b1' err.txt || { echo "expected a warning for b2 rows under a b1 model, got '$(cat err.txt)'"; fail=1; }
mpipredict-train --db m.db --no-such b1.csv >/dev/null 2>err.txt
[ $? = 1 ] && grep -q -- '--no-such' err.txt || { echo "expected exit 1 naming --no-such"; fail=1; }
exit $fail
