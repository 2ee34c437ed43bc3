#!/usr/bin/env bash
# What the Slurm plugin sends for srun and salloc jobs: Slurm 22.05 hands
# job_submit argv[0] alone for srun and no argv for salloc, so the
# arguments are only in `submit_line`. With no script and at most argv[0],
# the daemon reads the submit line as it reads a batch script's launch line
# (srun's options skipped, salloc's too, then the launcher inside it); the
# uid the plugin sends is audited as "uid:N" when there is no user name.
. "$MPP_SRC/tests/server/lib.sh"

# runtime = 2 + 0.5 * (10 * nprocs) + 0.001 * (-n)^2
"$HELPERS/mkmodel" "$DB" jacobi 2 'loop:a.c:1:1.mean=0.5@2.302585092994046@nprocs^1' \
	'bytes:x=0.001@0@-n^2' >/dev/null || fail "expected mkmodel to work"
start_daemon

check() { # WHAT BODY WANT-RUNTIME
	local st
	st=$(req POST /v1/predict "$2")
	expect_status 200 "$st" "$1"
	close_to "$1" "$3" "$(jq .runtime_s body)"
	[ "$(jq -r '.app + " " + .basis' body)" = "jacobi parameters" ] ||
		fail "$1: expected app jacobi, basis parameters, got $(cat body)"
}
# srun -n 4 ... -n 10: 2 + 20 + 0.1; -n 20 on 8 tasks: 2 + 40 + 0.4.
check "srun submit line" '{"argv":["/opt/bin/jacobi"],"submit_line":"srun -J x -t 5 -n 4 /opt/bin/jacobi -n 10","uid":1234}' 22.1
check "salloc submit line" '{"submit_line":"salloc -N 1 mpirun -np 8 ./jacobi -n 20","uid":1234}' 42.4
# A full argv wins over the submit line; a script wins over both.
check "argv over submit line" '{"argv":["jacobi","-n","20"],"ntasks":4,"submit_line":"srun -n 4 jacobi -n 10"}' 22.4
script=$'#!/bin/bash\n#SBATCH -n 8\nsrun ./jacobi -n 10\n'
check "script over submit line" "$(jq -n --arg s "$script" '{script:$s, submit_line:"sbatch job.sh", uid:7}')" 42.1
st=$(req POST /v1/predict '{"submit_line":"srun -n 4 \"jacobi -n 10","uid":1}')
expect_status 400 "$st" "unterminated quote in the submit line"
jq -r .error body | grep -q '^submit_line: ' || fail "expected the error to name submit_line, got $(cat body)"
st=$(req POST /v1/predict '{"submit_line":"srun ./jacobi","uid":-3}')
expect_status 400 "$st" "a negative uid"
jq -r .error body | grep -q '^uid: ' || fail "expected the error to name uid, got $(cat body)"
stop_daemon
[ "$(rows predictions)" = 4 ] || fail "expected 4 audited predictions, got $(rows predictions)"
got=$(sqlite3 "$DB" "SELECT group_concat(coalesce(user, '-'), ',') FROM (SELECT user FROM predictions ORDER BY id)")
[ "$got" = "uid:1234,uid:1234,-,uid:7" ] || fail "expected users uid:1234,uid:1234,-,uid:7 audited, got $got"
echo "submit lines name the app and its arguments"
