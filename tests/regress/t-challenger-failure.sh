#!/usr/bin/env bash
# A challenger that fails halfway leaves the active model untouched: killed
# (gdb, SIGKILL) inside the save of its model, the store is intact, the
# same version active and nothing of the challenger stored; when an admin
# promotes another version while it trains, its save is refused (exit 2)
# and a 'failed' event says why; a training that cannot run (too few runs)
# is exit 2 with a 'failed' event too.
set -u
gen=$MPP_BUILD/tests/regress/gen-runs
"$gen" --runs 30 --features 40 --seed 3 >a.csv || exit 1
"$gen" --runs 30 --features 40 --seed 4 --first 31 >b.csv || exit 1
command -v gdb >/dev/null || { echo "gdb is missing (make deps)"; exit 1; }
# LeakSanitizer cannot run under ptrace: no leak check of the runs under gdb.
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
fail=0
q() { sqlite3 m.db "$1"; }
active() { q "SELECT version FROM models WHERE active = 1"; }
mpipredict-train --db m.db --challenger a.csv >/dev/null 2>&1 || { echo "expected the first challenger to work"; exit 1; }
[ "$(active)" = 1 ] || { echo "expected version 1 active, got $(active)"; exit 1; }

# Killed inside the save of the challenger's terms.
gdb -q -batch -ex 'set breakpoint pending on' -ex 'break save_terms' -ex run -ex 'signal SIGKILL' \
	--args "$MPP_BUILD/bin/mpipredict-train" --db m.db --challenger a.csv b.csv >gdb.out 2>&1
grep -q 'hit Breakpoint 1, .*save_terms' gdb.out && grep -q 'terminated with signal SIGKILL' gdb.out ||
	{ echo "expected gdb to stop and kill the challenger inside its save: $(tail -5 gdb.out)"; exit 1; }
[ "$(q 'PRAGMA integrity_check')" = ok ] || { echo "expected integrity ok after the kill"; fail=1; }
got=$(active):$(q "SELECT count(*) FROM models"):$(q "SELECT count(*) FROM model_events")
[ "$got" = 1:1:1 ] || { echo "expected version 1 active, 1 model, 1 event after the kill, got $got"; fail=1; }

# Version 2 trained as before (active at once), then a challenger during
# whose training an admin makes version 1 active again.
mpipredict-train --db m.db a.csv >/dev/null 2>&1 || { echo "expected a plain training to work"; exit 1; }
[ "$(active)" = 2 ] || { echo "expected version 2 active, got $(active)"; exit 1; }
gdb -q -batch -ex 'set breakpoint pending on' -ex 'break mpp_store_save_challenger' -ex run \
	-ex "shell mpipredict-model --db m.db promote --app stencil --version 1" -ex continue \
	--args "$MPP_BUILD/bin/mpipredict-train" --db m.db --challenger a.csv b.csv >gdb.out 2>&1
grep -q 'exited with code 02' gdb.out ||
	{ echo "expected the challenger to exit 2 after the active model changed: $(tail -5 gdb.out)"; fail=1; }
grep -q 'active model changed while the challenger trained' gdb.out ||
	{ echo "expected the error to say the active model changed: $(grep mpipredict-train gdb.out)"; fail=1; }
got=$(active):$(q "SELECT count(*) FROM models")
[ "$got" = 1:2 ] || { echo "expected the admin's version 1 active and no version 3, got $got"; fail=1; }
got=$(q "SELECT kind || ':' || coalesce(model_id, '-') FROM model_events ORDER BY id DESC LIMIT 1")
[ "$got" = failed:- ] || { echo "expected a 'failed' event with no model last, got $got"; fail=1; }
q "SELECT reason FROM model_events ORDER BY id DESC LIMIT 1" | grep -q 'active model changed' ||
	{ echo "expected the failed event's reason to say why"; fail=1; }

# Too few runs to train on: exit 2, a failed event, nothing else.
head -n 4 a.csv | sed 's/,stencil,/,tiny,/' >tiny.csv
mpipredict-train --db m.db --challenger tiny.csv >out.txt 2>err.txt
[ $? = 2 ] && [ ! -s out.txt ] || { echo "expected exit 2 and no line for 3 runs, got $(cat out.txt err.txt)"; fail=1; }
got=$(q "SELECT e.kind || ':' || (e.reason LIKE '%training failed%') FROM model_events e JOIN apps a ON a.id = e.app_id WHERE a.name = 'tiny'")
[ "$got" = failed:1 ] || { echo "expected one 'failed' event for tiny saying the training failed, got '$got'"; fail=1; }
[ "$(active)" = 1 ] || { echo "expected version 1 still active, got $(active)"; fail=1; }
exit $fail
