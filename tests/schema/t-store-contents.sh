#!/usr/bin/env bash
# After t-store's operations the file is a sound WAL database whose tables
# hold exactly what was written (checked with the sqlite3 shell, not with
# the store's own code).
set -u
"$MPP_BUILD/tests/schema/t-store" >/dev/null || { echo "t-store failed"; exit 1; }
q() { sqlite3 t.db "$1"; }
[ "$(q 'PRAGMA integrity_check')" = ok ] || { echo "expected integrity ok"; exit 1; }
[ "$(q 'PRAGMA journal_mode')" = wal ] || { echo "expected journal_mode wal, got $(q 'PRAGMA journal_mode')"; exit 1; }
[ "$(q 'PRAGMA user_version')" = 18 ] || { echo "expected user_version 18, got $(q 'PRAGMA user_version')"; exit 1; }
for db in v1.db v2.db v11.db; do
	[ "$(sqlite3 $db 'PRAGMA user_version')" = 18 ] || { echo "$db: expected user_version 18 after the migration"; exit 1; }
	# Version 18 (issue 40): the edge laws' table, as schema.sql makes it.
	[ "$(sqlite3 $db "SELECT sql FROM sqlite_master WHERE name = 'param_model_edges'" | tr -d ' \t\n')" = \
		"$(q "SELECT sql FROM sqlite_master WHERE name = 'param_model_edges'" | tr -d ' \t\n')" ] ||
		{ echo "$db: expected the param_model_edges table of schema.sql after the migration"; exit 1; }
	# Version 15 (issue 37): the extensions table, as schema.sql makes it.
	[ "$(sqlite3 $db "SELECT sql FROM sqlite_master WHERE name = 'extensions'" | tr -d ' \t\n')" = \
		"$(q "SELECT sql FROM sqlite_master WHERE name = 'extensions'" | tr -d ' \t\n')" ] ||
		{ echo "$db: expected the extensions table of schema.sql after the migration"; exit 1; }
	# Version 13 (issue 37): the progress table, as schema.sql makes it.
	[ "$(sqlite3 $db "SELECT sql FROM sqlite_master WHERE name = 'progress'" | tr -d ' \t\n')" = \
		"$(q "SELECT sql FROM sqlite_master WHERE name = 'progress'" | tr -d ' \t\n')" ] ||
		{ echo "$db: expected the progress table of schema.sql after the migration"; exit 1; }
	sqlite3 $db "SELECT id, app_id, model_id, at, kind, reason, champion_mape, challenger_mape, holdout_runs FROM model_events LIMIT 1" >/dev/null ||
		{ echo "$db: expected the model_events table (version 12) after the migration"; exit 1; }
	# The migrated table is the one schema.sql makes: the same CHECK.
	sqlite3 $db "INSERT INTO model_events(app_id, at, kind, reason) VALUES (1, 0, 'won', 'x')" 2>/dev/null &&
		{ echo "$db: expected kind 'won' refused by model_events' CHECK"; exit 1; }
	sqlite3 $db "SELECT p.zero_serial, t.pcoef, m.pintercept, m.params_law, m.xlo, m.comm_profile FROM param_models p, model_terms t, models m LIMIT 1; SELECT count(*) FROM law_vars, param_ranges, machine_profiles; SELECT edge FROM param_ranges LIMIT 1; SELECT m.xintercept, m.xpintercept, t.xcoef, t.xpcoef, m.x_mape FROM models m, model_terms t LIMIT 1" >/dev/null ||
		{ echo "$db: expected param_models.zero_serial, model_terms.pcoef, models.pintercept after the migration"; exit 1; }
	sqlite3 $db "SELECT job_id, user, uid, account, partition, app, nodes, ntasks, time_limit_s, submit_at, start_at, end_at, runtime_s, state, updated_at FROM jobs LIMIT 1" >/dev/null ||
		{ echo "$db: expected the jobs table (version 4) after the migration"; exit 1; }
	[ "$(sqlite3 $db 'PRAGMA integrity_check')" = ok ] || { echo "$db: expected integrity ok"; exit 1; }
done
got=$(q "SELECT m.pintercept || ':' || group_concat(t.pcoef, ':') FROM models m JOIN model_terms t ON t.model_id = m.id WHERE m.version = 2 AND m.app_id = (SELECT id FROM apps WHERE name = 'jacobi') ORDER BY t.idx")
[ "$got" = "0.4:3.0e-06:0.0" ] || { echo "expected version 2's parameters path 0.4:3.0e-06:0.0, got $got"; exit 1; }
got=$(q "SELECT group_concat(version || ':' || active) FROM (SELECT version, active FROM models m JOIN apps a ON a.id=m.app_id WHERE a.name='jacobi' ORDER BY version)")
[ "$got" = "1:0,2:1" ] || { echo "expected versions 1:0,2:1, got $got"; exit 1; }
got=$(q "SELECT count(*) FROM runs"),$(q "SELECT count(*) FROM run_values")
[ "$got" = "2,3" ] || { echo "expected 2 runs and 3 values (an empty cell is absent), got $got"; exit 1; }
got=$(q "SELECT count(*) FROM predictions")
[ "$got" = 2 ] || { echo "expected 2 prediction records, got $got"; exit 1; }
exit 0
