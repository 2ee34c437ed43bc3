#!/usr/bin/env bash
# POST /v1/predict's handler never crashes and never answers 5xx on
# mutated requests (bytes flipped, cut, JSON and shell fragments inserted),
# from features, parameters and scripts; each answer is a prediction or a
# 400/404 with an error. Deterministic seeds; under the sanitizers in
# make check SANITIZE=1.
. "$MPP_SRC/tests/server/lib.sh"

"$HELPERS/mkmodel" "$DB" jacobi 2 'loop:a.c:1:1.mean=0.5@2.302585092994046@nprocs^1' \
	'bytes:x=0.001@0@-n^2' >/dev/null || fail "expected mkmodel to work"
echo '{"app":"jacobi","job_id":"7","user":"u","features":{"loop:a.c:1:1.mean":4,"bytes:x":1000,"other":2.5}}' >features.json
echo '{"app":"jacobi","ntasks":4,"nodes":1,"args":["-n","10","--x=3","7"]}' >params.json
jq -n --arg s $'#!/bin/bash\n#SBATCH -N 2\n#SBATCH --ntasks-per-node=4\n#MPIPREDICT app=jacobi\nexport A=1\nsrun --mpi=pmix -c 2 ./jacobi -n 10 "a b" \'c\' 2>err > out && echo ok\n' \
	'{script: $s, partition: "p", time_limit_s: 60}' >script.json
n=${MPP_FUZZ_ITERATIONS:-20000}
out=$("$HELPERS/fuzz-predict" "$DB" 1 "$n" features.json params.json script.json) ||
	fail "$out"
echo "$out"
case "$out" in *" 0 x 200,"*) fail "expected some mutated requests still answered, got $out" ;; esac
