#!/usr/bin/env bash
# The daemon down (nothing listens on its port): the job ends as without
# forwarding and the row waits in the outbox; once the daemon is up,
# `mpipredict-collect --forward` (default folder: the runs folder's outbox)
# sends it: exit 0, the run stored, the outbox empty.
. "$MPP_SRC/tests/collector/forward.sh"

start_daemon --token-file token
dead=$URL
stop_daemon
run_e2e MPIPREDICT_FORWARD=0
off_rc=$RC
cp out.txt off.txt
run_e2e MPIPREDICT_URL="$dead" MPIPREDICT_TOKEN_FILE="$PWD/token"
[ "$RC" = "$off_rc" ] || fail "expected exit status $off_rc as without forwarding, got $RC"
cmp -s out.txt off.txt || fail "expected the output of a run without forwarding, got: $(head -c 300 out.txt)"
id=$(last_run_id)
# The detached forwarder holds the outbox's lock while it tries: this
# waits for it, and fails the same way.
MPIPREDICT_URL=$dead MPIPREDICT_TOKEN_FILE=$PWD/token mpipredict-collect --forward 2>err
rc=$?
[ "$rc" = 2 ] || fail "expected exit 2 with the daemon down, got $rc: $(cat err)"
grep -q "$id.csv: no answer" err || fail "expected a line naming the kept row, got: $(cat err)"
[ "$(waiting)" = 1 ] && [ -f "$OUTBOX/$id.csv" ] || fail "expected the row kept in the outbox, got $(ls -a "$OUTBOX")"
[ "$(head -n 1 "$OUTBOX/$id.csv")" = "$(head -n 1 mpipredict-runs/e2e.csv)" ] &&
	[ "$(tail -n 1 "$OUTBOX/$id.csv")" = "$(tail -n 1 mpipredict-runs/e2e.csv)" ] &&
	[ "$(wc -l <"$OUTBOX/$id.csv")" = 2 ] ||
	fail "expected the outbox file to be the header and the row of the runs file"

start_daemon --token-file token
MPIPREDICT_URL=$URL MPIPREDICT_TOKEN_FILE=$PWD/token mpipredict-collect --forward 2>err
rc=$?
[ "$rc" = 0 ] || fail "expected exit 0 once the daemon is up, got $rc: $(cat err)"
[ "$(stored "$id")" = 1 ] || fail "expected run $id stored"
[ "$(waiting)" = 0 ] || fail "expected the outbox empty, got $(waiting) rows"
# Sending an empty outbox again is a success.
MPIPREDICT_URL=$URL mpipredict-collect --forward "$OUTBOX" 2>err ||
	fail "expected exit 0 with nothing waiting, got: $(cat err)"
stop_daemon
echo "a row kept while the daemon is down is sent by mpipredict-collect --forward"
