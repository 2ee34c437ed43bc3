#!/usr/bin/env bash
# With a daemon named by the client configuration file (url, token_file),
# an instrumented run's row reaches the daemon's store with no step by the
# user: rank 0 writes the local runs file as always, puts the row in the
# outbox and starts mpipredict-collect --forward, found beside
# libmpipredict, which posts it and empties the outbox. The job's output
# and exit status are those of a run without forwarding.
. "$MPP_SRC/tests/collector/forward.sh"

start_daemon --token-file token
cat >client.conf <<CONF
# the centre's daemon
[client]
url = $URL/
token_file = $PWD/token
timeout_ms = 5000
CONF
run_e2e MPIPREDICT_FORWARD=0
off_rc=$RC
cp out.txt off.txt
[ "$(waiting)" = 0 ] || fail "expected MPIPREDICT_FORWARD=0 to leave the outbox empty"
run_e2e
[ "$RC" = "$off_rc" ] || fail "expected exit status $off_rc as without forwarding, got $RC"
cmp -s out.txt off.txt || fail "expected the output of a run without forwarding, got: $(head -c 300 out.txt)"
id=$(last_run_id)
[ "$(wc -l <mpipredict-runs/e2e.csv)" = 3 ] || fail "expected the local file to hold both runs, got $(wc -l <mpipredict-runs/e2e.csv) lines"
wait_sent "$id"
sqlite3 "$DB" "SELECT a.name, r.nprocs FROM runs r JOIN apps a ON a.id = r.app_id WHERE r.run_id = '$id'" >got
[ "$(cat got)" = "e2e|2.0" ] || [ "$(cat got)" = "e2e|2" ] ||
	fail "expected the stored run to be e2e at 2 ranks, got $(cat got)"
[ "$(sqlite3 "$DB" 'SELECT count(*) FROM runs')" = 1 ] ||
	fail "expected only the forwarded run stored (not the MPIPREDICT_FORWARD=0 one)"

# MPIPREDICT_URL and MPIPREDICT_TOKEN_FILE win over the file.
sed -i "s|^url = .*|url = http://127.0.0.1:1|; s|^token_file = .*|token_file = $PWD/none|" client.conf
run_e2e MPIPREDICT_URL="$URL" MPIPREDICT_TOKEN_FILE="$PWD/token"
[ "$RC" = 0 ] || fail "expected exit 0 with MPIPREDICT_URL, got $RC"
wait_sent "$(last_run_id)"

# A failed run (exit status 3 after MPI_Finalize) keeps its row in the
# local file only: the daemon would refuse it, training never uses it.
printf '#include <mpi.h>\nint main(int c, char **v) { MPI_Init(&c, &v); MPI_Finalize(); return 3; }\n' >failing.c
# shellcheck disable=SC2086
mpipredict-cc mpicc ${MPP_TEST_CFLAGS:-} -O1 -o failing failing.c >build.log 2>&1 ||
	fail "expected mpipredict-cc to build failing.c: $(tail -n 5 build.log)"
mpirun -np 1 ./failing >/dev/null 2>&1
[ $? = 3 ] || fail "expected the failing program to exit 3"
[ "$(tail -n 1 mpipredict-runs/failing.csv | awk -F, '{ print $10 }')" = 3 ] ||
	fail "expected the local row of the failed run with exit_status 3"
sleep 1
[ "$(waiting)" = 0 ] || fail "expected no outbox file for a failed run"
stop_daemon
echo "rows reach the daemon's store by themselves; the local file keeps them too"
