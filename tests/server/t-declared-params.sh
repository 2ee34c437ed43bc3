#!/usr/bin/env bash
# Issue 15, item 2: parameters that are not in argv. A code that reads its
# size from an input deck (./deck-app input.dat: no number in argv) runs
# with MPIPREDICT_PARAMS="N=... NB=..." in its environment; the collector
# appends the declared parameters to the row's args (tested in
# tests/collector/t-declared-params.sh), so its rows look like the ones
# made here. The daemon reads the same names from a batch script's
# `#MPIPREDICT param N=... NB=...` line or its `export MPIPREDICT_PARAMS=`
# line, and answers what mpipredict-predict answers for those parameters;
# without them it cannot (400 naming the missing parameter); a malformed
# declaration is a 400 naming the line.
. "$MPP_SRC/tests/server/lib.sh"

hdr='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:d.c:5:3.mean'
awk -v hdr="$hdr" 'BEGIN {
	print hdr
	s = 99
	for (i = 1; i <= 40; i++) {
		s = (s * 1103515245 + 12345) % 2147483648; n = 1000 + 500 * (s % 20)
		s = (s * 1103515245 + 12345) % 2147483648; nb = 32 * (1 + s % 8)
		w = n * n / nb
		printf "r%d,deck-app,b1,t,,1,1,%.9f,input.dat N=%d NB=%d,%.0f\n", i, 0.1 + 2e-5 * w, n, nb, w
	}
}' >runs.csv
mpipredict-train --db "$DB" runs.csv >train.out 2>&1 || fail "expected training to work: $(cat train.out)"
want=$(mpipredict-predict --csv --db "$DB" --app deck-app --args "input.dat N=7000 NB=96" --ntasks 1 --nodes 1) ||
	fail "expected mpipredict-predict to answer from N and NB"
want=${want#,}
start_daemon
check() { # WHAT SCRIPT
	st=$(req POST /v1/predict "$(jq -n --arg s "$2" '{script: $s}')")
	expect_status 200 "$st" "$1"
	got=$(jq -r '[.runtime_s, .lower_s, .upper_s] | map(tostring) | join(",")' body)
	awk -v a="$want" -v b="$got" 'BEGIN { split(a, x, ","); split(b, y, ",")
		for (i = 1; i <= 3; i++) { d = x[i] - y[i]; if (d < 0) d = -d; if (d > 1e-5 * x[i]) exit 1 } }' ||
		fail "$1: expected $want (mpipredict-predict with N=7000 NB=96), got $got"
}
check "#MPIPREDICT param line" $'#!/bin/bash\n#SBATCH -n 1\n#MPIPREDICT param N=7000 NB=96\nsrun ./deck-app input.dat\n'
check "export MPIPREDICT_PARAMS" $'#!/bin/bash\n#SBATCH -n 1\nexport MPIPREDICT_PARAMS="N=7000 NB=96"\nsrun ./deck-app input.dat\n'
check "two param lines" $'#!/bin/bash\n#SBATCH -n 1\n#MPIPREDICT param N=7000\n#MPIPREDICT param NB=96\nsrun ./deck-app input.dat\n'
# Without the declaration the job shows no size.
st=$(req POST /v1/predict "$(jq -n --arg s $'#!/bin/bash\n#SBATCH -n 1\nsrun ./deck-app input.dat\n' '{script: $s}')")
expect_status 400 "$st" "no declared parameters"
grep -q 'parameter N' body || fail "expected the 400 to name parameter N, got $(cat body)"
st=$(req POST /v1/predict "$(jq -n --arg s $'#!/bin/bash\n#MPIPREDICT param N=big\nsrun ./deck-app input.dat\n' '{script: $s}')")
expect_status 400 "$st" "malformed declaration"
grep -q "line 2: param 'N=big'" body || fail "expected the 400 to name line 2 and N=big, got $(cat body)"
stop_daemon
