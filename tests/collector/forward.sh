# forward.sh: what the t-forward-*.sh tests share (sourced, not a test).
# Gives the daemon helpers of tests/server/lib.sh (start_daemon,
# stop_daemon, fail, DB, URL), ./e2e built with mpipredict-cc (run at 2
# ranks under OpenMPI; forwarding does not depend on the MPI), a token
# file ./token, and a test machine without a client configuration of its
# own: MPIPREDICT_CLIENT_CONF names ./client.conf, absent until a test
# writes it, and the forwarding variables are unset.
. "$MPP_SRC/tests/server/lib.sh"
command -v mpipredict-cc >/dev/null || { echo "mpipredict-cc is not built"; exit 77; }
unset MPIPREDICT_URL MPIPREDICT_TOKEN_FILE MPIPREDICT_FORWARD MPIPREDICT_COLLECT \
	MPIPREDICT_RUNS MPIPREDICT_DISABLE MPIPREDICT_DUMP
export MPIPREDICT_CLIENT_CONF=$PWD/client.conf
OUTBOX=mpipredict-runs/outbox
# Under SANITIZE=1, leak checking is off for MPI programs (the MPI
# library's own allocations, tests/collector/lib.sh says why), on for
# mpipredict-collect run by the tests.
asan_base=${ASAN_OPTIONS:-}
if [ "${MPP_SANITIZE:-0}" = 1 ]; then
	export ASAN_OPTIONS="$asan_base:detect_leaks=0"
fi
mpipredict-collect() {
	ASAN_OPTIONS=$asan_base command mpipredict-collect "$@"
}
cp "$MPP_SRC/tests/collector/progs/e2e.c" .
# shellcheck disable=SC2086
mpipredict-cc mpicc ${MPP_TEST_CFLAGS:-} -O1 -o e2e e2e.c >build.log 2>&1 ||
	fail "expected mpipredict-cc to build e2e.c: $(tail -n 5 build.log)"
printf 's3cr3t\n' >token

# run_e2e [ENV=VALUE...]: ./e2e at 2 ranks; output in out.txt, status in RC.
run_e2e() {
	env "$@" mpirun -np 2 ./e2e >out.txt 2>&1
	RC=$?
}
# The run_id of the local runs file's last row.
last_run_id() { tail -n 1 mpipredict-runs/e2e.csv | cut -d, -f1; }
# How many rows wait in the outbox.
waiting() { find "$OUTBOX" -maxdepth 1 -name '*.csv' 2>/dev/null | wc -l; }
stored() { sqlite3 "$DB" "SELECT count(*) FROM runs WHERE run_id = '$1'"; }
# wait_sent RUN_ID: the detached forwarder stored the run and emptied the
# outbox, within 30 s (it is not waited for by the job).
wait_sent() {
	local _
	for _ in $(seq 300); do
		[ "$(stored "$1")" = 1 ] && [ "$(waiting)" = 0 ] && return 0
		sleep 0.1
	done
	fail "expected run $1 stored and the outbox empty within 30 s," \
		"got stored=$(stored "$1"), waiting=$(waiting)"
}
