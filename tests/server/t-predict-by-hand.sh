#!/usr/bin/env bash
# POST /v1/predict answers from features, from job parameters (args as an
# array or a string) and from a batch script, with values computed here by
# hand from a hand-written model; the model endpoints list it; every
# answered prediction is in the predictions table after SIGTERM, even with
# an audit interval longer than the test (the queue is flushed at exit);
# at --log-level info, each request has its log line.
. "$MPP_SRC/tests/server/lib.sh"

# runtime = 2 + 0.5 * loop + 0.001 * bytes
# loop  from parameters: exp(log 10 + 1 * log nprocs) = 10 * nprocs
# bytes from parameters: (-n)^2
"$HELPERS/mkmodel" "$DB" jacobi 2 'loop:a.c:1:1.mean=0.5@2.302585092994046@nprocs^1' \
	'bytes:x=0.001@0@-n^2' >/dev/null || fail "expected mkmodel to work"
start_daemon --audit-interval 600000 --audit-batch 100000 --log-level info

st=$(req POST /v1/predict '{"app":"jacobi","job_id":"41","user":"ann","partition":"batch","features":{"loop:a.c:1:1.mean":4,"bytes:x":1000,"extra:1":1,"extra:2":0}}')
expect_status 200 "$st" "features"
close_to "features runtime_s" 5 "$(jq .runtime_s body)"
close_to "features lower_s" 4 "$(jq .lower_s body)"
close_to "features upper_s" 6.25 "$(jq .upper_s body)"
[ "$(jq -c '[.app,.basis,.model.id,.model.version]' body)" = '["jacobi","features",1,1]' ] ||
	fail "features: expected app, basis, model id and version, got $(cat body)"
[ "$(jq -c '.ignored_features|sort' body)" = '["extra:1","extra:2"]' ] ||
	fail "features: expected ignored extra:1 and extra:2, got $(cat body)"

# 4 tasks, -n 10: 2 + 0.5 * 40 + 0.001 * 100 = 22.1, interval x0.5 / x2.
st=$(req POST /v1/predict '{"app":"jacobi","ntasks":4,"args":["-n","10"]}')
expect_status 200 "$st" "parameters (array)"
close_to "parameters runtime_s" 22.1 "$(jq .runtime_s body)"
close_to "parameters lower_s" 11.05 "$(jq .lower_s body)"
close_to "parameters upper_s" 44.2 "$(jq .upper_s body)"
[ "$(jq -r .basis body)" = parameters ] || fail "expected basis parameters, got $(cat body)"

st=$(req POST /v1/predict '{"app":"jacobi","ntasks":4,"args":"-n 10"}')
expect_status 200 "$st" "parameters (string)"
close_to "parameters (string)" 22.1 "$(jq .runtime_s body)"

# From a script: app from the executable's basename, ntasks from #SBATCH,
# launcher options skipped; then the same with #MPIPREDICT naming the app
# and srun's own -n overriding #SBATCH (8 tasks: 2 + 40 + 0.1 = 42.1).
script=$'#!/bin/bash\n#SBATCH --ntasks=4\n#SBATCH -t 10\nmodule load mpi\nsrun --mpi=pmix -c 2 /home/u/bin/jacobi -n 10 > out.txt\n'
st=$(req POST /v1/predict "$(jq -n --arg s "$script" '{script:$s, job_id:42}')")
expect_status 200 "$st" "script"
close_to "script" 22.1 "$(jq .runtime_s body)"
[ "$(jq -r .app body)" = jacobi ] || fail "script: expected app jacobi, got $(cat body)"
script=$'#MPIPREDICT app=jacobi\n#SBATCH -n 4\nmpirun -np 8 --bind-to core ./a.out -n 10\n'
st=$(req POST /v1/predict "$(jq -n --arg s "$script" '{script:$s}')")
expect_status 200 "$st" "script with #MPIPREDICT"
close_to "script with #MPIPREDICT" 42.1 "$(jq .runtime_s body)"

# What the Slurm plugin sends: an empty args array next to the script
# (the script's arguments count), fields the daemon does not use, and
# nodes x ntasks_per_node when ntasks is not given (2 x 4 = 8 tasks).
script=$'#!/bin/bash\nsrun ./jacobi -n 10\n'
st=$(req POST /v1/predict "$(jq -n --arg s "$script" '{script:$s, args:[], argv:["x"], submit_line:"sbatch job.sh", uid:0, nodes:2, ntasks_per_node:4, time_limit_s:600}')")
expect_status 200 "$st" "plugin-style request"
close_to "plugin-style request" 42.1 "$(jq .runtime_s body)"

# Models.
st=$(req GET /v1/models)
expect_status 200 "$st" "GET /v1/models"
[ "$(jq -c '[.models[]|[.app,.version,.nterms,.cv_mape]]' body)" = '[["jacobi",1,2,3.5]]' ] ||
	fail "GET /v1/models: expected jacobi v1 with 2 terms, got $(cat body)"
st=$(req GET /v1/models/jacobi)
expect_status 200 "$st" "GET /v1/models/jacobi"
[ "$(jq -c '[.terms[].feature]' body)" = '["loop:a.c:1:1.mean","bytes:x"]' ] ||
	fail "GET /v1/models/jacobi: expected the two terms, got $(cat body)"
close_to "model intercept" 2 "$(jq .intercept body)"
st=$(req GET /healthz)
version=$(mpipredictd --version | cut -d' ' -f2)
want="[\"ok\",1,\"number\",\"$version\"]"
[ "$st" = 200 ] && [ "$(jq -c '[.status, .models, (.schema | type), .version]' body)" = "$want" ] ||
	fail "GET /healthz: expected status, models, schema and version $want, got $st $(cat body)"

st=$(req GET /metrics)
expect_status 200 "$st" "GET /metrics"
grep -q '^mpipredictd_predictions_total{basis="features"} 1$' body &&
	grep -q '^mpipredictd_predictions_total{basis="parameters"} 5$' body &&
	grep -q '^mpipredictd_requests_total{endpoint="predict",status="200"} 6$' body &&
	grep -q '^mpipredictd_request_duration_seconds_count{endpoint="predict"} 6$' body ||
	fail "metrics: expected 1 + 5 predictions and 6 predict requests, got $(grep -E 'predictions_total|endpoint="predict"' body)"

[ "$(rows predictions)" = 0 ] || fail "expected no audit rows before the first interval, got $(rows predictions)"
stop_daemon
[ "$(rows predictions)" = 6 ] || fail "expected 6 audit rows after SIGTERM, got $(rows predictions)"
got=$(sqlite3 "$DB" "SELECT job_id, user, partition, basis, model_id, runtime_s FROM predictions ORDER BY id LIMIT 1")
[ "$got" = "41|ann|batch|features|1|5.0" ] || fail "expected the first audit row 41|ann|batch|features|1|5.0, got $got"
[ "$(sqlite3 "$DB" "SELECT job_id FROM predictions WHERE id = 4")" = 42 ] ||
	fail "expected job_id 42 (an integer in JSON) recorded as text"
n=$(grep -c ' info POST /v1/predict 200 ' daemon.log)
[ "$n" = 6 ] || fail "expected 6 request lines at level info, got $n"
echo "6 predictions answered as computed by hand and audited"
