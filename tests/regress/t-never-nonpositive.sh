#!/usr/bin/env bash
# An answer is always a positive run time (issue 15, item 6). The seed's
# least squares keeps a negative coefficient: on runs of
# y = 50 - 0.4 a + 2 c (a in 1..97, c in 1..89, every run > 0 s) it keeps a
# and c with --target 2; asked about a = 1000, c = 1 it would give
# 50 - 400 + 2 < 0 s (before this change: "0" printed as an answer).
# mpipredict-predict must refuse that row (exit 2, naming the value and
# the method, nothing printed), keep answering rows inside the training
# runs with a positive time. (The daemon calls the same predict functions
# and answers 400 with the message.)
set -u
hdr='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,a,c'
awk -v hdr="$hdr" 'BEGIN {
	print hdr
	s = 777
	for (i = 1; i <= 30; i++) {
		s = (s * 1103515245 + 12345) % 2147483648; a = 1 + s % 97
		s = (s * 1103515245 + 12345) % 2147483648; c = 1 + s % 89
		y = 50 - 0.4 * a + 2 * c
		printf "r%d,neg,b1,t,,1,1,%.10f,-s %d,%d,%d\n", i, y, a, a, c
	}
}' >runs.csv
mpipredict-train --db m.db --method seed --target 2 --json runs.csv >train.json 2>err.txt ||
	{ echo "seed training failed: $(cat err.txt)"; exit 1; }
got=$(jq -c '[.models[0].terms[].feature] | sort' train.json)
[ "$got" = '["a","c"]' ] || { echo "expected the seed to keep a and c, got $got"; exit 1; }
fail=0
printf '%s\nq1,neg,b1,t,,1,1,1,,1000,1\n' "$hdr" >far.csv
mpipredict-predict --csv --db m.db --app neg --features far.csv >out.txt 2>err.txt
rc=$?
[ $rc = 2 ] && grep -q "not a positive run time" err.txt && grep -q "method seed" err.txt && [ ! -s out.txt ] ||
	{ echo "expected exit 2 'not a positive run time' naming method seed and no output, got rc $rc, '$(cat out.txt)' '$(cat err.txt)'"; fail=1; }
printf '%s\nq2,neg,b1,t,,1,1,1,,50,40\n' "$hdr" >near.csv
out=$(mpipredict-predict --csv --db m.db --app neg --features near.csv 2>err.txt) ||
	{ echo "expected an answer inside the training runs, got $(cat err.txt)"; fail=1; }
# 50 - 20 + 80 = 110 s, fitted exactly (noise-free runs).
echo "$out" | awk -F, '{ exit !($2 > 109.9 && $2 < 110.1 && $3 > 0 && $3 <= $2 && $2 <= $4) }' ||
	{ echo "expected q2 at 110 s with 0 < lower <= predicted <= upper, got '$out'"; fail=1; }
exit $fail
