# loop.sh: the centre's loop on check-slurm.sh's cluster (issue 39): a
# user's instrumented job runs under Slurm; its rows reach the daemon with
# no user step (the site's client configuration); the daemon retrains the
# app by itself and the next sbatch of the app is answered by the new
# model; the job's actual run time comes back through jobcomp, through the
# daemon too; mpipredict-accuracy and the staff page show it. Then a
# challenger trained on runs whose times jumped x10 is held as a drift
# until `mpipredict-model promote`, and a run made while the daemon is down
# keeps its row and forwards it later. Sourced by check-slurm.sh after the
# history section (uses its ok/bad/expect, script, submit, comment, conf,
# use_conf, and cluster.sh's helpers).

# loop_job NAME ROUNDS...: a batch job that runs loopapp once per ROUNDS
# value; waits for it to complete. Sets jid.
loop_job() {
	local name=$1 s
	shift
	s=$(script "$name.sh" "cd $ld" "for n in $*; do mpirun -np 1 ./loopapp \$n || exit 1; done")
	jid=$(sbatch --parsable -o "$ld/$name.out" -t 10 "$s")
	wait_for 180 sh -c "scontrol show job $jid | grep -q JobState=COMPLETED" ||
		bad "loop: job $name" "did not complete: $(field "$jid" JobState) $(tail -n 3 "$ld/$name.out")"
}

# lsql SQL: a query on the loop's store.
lsql() {
	sqlite3 "$ld/models.db" "$1"
}

# start_loop_daemon [PORT]: the centre's daemon: its own store, the token,
# retraining after 8 new runs of an app (--retrain-rows 8).
start_loop_daemon() {
	rm -f "$ld/port"
	"$build/bin/mpipredictd" --config none --db "$ld/models.db" \
		--listen "127.0.0.1:${1:-0}" --port-file "$ld/port" \
		--token-file "$ld/token" --retrain-rows 8 --retrain-interval 0 \
		>>"$ld/daemon.log" 2>&1 &
	loop_pid=$!
	server_pids+=($loop_pid)
	wait_for 10 test -s "$ld/port" || { bad "loop: daemon" "did not start: $(tail -n 3 "$ld/daemon.log")"; return 1; }
	lurl=http://127.0.0.1:$(cat "$ld/port")
}

loop_checks() {
	ld=$work/loop
	mkdir -p "$ld"
	local got v1 pj
	# The user instruments once, with the one-word wrapper.
	"$build/bin/mpipredict-mpicc" -O2 "$src/tests/slurm/loopapp.c" -o "$ld/loopapp" \
		>"$ld/build.log" 2>&1 || { bad "loop: build" "$(tail -n 3 "$ld/build.log")"; return; }
	# What a centre sets up once (docs/deploy.md): the token, the daemon,
	# the client configuration users' jobs read (here through
	# MPIPREDICT_CLIENT_CONF, which sbatch hands to the job, in place of
	# /etc/mpipredict/client.conf), jobcomp through the daemon.
	echo "loop-token-$RANDOM$RANDOM" >"$ld/token"
	chmod 640 "$ld/token"
	start_loop_daemon || return
	printf '[client]\nurl = %s\ntoken_file = %s\n' "$lurl" "$ld/token" >"$ld/client.conf"
	export MPIPREDICT_CLIENT_CONF=$ld/client.conf
	# The tests run as root; sbatch hands the job this environment.
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	printf '#!/bin/sh\nexec %s --url %s --token-file %s --spool %s --log %s\n' \
		"$build/bin/mpipredict-jobcomp" "$lurl" "$ld/token" "$ld/jobcomp.spool" \
		"$ld/jobcomp.log" >"$ld/jobcomp.sh"
	chmod 755 "$ld/jobcomp.sh"
	sed -i "s|^JobCompLoc=.*|JobCompLoc=$ld/jobcomp.sh|" "$SLURM_CONF"
	conf loop "url = $lurl" mode=annotate
	use_conf loop

	# 1. A user's job: 8 runs; their rows reach the store, the app
	# retrains by itself and the model goes live (the first one).
	loop_job first 10 20 30 40 50 60 70 80
	wait_for 60 sh -c "[ \$(sqlite3 '$ld/models.db' \"SELECT count(*) FROM runs r JOIN apps a ON a.id = r.app_id WHERE a.name = 'loopapp'\") -ge 8 ]"
	expect "loop: the job's 8 rows reached the daemon's store, no user step" 8 \
		"$(lsql "SELECT count(*) FROM runs r JOIN apps a ON a.id = r.app_id WHERE a.name = 'loopapp'")"
	expect "loop: the outbox is empty once sent" 0 "$(find "$ld/mpipredict-runs/outbox" -name '*.csv' 2>/dev/null | wc -l)"
	wait_for 120 sh -c "[ \$(sqlite3 '$ld/models.db' \"SELECT count(*) FROM models m JOIN apps a ON a.id = m.app_id WHERE a.name = 'loopapp' AND m.active = 1\") = 1 ]"
	v1=$(lsql "SELECT m.version FROM models m JOIN apps a ON a.id = m.app_id WHERE a.name = 'loopapp' AND m.active = 1")
	expect "loop: the app retrained by itself, version 1 active" 1 "$v1"
	# The model is live when the trainer commits; its line comes when the
	# trainer has exited.
	wait_for 10 grep -q 'retrain: loopapp: version 1 promoted' "$ld/daemon.log"
	expect "loop: the daemon logged the retraining at the default level" 1 \
		"$(grep -c 'retrain: loopapp: version 1 promoted' "$ld/daemon.log")"

	# 2. The next sbatch of the app is answered by that model, and its
	# actual run time comes back through jobcomp and the daemon.
	# Slurm's job times are whole seconds: a job under a second would
	# come back with a run time of 0, which no accuracy view can use.
	pj=$(script loop-predict.sh "cd $ld" 'mpirun -np 1 ./loopapp 45' 'sleep 2')
	submit "$pj" -t 10
	got=$(comment "$jid")
	case $got in
	"mpipredict: "*"s ["*"] loopapp@$v1") ok "loop: the next sbatch is annotated from the new model ($got)" ;;
	*) bad "loop: the next sbatch is annotated from the new model" "got '$got'" ;;
	esac
	# The plugin asks before Slurm has a job id: the audit record is the
	# app's newest (the store joins it to the job by user and time).
	wait_for 10 sh -c "[ \$(sqlite3 '$ld/models.db' \"SELECT count(*) FROM predictions WHERE app = 'loopapp'\") -ge 1 ]"
	expect "loop: the prediction names model version 1" "$v1" \
		"$(lsql "SELECT m.version FROM predictions p JOIN models m ON m.id = p.model_id WHERE p.app = 'loopapp' ORDER BY p.id DESC LIMIT 1")"
	scontrol release "$jid"
	wait_for 180 sh -c "scontrol show job $jid | grep -q JobState=COMPLETED"
	wait_for 30 sh -c "[ \$(sqlite3 '$ld/models.db' \"SELECT count(*) FROM jobs WHERE job_id = '$jid'\") = 1 ]"
	expect "loop: the actual run time came back through jobcomp and the daemon" 1 \
		"$(lsql "SELECT count(*) FROM jobs WHERE job_id = '$jid' AND runtime_s > 0")"
	expect "loop: jobcomp spooled nothing (the daemon was up)" 0 "$(cat "$ld/jobcomp.spool" 2>/dev/null | wc -c)"
	got=$("$build/bin/mpipredict-accuracy" --db "$ld/models.db" --by app | awk -F'\t' '$1 == "loopapp" { print $1, $2 }')
	expect "loop: mpipredict-accuracy reports the job" "loopapp 1" "$got"
	# The page's data is rebuilt once a second when the store changed.
	if wait_for 10 sh -c "curl -sf '$lurl/ui/accuracy?app=loopapp' | grep -q 'class=\"pt'"; then
		ok "loop: the staff page draws the job's prediction against its actual time"
	else
		bad "loop: the staff page draws the job's prediction against its actual time" \
			"no point on /ui/accuracy?app=loopapp"
	fi

	# 3. Runs whose times jumped x10 (the same counters): the challenger
	# is held as a drift, not promoted, until an admin promotes it.
	LOOPAPP_SLEEP_US=60000 loop_job drift 10 20 30 40 50 60 70 80
	wait_for 120 sh -c "[ \$(sqlite3 '$ld/models.db' \"SELECT count(*) FROM models m JOIN apps a ON a.id = m.app_id WHERE a.name = 'loopapp'\") -ge 2 ]"
	expect "loop: the x10 challenger is held: version 1 still active" "$v1" \
		"$(lsql "SELECT m.version FROM models m JOIN apps a ON a.id = m.app_id WHERE a.name = 'loopapp' AND m.active = 1")"
	expect "loop: its event is a drift" drift \
		"$(lsql "SELECT e.kind FROM model_events e JOIN apps a ON a.id = e.app_id WHERE a.name = 'loopapp' ORDER BY e.id DESC LIMIT 1")"
	if wait_for 10 sh -c "curl -sf '$lurl/' | grep -q '>drift<'"; then
		ok "loop: the staff page lists the drift"
	else
		bad "loop: the staff page lists the drift" "no '>drift<' cell on /"
	fi
	"$build/bin/mpipredict-model" promote --db "$ld/models.db" --app loopapp --version 2 >"$ld/promote.out" 2>&1
	expect "loop: mpipredict-model promote makes it active" 2 \
		"$(lsql "SELECT m.version FROM models m JOIN apps a ON a.id = m.app_id WHERE a.name = 'loopapp' AND m.active = 1")"

	# 4. The daemon down during a run: the job ends as usual, its row is
	# kept and forwarded once the daemon is back.
	local port
	port=$(cat "$ld/port")
	stop_pid "$loop_pid"
	loop_job down 25
	expect "loop: daemon down: the job completed" COMPLETED "$(field "$jid" JobState)"
	expect "loop: daemon down: the row is kept in the outbox" 1 \
		"$(find "$ld/mpipredict-runs/outbox" -maxdepth 1 -name '*.csv' | wc -l)"
	start_loop_daemon "$port" || return
	(cd "$ld" && "$build/bin/mpipredict-collect" --forward mpipredict-runs/outbox) >"$ld/forward.out" 2>&1
	expect "loop: daemon back: mpipredict-collect --forward sends it" "0 18" \
		"$(find "$ld/mpipredict-runs/outbox" -maxdepth 1 -name '*.csv' | wc -l) $(lsql "SELECT count(*) FROM runs r JOIN apps a ON a.id = r.app_id WHERE a.name = 'loopapp'")"
	unset MPIPREDICT_CLIENT_CONF OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
	stop_pid "$loop_pid"
}
