#!/usr/bin/env bash
# Run rows are RFC 4180: quoted fields with commas, doubled quotes and line
# breaks, CRLF line ends. Several files take the union of their feature
# columns; a column a build never has is absent (dropped), not zero, while
# an empty cell in a build that has the column counts zero.
set -u
fail=0
hdr='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:a.c:1:1.mean,"then:a.c:2:3.mean"'
{
	echo "$hdr"
	for i in 1 2 3 4 5 6 7 8; do
		n=$((i * 16))
		printf 'r%d,app,b1,t,,2,1,%s,"-n %d --label=""x,y""\nsecond line",%d,%d\r\n' \
			"$i" "$(awk -v n=$n 'BEGIN { print 0.3 + n * 0.01 }')" "$n" "$n" $((n % 7))
	done
} >quoted.csv
mpipredict-train --db m.db --json quoted.csv >out.json 2>err.txt || { echo "expected quoted.csv to train, got $(cat err.txt)"; exit 1; }
[ -s err.txt ] && { echo "expected no warnings, got $(cat err.txt)"; fail=1; }
jq -e '.models[0].runs == 8 and .models[0].features_in == 2' out.json >/dev/null ||
	{ echo "expected 8 runs and 2 features, got $(jq -c '.models[0] | {runs, features_in}' out.json)"; fail=1; }
jq -e '.models[0].terms[] | select(.feature == "loop:a.c:1:1.mean") | .param_model.exponents["-n"] > 0.99' out.json >/dev/null ||
	{ echo "expected -n parsed from the quoted args (exponent 1)"; fail=1; }
# Union of columns over builds: f_b1 only in build b1, f_b2 only in b2.
mk() { # build first column
	echo "run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,common,$3"
	for i in 1 2 3 4 5 6; do
		echo "$1$i,u,$2,t,,1,1,$((i + 1)),,$i,$((i * 2))"
	done
}
mk a b1 f_b1 >b1.csv
mk b b2 f_b2 >b2.csv
mpipredict-train --db u.db --allow-mixed-builds --json b1.csv b2.csv >u.json 2>err.txt || { echo "union: training failed: $(cat err.txt)"; exit 1; }
jq -e '.models[0].features_in == 3 and .models[0].absent == 2' u.json >/dev/null ||
	{ echo "expected 3 columns, 2 absent, got $(jq -c '.models[0] | {features_in, absent}' u.json)"; fail=1; }
# Same build, column missing in one file: it is zero there, not absent.
mk c b1 f_b2 >b1b.csv
mpipredict-train --db v.db --json b1.csv b1b.csv >v.json 2>err.txt || { echo "same build: training failed: $(cat err.txt)"; exit 1; }
jq -e '.models[0].absent == 0 and .models[0].runs == 12' v.json >/dev/null ||
	{ echo "expected no absent column over one build, got $(jq -c '.models[0] | {absent, runs}' v.json)"; fail=1; }
# A quote that never closes is a malformed row.
{ echo "$hdr"; echo 'r1,app,b1,t,,2,1,1,"-n 3,1,2'; } >open.csv
mpipredict-train --db w.db open.csv 2>err.txt
[ $? = 2 ] && grep -q 'open.csv:2: a quoted field never ends' err.txt || { echo "expected open.csv:2 unterminated quote, got '$(cat err.txt)'"; fail=1; }
exit $fail
