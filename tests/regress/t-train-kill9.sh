#!/usr/bin/env bash
# kill -9 at any moment of a training leaves the store intact: after each
# kill, PRAGMA integrity_check is ok, exactly one model of the app is
# active, and it is the old version 1 unless the new one was committed
# whole (then version 2 with all its terms). Kills land at spread delays
# over the run (reading, cross-validation, saving), and, under gdb, at
# chosen points inside the save itself: when the new model's row is written
# and the old one deactivated but its terms are not (save_terms), and a few
# statements into the terms. A save split over two transactions fails there.
set -u
gen=$MPP_BUILD/tests/regress/gen-runs
"$gen" --runs 40 --features 100 --seed 2 >small.csv || exit 1
"$gen" --runs 1500 --features 600 --seed 9 >big.csv || exit 1
mpipredict-train --db m.db small.csv >/dev/null 2>&1 || { echo "first training failed"; exit 1; }
fail=0
state() {
	sqlite3 m.db "SELECT group_concat(m.version || ':' || (SELECT count(*) FROM model_terms t WHERE t.model_id = m.id)) FROM models m WHERE m.active = 1"
}
v1=$(state)
case $v1 in 1:[1-9]*) ;; *) echo "expected version 1 active with terms, got '$v1'"; exit 1 ;; esac
for delay in 0.05 0.2 0.4 0.6 0.8 1.0 1.3 1.6 2.0 2.5; do
	mpipredict-train --db m.db big.csv >/dev/null 2>&1 &
	pid=$!
	sleep "$delay"
	kill -9 "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	ic=$(sqlite3 m.db 'PRAGMA integrity_check')
	[ "$ic" = ok ] || { echo "after kill at ${delay}s: expected integrity ok, got '$ic'"; fail=1; }
	now=$(state)
	case $now in
	"$v1") ;;
	2:[1-9]*) echo "training finished before the kill at ${delay}s" ;;
	*) echo "after kill at ${delay}s: expected '$v1' or version 2 with terms active, got '$now'"; fail=1 ;;
	esac
	[ "$now" = "$v1" ] || break
done
command -v gdb >/dev/null || { echo "gdb is missing (make deps)"; exit 1; }
for steps in 0 3; do
	more=()
	[ "$steps" = 0 ] || more=(-ex 'break sqlite3_step' -ex "continue $steps")
	before=$(state)
	gdb -q -batch -ex 'set breakpoint pending on' -ex 'break save_terms' -ex run \
		"${more[@]}" -ex 'signal SIGKILL' \
		--args "$MPP_BUILD/bin/mpipredict-train" --db m.db small.csv >gdb.out 2>&1
	grep -q 'hit Breakpoint 1, .*save_terms' gdb.out && grep -q 'terminated with signal SIGKILL' gdb.out ||
		{ echo "kill inside the save ($steps steps in): gdb did not stop and kill it there: $(tail -5 gdb.out)"; fail=1; continue; }
	ic=$(sqlite3 m.db 'PRAGMA integrity_check')
	[ "$ic" = ok ] || { echo "after a kill inside the save: expected integrity ok, got '$ic'"; fail=1; }
	now=$(state)
	[ "$now" = "$before" ] || { echo "after a kill inside the save ($steps steps in): expected '$before' still active, got '$now'"; fail=1; }
done
exit $fail
