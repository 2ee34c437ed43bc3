#!/usr/bin/env bash
# The `argv` field (an srun/salloc submission's executable and arguments):
# without a script, the app is argv[0]'s basename unless `app` names it,
# and the arguments are argv[1..] unless `args` gives them; with a script,
# the script's launch line decides and argv is not read.
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
# 4 tasks, -n 10: 2 + 20 + 0.1; -n 20: 2 + 20 + 0.4; 8 tasks: 2 + 40 + 0.1.
check "argv alone" '{"argv":["/opt/bin/jacobi","-n","10"],"ntasks":4}' 22.1
check "argv with app" '{"app":"jacobi","argv":["./a.out","-n","20"],"ntasks":4}' 22.4
check "argv with args" '{"argv":["jacobi","-n","10"],"args":["-n","20"],"ntasks":4}' 22.4
script=$'#!/bin/bash\n#SBATCH -n 8\nsrun ./jacobi -n 10\n'
check "script with argv" "$(jq -n --arg s "$script" '{script:$s, argv:["job.sh","-n","20"]}')" 42.1
# A script without a launch line: argv (the batch script and its
# arguments) still does not name the app.
st=$(req POST /v1/predict "$(jq -n '{script:"#!/bin/bash\necho hi\n", argv:["jacobi","-n","10"], ntasks:4}')")
expect_status 400 "$st" "a script without a launch line"
jq -r .error body | grep -q '^app: missing' || fail "expected 'app: missing', got $(cat body)"
st=$(req POST /v1/predict '{"argv":[],"ntasks":4}')
expect_status 400 "$st" "empty argv"
st=$(req POST /v1/predict '{"argv":["/opt/bin/other","-n","10"],"ntasks":4}')
expect_status 404 "$st" "argv naming an unknown app"
jq -r .error body | grep -q "'other'" || fail "expected the 404 to name 'other', got $(cat body)"
stop_daemon
[ "$(rows predictions)" = 4 ] || fail "expected 4 audited predictions, got $(rows predictions)"
echo "argv names the app and its arguments"
