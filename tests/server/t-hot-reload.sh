#!/usr/bin/env bash
# A new model version trained while a client loops on POST /v1/predict is
# served without a restart, and no request fails meanwhile: every answer is
# a 200 from version 1 until the first from version 2, then version 2 only.
. "$MPP_SRC/tests/server/lib.sh"

gen=$MPP_BUILD/tests/regress/gen-runs
"$gen" --runs 30 --features 20 --seed 5 >v1.csv || fail "expected gen-runs to work"
mpipredict-train --db "$DB" v1.csv >/dev/null || fail "expected the first training to work"
start_daemon

echo '{"app":"stencil","ntasks":8,"args":"-n 96 --iters=20"}' >request.json
# Two clients: one on a single keep-alive connection, one with curl (a new
# connection per request).
"$HELPERS/httpc" loop "$PORT" request.json stop >loop.out &
loop=$!
(
	while [ ! -e stop ]; do
		curl -s -m 10 -o answer -w '%{http_code} ' --data-binary @request.json "$URL/v1/predict"
		jq -r .model.version answer 2>/dev/null || echo none
	done
) >curl.out &
curl_loop=$!
for _ in $(seq 200); do [ "$(wc -l <loop.out)" -ge 3 ] && [ -s curl.out ] && break; sleep 0.05; done
[ "$(wc -l <loop.out)" -ge 3 ] && [ -s curl.out ] || fail "expected both client loops running"
# Version 2: the same runs, two terms kept (a different model).
mpipredict-train --db "$DB" --target 2 v1.csv >/dev/null || fail "expected the second training to work"
for _ in $(seq 300); do grep -q '^200 2$' loop.out && grep -q '^200 2$' curl.out && break; sleep 0.05; done
before=$(wc -l <loop.out)
for _ in $(seq 200); do [ "$(wc -l <loop.out)" -ge $((before + 3)) ] && break; sleep 0.05; done
touch stop
wait "$loop" || fail "expected the keep-alive client to keep its connection, got $(tail -n 1 loop.out)"
wait "$curl_loop"

for out in loop.out curl.out; do
	bad=$(grep -v '^200 [12]$' $out | head -3)
	[ -z "$bad" ] || fail "$out: expected every answer 200 from version 1 or 2, got: $bad"
	order=$(awk '{print $2}' $out | uniq | tr '\n' ' ')
	[ "$order" = "1 2 " ] || fail "$out: expected version 1 then version 2 only, got $order"
done
st=$(req GET /v1/models/stencil)
[ "$(jq .version body)" = 2 ] || fail "expected /v1/models/stencil at version 2, got $(cat body)"
grep -q '^mpipredictd_model_loads_total 2$' <(curl -s "$URL/metrics") ||
	fail "expected 2 model loads (start and reload) in /metrics"
stop_daemon
echo "$(cat loop.out curl.out | wc -l) requests across the reload, all answered"
