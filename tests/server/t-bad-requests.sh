#!/usr/bin/env bash
# A table of bad requests, each with its expected status (and the field the
# error names), the daemon answering /healthz after each; then the abusive
# clients: a 100 MiB body with and without Content-Length, one byte per
# second, 1,000 connections at once. Nothing is written to the store for
# any of them: no prediction and no run rows.
. "$MPP_SRC/tests/server/lib.sh"

"$HELPERS/mkmodel" "$DB" heat 1 'loop:h.c:3:1.mean=2@0@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"
echo secret-token >token
start_daemon --token-file token --request-timeout 2 --idle-timeout 5 \
	--audit-interval 10

many=$(seq 10000 | jq -R -s -c 'split("\n")[:-1] | map({key: ("f" + .), value: 1}) | from_entries |
	{app: "heat", features: .}')
ok_features='"features":{"loop:h.c:3:1.mean":1}'

# status | method | path | body | what the error must mention
while IFS='|' read -r want method path data mention; do
	[ -z "$want" ] && continue
	st=$(req "$method" "$path" "$data")
	[ "$st" = "$want" ] || fail "$method $path $data: expected status $want, got $st: $(head -c 300 body)"
	if [ "$want" != 405 ] || [ -s body ]; then
		err=$(jq -r .error body 2>/dev/null) ||
			fail "$method $path $data: expected a JSON error, got $(head -c 300 body)"
		case "$err" in *"$mention"*) ;; *)
			fail "$method $path $data: expected an error mentioning '$mention', got '$err'" ;;
		esac
	fi
	healthy "$method $path $data"
done <<TABLE
400|POST|/v1/predict|{"app":"heat",|invalid JSON
400|POST|/v1/predict|{"app":"heat","features":{"loop:h.c:3:1.mean":1|invalid JSON
400|POST|/v1/predict|not json at all|invalid JSON
400|POST|/v1/predict||invalid JSON
400|POST|/v1/predict|[1,2]|expected a JSON object
400|POST|/v1/predict|{"app":5,$ok_features}|app
400|POST|/v1/predict|{"app":"","ntasks":2}|app
400|POST|/v1/predict|{"app":"heat","features":[1]}|features
400|POST|/v1/predict|{"app":"heat","features":{"loop:h.c:3:1.mean":"1"}}|features.loop:h.c:3:1.mean
400|POST|/v1/predict|{"app":"heat","ntasks":"4"}|ntasks
400|POST|/v1/predict|{"app":"heat","ntasks":2.5}|ntasks
400|POST|/v1/predict|{"app":"heat","nodes":-1}|nodes
400|POST|/v1/predict|{"app":"heat","ntasks":1e300}|ntasks
400|POST|/v1/predict|{"app":"heat","features":{"loop:h.c:3:1.mean":1e308}}|overflows
400|POST|/v1/predict|{"app":"heat","args":5}|args
400|POST|/v1/predict|{"app":"heat","args":["-n",4]}|args[1]
400|POST|/v1/predict|{"app":"heat","script":7}|script
400|POST|/v1/predict|{"app":"heat","job_id":{}}|job_id
400|POST|/v1/predict|{"app":"heat","user":1,"ntasks":1}|user
400|POST|/v1/predict|{"app":"heat","user":["ann"],"ntasks":1}|user
400|POST|/v1/predict|{"app":"heat","partition":2,"ntasks":1}|partition
400|POST|/v1/predict|{"app":"heat","partition":{},"ntasks":1}|partition
400|POST|/v1/predict|{"app":"heat","time_limit_s":"60","ntasks":1}|time_limit_s
400|POST|/v1/predict|{"app":"heat","time_limit_s":-1,"ntasks":1}|time_limit_s
400|POST|/v1/predict|{"app":"heat","time_limit_s":[60],"ntasks":1}|time_limit_s
400|POST|/v1/predict|{"app":"heat","nodes":2,"ntasks_per_node":"4"}|ntasks_per_node
400|POST|/v1/predict|{"app":"heat","nodes":2,"ntasks_per_node":0}|ntasks_per_node
400|POST|/v1/predict|{"app":"heat","nodes":2,"ntasks_per_node":1.5}|ntasks_per_node
400|POST|/v1/predict|{"app":"heat","nodes":"2","ntasks":4}|nodes
400|POST|/v1/predict|{"app":"heat","nodes":true,"ntasks":4}|nodes
400|POST|/v1/predict|{"app":"heat","nodes":[2],"ntasks":4}|nodes
400|POST|/v1/predict|{"app":"heat","ntasks":4,"args":[null]}|args[0]
400|POST|/v1/predict|{"app":"heat","ntasks":4,"args":["-n",["4"]]}|args[1]
400|POST|/v1/predict|{"app":"heat","ntasks":4,"args":["-n",{"v":4}]}|args[1]
400|POST|/v1/predict|{"app":"heat","ntasks":4,"args":["-n",true]}|args[1]
400|POST|/v1/predict|{"app":"heat","ntasks":4,"args":{"n":4}}|args
400|POST|/v1/predict|{"app":"heat","ntasks":4,"argv":"heat -n 4"}|argv
400|POST|/v1/predict|{"app":"heat","ntasks":4,"argv":["heat",4]}|argv[1]
400|POST|/v1/predict|{"app":"heat","ntasks":4,"ntasks":5}|duplicate
400|POST|/v1/predict|{$ok_features}|app
400|POST|/v1/predict|{"app":"heat"}|features
400|POST|/v1/predict|{"app":"heat","features":{"loop:h.c:3:1.mean":-1}}|features.loop:h.c:3:1.mean
400|POST|/v1/predict|{"app":"heat","features":{"loop:h.c:3:1.mean":NaN}}|invalid JSON
400|POST|/v1/predict|{"app":"heat","features":{"loop:h.c:3:1.mean":Infinity}}|invalid JSON
400|POST|/v1/predict|{"app":"heat","features":{"loop:h.c:3:1.mean":1e999}}|invalid JSON
400|POST|/v1/predict|{"app":"heat","features":{"other":1}}|loop:h.c:3:1.mean
400|POST|/v1/predict|{"app":"heat","features":{"a":1,"a":2}}|duplicate
400|POST|/v1/predict|$many|features
400|POST|/v1/predict|{"app":"heat","script":"srun -n 2 ./heat 'unterminated"}|script
400|POST|/v1/predict|{"app":"heat","args":[]}|nprocs
404|POST|/v1/predict|{"app":"nope",$ok_features}|nope
404|POST|/v1/predict|{"script":"srun ./unknown-app 3"}|unknown-app
404|GET|/v1/models/nope||nope
404|GET|/nope||/nope
404|GET|/nope%ff||/nope?
404|POST|/v1/predict/extra|{}|/v1/predict/extra
404|GET|/v1/models/a/b||/v1/models/a/b
405|GET|/v1/predict||GET
405|PUT|/v1/predict|{}|PUT
405|DELETE|/healthz||DELETE
405|POST|/metrics|{}|POST
405|GET|/v1/runs||GET
401|POST|/v1/runs|run_id,app|bearer token
TABLE

# The parameter-model path needs nprocs: 400 names it (checked above);
# with it the same model answers, so the table's 400s are not the model's.
st=$(req POST /v1/predict '{"app":"heat","ntasks":4}')
expect_status 200 "$st" "a good request after the table"
[ "$(rows predictions)" -le 1 ] || fail "expected at most the good request audited"

# Write endpoint: wrong token 403, malformed CSV 400 (with the token).
st=$(req POST /v1/runs 'x' -H 'Authorization: Bearer wrong-token')
expect_status 403 "$st" "POST /v1/runs with a wrong token"
st=$(req POST /v1/runs 'x' -H 'Authorization: Bearer secret-token-and-more')
expect_status 403 "$st" "POST /v1/runs with the token as a prefix"
st=$(req POST /v1/runs $'run_id,app,build_id\nr1,heat' -H 'Authorization: Bearer secret-token')
expect_status 400 "$st" "POST /v1/runs with a malformed CSV"
healthy "bad runs"

# 100 MiB with Content-Length: 413 at once, long before the body is sent.
out=$("$HELPERS/httpc" big "$PORT" 104857600 length)
case "$out" in "status 413 sent "*) ;; *) fail "100 MiB body: expected status 413, got '$out'" ;; esac
sent=${out##* }
[ "$sent" -lt 104857600 ] || fail "100 MiB body: expected the server to answer before reading it all, got $out"
healthy "100 MiB body"
# The same without a length (chunked): cut off once past the limit.
out=$("$HELPERS/httpc" big "$PORT" 104857600 chunked)
sent=${out##* }
[ "$sent" -lt 104857600 ] || fail "100 MiB chunked body: expected the connection closed early, got $out"
healthy "100 MiB chunked body"
# curl's own 2 MiB upload (Expect: 100-continue) gets the 413 too.
head -c 2097152 /dev/zero | tr '\0' ' ' >big.json
st=$(curl -s -o body -w '%{http_code}' --data-binary @big.json "$URL/v1/predict")
expect_status 413 "$st" "2 MiB body from curl"
grep -q 'limit' body || fail "413: expected the limit named, got $(cat body)"

# One byte per second: cut off by the request deadline (2 s), while another
# client is served in the meantime.
"$HELPERS/httpc" trickle "$PORT" >trickle.out &
tpid=$!
sleep 1
healthy "while a client trickles"
wait "$tpid"
read -r _ _ n _ _ total <trickle.out
[ "$n" -lt "$total" ] || fail "trickle: expected the connection closed before the request was whole, got $(cat trickle.out)"
healthy "after the trickling client"

# 1,000 connections at once, each asking /healthz; then 1,000 at once,
# each asking for a prediction (all audited).
out=$("$HELPERS/httpc" flood "$PORT" 1000 /healthz)
[ "$out" = "connected 1000 answered 1000 status200 1000" ] ||
	fail "1000 connections: expected all answered 200, got '$out'"
healthy "after 1000 connections"
out=$("$HELPERS/httpc" flood "$PORT" 1000 /v1/predict '{"app":"heat","ntasks":4,"user":"flood"}')
[ "$out" = "connected 1000 answered 1000 status200 1000" ] ||
	fail "1000 connections posting predictions: expected all answered 200, got '$out'"
healthy "after 1000 predictions at once"

# At --max-connections, a new client waits (the daemon stops accepting) until a
# slot frees: here the idle holders are cut by the request deadline.
stop_daemon
start_daemon --max-connections 20 --threads 1 --request-timeout 3
"$HELPERS/httpc" hold "$PORT" 20 30 >hold.out &
hpid=$!
for _ in $(seq 100); do [ -s hold.out ] && break; sleep 0.05; done
[ "$(cat hold.out)" = "held 20" ] || fail "expected 20 idle connections held, got $(cat hold.out)"
st=$(curl -s -m 1 -o /dev/null -w '%{http_code}' "$URL/healthz")
[ "$st" = 000 ] || fail "at the connection limit: expected no answer within 1 s, got $st"
st=$(curl -s -m 20 -o /dev/null -w '%{http_code}' "$URL/healthz")
[ "$st" = 200 ] || fail "after the idle connections timed out: expected 200, got $st"
kill "$hpid" 2>/dev/null
wait "$hpid" 2>/dev/null
stop_daemon

[ "$(rows predictions)" = 1001 ] ||
	fail "expected the good prediction and the 1000 of the flood audited, got $(rows predictions)"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM predictions WHERE user = 'flood'")" = 1000 ] ||
	fail "expected the flood's 1000 predictions audited"
[ "$(rows runs)" = 0 ] || fail "expected no runs written, got $(rows runs)"
grep -q 'runtime error\|AddressSanitizer' daemon.log && fail "expected a clean daemon log"
echo "every bad request answered as expected; nothing written"
