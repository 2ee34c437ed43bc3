#!/usr/bin/env bash
# t-readme.sh: the README's journeys, run as a reader pastes them: every
# `sh` block after the first (make demo / make check), in order, in one
# shell, from a folder that looks like the checkout (build/ and tests/),
# with the daemon's port 8470 changed to a free one. Then what each
# journey promises: a model trained by hand that answers, an answer from
# the batch script, the daemon's own retraining from rows the runs sent,
# its answer over HTTP, and the accuracy report.
set -u
. "$MPP_SRC/tests/e2e/lib.sh"
e2e_need mpipredict-mpicc mpipredict-train mpipredict-predict mpipredictd mpipredict-model mpipredict-accuracy
fail=0
if [ "${MPP_SANITIZE:-0}" = 1 ]; then
	# The journeys build a program as a user does, without the sanitizer
	# flags, and the sanitized runtime cannot be loaded into it (ASan
	# must come first). Plain make check runs them.
	echo "SANITIZE=1: the README's journeys build without the sanitizers; run by plain make check"
	exit 77
fi
ln -s "$MPP_BUILD" build
ln -s "$MPP_SRC/tests" tests
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
awk '/^```sh$/ { on = 1; n++; next } /^```/ { on = 0 } on && n > 1' "$MPP_SRC/README.md" |
	sed "s/8470/$port/g" >journeys.sh
grep -q 'mpipredict-mpicc' journeys.sh || { echo "no journey found in README.md"; exit 1; }
unset MPIPREDICT_URL MPIPREDICT_TOKEN_FILE MPIPREDICT_DB
export MPIPREDICT_CLIENT_CONF=$PWD/no-client.conf

bash -e journeys.sh >out.txt 2>err.txt || {
	echo "the README's commands failed:"
	tail -n 15 err.txt
	exit 1
}
active() { # STORE APP
	# The daemon may be writing: wait for its lock rather than read nothing.
	sqlite3 -cmd ".timeout 10000" "$1" "SELECT m.version FROM models m JOIN apps a ON a.id = m.app_id WHERE a.name = '$2' AND m.active = 1" 2>/dev/null
}
[ "$(active try/models.db jacobi3d)" = 1 ] || bad "developer: no model trained by hand in try/models.db"
grep -Eq '[0-9]-[0-9][0-9]:[0-9][0-9]:[0-9][0-9]' out.txt ||
	bad "developer: no answer with a Slurm limit (D-HH:MM:SS) in the output: $(head -c 400 out.txt)"
[ "$(wc -l <try/mpipredict-runs/jacobi3d.csv)" -ge 17 ] ||
	bad "expected the 16 runs' rows in the local file, got $(($(wc -l <try/mpipredict-runs/jacobi3d.csv) - 1))"
[ "$(active try/centre.db jacobi3d)" = 1 ] ||
	bad "admin: the daemon did not train jacobi3d from the rows the runs sent"
[ "$(sqlite3 try/centre.db 'SELECT count(*) FROM runs')" = 8 ] ||
	bad "admin: expected the 8 runs in the daemon's store, got $(sqlite3 try/centre.db 'SELECT count(*) FROM runs')"
exit "$fail"
