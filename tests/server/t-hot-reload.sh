#!/usr/bin/env bash
# A new model version trained while a client loops on POST /v1/predict is
# served without a restart, and no request fails meanwhile: every answer is
# a 200 from version 1 until the first from version 2, then version 2 only.
. "$MPP_SRC/tests/server/lib.sh"

gen=$MPP_BUILD/tests/regress/gen-runs
"$gen" --runs 30 --features 20 --seed 5 >v1.csv || fail "expected gen-runs to work"
mpipredict-train --db "$DB" v1.csv >/dev/null || fail "expected the first training to work"
start_daemon

body='{"app":"stencil","ntasks":8,"args":"-n 96 --iters=20"}'
(
	for i in $(seq 600); do
		curl -s -m 10 -o "answer" -w '%{http_code} ' -X POST --data-binary "$body" "$URL/v1/predict"
		jq -r .model.version answer 2>/dev/null || echo none
		[ -e stop ] && break
	done
) >loop.out &
loop=$!
for _ in $(seq 200); do [ "$(wc -l <loop.out)" -ge 3 ] && break; sleep 0.05; done
[ "$(wc -l <loop.out)" -ge 3 ] || fail "expected the client loop running"
# Version 2: the same runs, two terms kept (a different model).
mpipredict-train --db "$DB" --target 2 v1.csv >/dev/null || fail "expected the second training to work"
for _ in $(seq 300); do grep -q '^200 2$' loop.out && break; sleep 0.05; done
before=$(wc -l <loop.out)
for _ in $(seq 200); do [ "$(wc -l <loop.out)" -ge $((before + 3)) ] && break; sleep 0.05; done
touch stop
wait "$loop"

bad=$(grep -v '^200 [12]$' loop.out | head -3)
[ -z "$bad" ] || fail "expected every answer 200 from version 1 or 2, got: $bad"
grep -q '^200 2$' loop.out || fail "expected version 2 served after training, got only $(sort -u loop.out | tr '\n' ' ')"
order=$(awk '{print $2}' loop.out | uniq | tr '\n' ' ')
[ "$order" = "1 2 " ] || fail "expected version 1 then version 2 only, got $order"
st=$(req GET /v1/models/stencil)
[ "$(jq .version body)" = 2 ] || fail "expected /v1/models/stencil at version 2, got $(cat body)"
grep -q '^mpipredictd_model_loads_total 2$' <(curl -s "$URL/metrics") ||
	fail "expected 2 model loads (start and reload) in /metrics"
stop_daemon
echo "$(wc -l <loop.out) requests across the reload, all answered"
