#!/usr/bin/env bash
# A row the daemon refuses (here a wrong token: 403) will never be taken as
# it is: `mpipredict-collect --forward` moves it to outbox/rejected/ with
# the daemon's answer in <file>.reason, says so in one line and exits 2;
# the next row is still sent. The runtime with no forwarder to start
# (MPIPREDICT_COLLECT naming nothing) says so in one line on stderr, exits
# as usual, and leaves the row in the outbox.
. "$MPP_SRC/tests/collector/forward.sh"

start_daemon --token-file token
printf 'wrong\n' >bad-token
run_e2e MPIPREDICT_URL="$URL" MPIPREDICT_TOKEN_FILE="$PWD/bad-token" MPIPREDICT_COLLECT="$PWD/none"
[ "$RC" = 0 ] || fail "expected exit 0 without a forwarder, got $RC"
grep -q "cannot find $PWD/none.*the row waits in" out.txt ||
	fail "expected one line saying the forwarder is missing, got: $(cat out.txt)"
[ "$(grep -c mpipredict: out.txt)" = 1 ] || fail "expected one line, got: $(cat out.txt)"
bad=$(last_run_id)
[ -f "$OUTBOX/$bad.csv" ] || fail "expected the row in the outbox"
MPIPREDICT_URL=$URL MPIPREDICT_TOKEN_FILE=$PWD/bad-token mpipredict-collect --forward 2>err
rc=$?
[ "$rc" = 2 ] || fail "expected exit 2 for a refused row, got $rc: $(cat err)"
[ "$(wc -l <err)" = 1 ] && grep -q "$bad.csv: refused (HTTP 403" err ||
	fail "expected one line naming the refused row, got: $(cat err)"
[ -f "$OUTBOX/rejected/$bad.csv" ] || fail "expected the row in rejected/"
head -n 1 "$OUTBOX/rejected/$bad.csv.reason" | grep -qx 'HTTP 403' &&
	grep -qi token "$OUTBOX/rejected/$bad.csv.reason" ||
	fail "expected the reason to hold the status and the answer, got: $(cat "$OUTBOX/rejected/$bad.csv.reason")"
[ "$(waiting)" = 0 ] || fail "expected nothing left waiting"
[ "$(stored "$bad")" = 0 ] || fail "expected the refused run not stored"
# The next run, with the right token, goes through.
run_e2e MPIPREDICT_URL="$URL" MPIPREDICT_TOKEN_FILE="$PWD/token"
wait_sent "$(last_run_id)"
[ -f "$OUTBOX/rejected/$bad.csv" ] || fail "expected the rejected row left where it was"
stop_daemon
echo "refused rows go to rejected/ with the daemon's answer"
