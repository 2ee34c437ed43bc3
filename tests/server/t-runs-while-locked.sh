#!/usr/bin/env bash
# POST /v1/runs waits for the store when another connection holds the
# write lock (as a training does), but never on an event-loop thread: with
# one such thread, predictions are answered at once all the while, and the
# runs are written once the lock is released.
. "$MPP_SRC/tests/server/lib.sh"

"$HELPERS/mkmodel" "$DB" heat 1 'loop:h.c:3:1.mean=2@0@nprocs^1' >/dev/null ||
	fail "expected mkmodel to work"
"$MPP_BUILD/tests/regress/gen-runs" --runs 5 --features 10 --seed 1 >runs.csv ||
	fail "expected gen-runs to work"
echo t0ken >token
start_daemon --token-file token --threads 1

hold_lock

curl -s -m 30 -o runs.body -w '%{http_code}' --data-binary @runs.csv \
	-H 'Authorization: Bearer t0ken' "$URL/v1/runs" >runs.status &
poster=$!
sleep 0.5
start=$(date +%s%N)
for i in $(seq 10); do
	st=$(curl -s -m 1 -o body -w '%{http_code}' --data-binary '{"app":"heat","ntasks":4}' "$URL/v1/predict")
	expect_status 200 "$st" "prediction $i while POST /v1/runs waits for the lock"
done
ms=$((($(date +%s%N) - start) / 1000000))
[ ! -s runs.status ] || fail "expected POST /v1/runs still waiting for the lock, it answered $(cat runs.status)"

release_lock
wait "$poster"
[ "$(cat runs.status)" = 200 ] || fail "expected POST /v1/runs answered 200 after the lock, got $(cat runs.status): $(cat runs.body)"
[ "$(rows runs)" = 5 ] || fail "expected 5 runs stored, got $(rows runs)"
stop_daemon
echo "10 predictions in $ms ms while the ingest waited; runs written after"
