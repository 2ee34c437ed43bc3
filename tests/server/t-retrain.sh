#!/usr/bin/env bash
# The daemon retrains an app by itself (server/retrain.h): after
# --retrain-rows new runs arrive through POST /v1/runs it runs the trainer
# (mpipredict-train --from-store --challenger), the first model goes live
# without a restart and is answered from, and the training is one line at
# the default log level; fewer new runs than the setting start nothing;
# --retrain-interval trains an app with new runs once that time has passed;
# a trainer that fails leaves the active model alone, is logged at warn and
# is not retried at every poll; /metrics counts both outcomes; a trainer that cannot be run stops the
# start (exit 2, naming it); a daemon stopped during a training ends it.
. "$MPP_SRC/tests/server/lib.sh"

gen=$MPP_BUILD/tests/regress/gen-runs
"$gen" --runs 12 --features 20 --seed 7 >a.csv || fail "expected gen-runs to work"
"$gen" --runs 3 --features 20 --seed 8 --first 13 >b.csv || fail "expected gen-runs to work"
"$gen" --runs 12 --features 20 --seed 9 --app other --first 100 >o.csv || fail "expected gen-runs to work"
printf 'tok3n\n' >token
chmod 600 token
post() {
	local st
	st=$(req POST /v1/runs "$(cat "$1")" -H 'Authorization: Bearer tok3n' -H 'Content-Type: text/csv')
	expect_status 200 "$st" "posting $1"
}
active() { # APP: the active version, or nothing
	sqlite3 "$DB" "SELECT m.version FROM models m JOIN apps a ON a.id = m.app_id WHERE a.name = '$1' AND m.active = 1"
}
versions() { # APP: how many versions were trained
	sqlite3 "$DB" "SELECT count(*) FROM models m JOIN apps a ON a.id = m.app_id WHERE a.name = '$1'"
}
wait_until() { # SECONDS 'SHELL CONDITION' (evaluated at each try)
	for _ in $(seq $(($1 * 10))); do eval "$2" && return 0; sleep 0.1; done
	return 1
}

# A trainer that cannot be run: the daemon does not start.
mpipredictd --db "$DB" --listen 127.0.0.1:0 --retrain-trainer ./no-such-trainer 2>err.txt
[ $? = 2 ] && grep -q "no-such-trainer" err.txt && grep -q -- "--retrain-trainer" err.txt ||
	fail "expected exit 2 naming the trainer and the option, got: $(cat err.txt)"

# 12 runs of stencil with --retrain-rows 10: the first model goes live.
start_daemon --token-file token --retrain-rows 10 --retrain-interval 0
grep -q "retraining after 10 new runs" daemon.log || fail "expected the start line to say how it retrains"
post a.csv
wait_until 60 '[ "$(active stencil)" = 1 ]' || fail "expected version 1 of stencil to go live by itself"
# The model is stored active as soon as the trainer commits, and answers
# once the keeper's hot reload (every 50 ms) has installed it: on a loaded
# machine that came after the notice line, which comes when the trainer
# has exited.
wait_until 10 'grep -q "retrain: stencil: version 1 promoted" daemon.log' ||
	fail "expected one notice line for the training, got: $(grep retrain daemon.log)"
predict() { req POST /v1/predict '{"app": "stencil", "args": "-n 80 --iters=70 out.dat", "ntasks": 8}'; }
wait_until 10 'st=$(predict); [ "$st" = 200 ]'
expect_status 200 "$st" "a prediction from the retrained model"
[ "$(jq -r .model.version body)" = 1 ] || fail "expected the answer from version 1, got $(cat body)"
curl -s "$URL/metrics" | grep -q 'mpipredictd_retrains_total{outcome="stored"} 1' ||
	fail "expected one stored training in /metrics"

# 3 more runs (fewer than 10): nothing is trained.
post b.csv
sleep 3
[ "$(versions stencil)" = 1 ] || fail "expected no training after 3 new runs, got $(versions stencil) versions"

# A failing trainer: logged at warn, the model untouched, not retried at
# every poll (the daemon looks every second).
stop_daemon
printf '#!/bin/sh\necho "mpipredict-train: cannot train today" >&2\nexit 2\n' >bad-trainer
chmod +x bad-trainer
start_daemon --token-file token --retrain-rows 10 --retrain-interval 0 --retrain-trainer "$PWD/bad-trainer"
post o.csv
wait_until 30 'grep -q "retrain: other: failed (exit 2)" daemon.log' || fail "expected the failure logged"
grep -q "retrain: other: failed (exit 2), the active model is unchanged: mpipredict-train: cannot train today" daemon.log ||
	fail "expected the trainer's error in the line, got: $(grep 'retrain: other' daemon.log)"
sleep 3
[ "$(grep -c 'retrain: other: failed' daemon.log)" = 1 ] || fail "expected one attempt, not one per poll"
[ -z "$(active other)" ] || fail "expected no model for other"
curl -s "$URL/metrics" | grep -q 'mpipredictd_retrains_total{outcome="failed"} 1' ||
	fail "expected one failed training in /metrics"
stop_daemon

# --retrain-interval: the 3 runs of stencil that came after version 1 are
# trained on once 2 s have passed, with --retrain-rows off.
start_daemon --token-file token --retrain-rows 0 --retrain-interval 2
wait_until 60 '[ "$(versions stencil)" = 2 ]' || fail "expected a second training of stencil by time"
wait_until 10 'grep -Eq "retrain: stencil: version 2 (promoted|rejected)" daemon.log' ||
	fail "expected the second training's line, got: $(grep 'retrain: stencil' daemon.log)"
stop_daemon

# Stopped during a training: the trainer ends with the daemon.
printf '#!/bin/sh\necho $$ >trainer.pid\nexec sleep 60\n' >slow-trainer
chmod +x slow-trainer
"$gen" --runs 10 --features 20 --seed 10 --app third --first 200 >t.csv || fail "expected gen-runs to work"
start_daemon --token-file token --retrain-rows 5 --retrain-interval 0 --retrain-trainer "$PWD/slow-trainer"
post t.csv
wait_until 30 '[ -s trainer.pid ]' || fail "expected the slow trainer to start"
stop_daemon
kill -0 "$(cat trainer.pid)" 2>/dev/null && fail "expected the trainer to end with the daemon"
exit 0
