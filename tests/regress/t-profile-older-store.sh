#!/usr/bin/env bash
# A store written by the previous schema version (17: no
# param_model_edges) that holds a machine profile with a memory curve:
# the first mpipredict-train after an upgrade migrates it and trains with
# that curve. (It once read the profile read-only, which refuses an older
# schema, and trained without the memory regime, silently.) The store is
# made as version 17 was: today's schema without the table version 18
# added. Asserted: the training's memory object names no reason for
# having no curve, and the store is at today's version with the table.
set -u
D=$MPP_SRC/tests/regress/data
mpipredict-train --db p.db "$D/pennant-memory-train.csv" >/dev/null 2>err.txt ||
	{ echo "expected a first training to work, got: $(cat err.txt)"; exit 1; }
now=$(sqlite3 p.db "PRAGMA user_version")
sqlite3 p.db "DROP TABLE param_model_edges; PRAGMA user_version = 17;
	INSERT INTO machine_profiles (machine, created_at, profile) VALUES ('d5', 'now', readfile('$D/machine-memory-l3.json'))"
mpipredict-train --db p.db --json "$D/pennant-memory-train.csv" >train.json 2>err.txt ||
	{ echo "expected training on the version-17 store to work, got: $(cat err.txt)"; exit 1; }
echo "memory: $(jq -c '.models[0].memory | {beta, held, none_because}' train.json)"
fail=0
jq -e '.models[0].memory.none_because == null and .models[0].memory.held > 0' train.json >/dev/null ||
	{ echo "expected the memory curve of the older store to be used, got $(jq -c '.models[0].memory' train.json)"; fail=1; }
[ "$(sqlite3 p.db "PRAGMA user_version")" = "$now" ] &&
	sqlite3 p.db "SELECT count(*) FROM param_model_edges" >/dev/null ||
	{ echo "expected the store migrated to version $now"; fail=1; }
exit $fail
