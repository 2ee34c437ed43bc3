# extend.sh: the limit-extension policy on check-slurm.sh's cluster (issue
# 37, mpipredictd --extend on): instrumented jobs send their progress
# while they run (MPIPREDICT_PROGRESS_S=5), the daemon extends through the
# real scontrol. A job whose 1-minute limit is ~30 % too short completes
# because its limit grew; a job predicted in time keeps its limit; a job
# whose need is over the cap is told in its Comment while it runs and is
# killed at its limit as it would be without mpipredict; with the daemon
# down a job runs as a plain one; a job whose extension would run into a
# maintenance reservation on its node is not extended and is told which. The one node has 2 CPUs: the four jobs
# are submitted at once and Slurm runs two at a time (about 2 minutes in
# all). Sourced by check-slurm.sh after the loop section (uses its
# ok/bad/expect, script, field, comment, and cluster.sh's helpers).

# ex_job NAME LIMIT_MIN ROUNDS [sbatch options]: submits a job running
# extendapp ROUNDS (about 52 ms a round); sets jid_NAME.
ex_job() {
	local name=$1 lim=$2 rounds=$3 s id
	shift 3
	s=$(script "ex-$name.sh" "cd $ed" "mpirun -np 1 ./extendapp $rounds")
	id=$(sbatch --parsable -o "$ed/$name.out" -t "$lim" "$@" "$s" 2>"$ed/$name.sbatch.err")
	[ -n "$id" ] || bad "extend: sbatch $name" "$(cat "$ed/$name.sbatch.err")"
	printf -v "jid_$name" '%s' "${id:-none}"
}

ex_done() {
	case $(field "$1" JobState) in COMPLETED | TIMEOUT | FAILED | CANCELLED) return 0 ;; esac
	return 1
}

extend_checks() {
	ed=$work/extend
	mkdir -p "$ed"
	local got n url
	"$build/bin/mpipredict-mpicc" -O2 "$src/tests/slurm/extendapp.c" -o "$ed/extendapp" \
		>"$ed/build.log" 2>&1 || { bad "extend: build" "$(tail -n 3 "$ed/build.log")"; return; }
	echo "extend-token-$RANDOM$RANDOM" >"$ed/token"
	chmod 640 "$ed/token"
	# The cap: 100 % of the limit (a minute): a ~78 s run fits with room
	# for a loaded machine's wider interval, a ~156 s one does not.
	"$build/bin/mpipredictd" --config none --db "$ed/models.db" \
		--listen 127.0.0.1:0 --port-file "$ed/port" --token-file "$ed/token" \
		--retrain-rows 8 --retrain-interval 0 --extend on \
		--extend-cap-pct 100 --scontrol "$(command -v scontrol)" \
		>>"$ed/daemon.log" 2>&1 &
	ex_pid=$!
	server_pids+=($ex_pid)
	wait_for 10 test -s "$ed/port" || { bad "extend: daemon" "did not start: $(tail -n 3 "$ed/daemon.log")"; return; }
	url=http://127.0.0.1:$(cat "$ed/port")
	printf '[client]\nurl = %s\ntoken_file = %s\n' "$url" "$ed/token" >"$ed/client.conf"
	# The daemon down: nothing listens on the port of a stopped server.
	printf '[client]\nurl = http://127.0.0.1:9\ntoken_file = %s\n' "$ed/token" >"$ed/down.conf"
	export MPIPREDICT_CLIENT_CONF=$ed/client.conf MPIPREDICT_PROGRESS_S=5
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

	# The app's model: eight short runs on this node (not through
	# Slurm), their rows to the daemon, which trains after eight. Up to
	# 80 rounds (4 s): with only a few, MPI's start-up hides the cost of
	# a round and the interval at 1500 rounds grows wide.
	for n in 10 20 30 40 50 60 70 80; do
		(cd "$ed" && mpirun -np 1 ./extendapp $n) >>"$ed/train-runs.out" 2>&1
	done
	if ! wait_for 120 sh -c "[ \$(sqlite3 '$ed/models.db' \"SELECT count(*) FROM models m JOIN apps a ON a.id = m.app_id WHERE a.name = 'extendapp' AND m.active = 1\") = 1 ]"; then
		bad "extend: the app's model" "not trained: $(tail -n 3 "$ed/daemon.log")"
		return
	fi

	# Two at a time: the one to extend and the one over the cap first,
	# then the one in time and the one with the daemon down.
	ex_job long 1 1500
	ex_job over 1 3000
	ex_job intime 2 400
	ex_job down 1 300 --export="ALL,MPIPREDICT_CLIENT_CONF=$ed/down.conf"
	# Over the cap: told while it runs.
	if wait_for 80 sh -c "scontrol show job $jid_over | grep -q 'Comment=mpipredict: predicted to need .* beyond your limit, more than the site.s cap 0:01:00; not extended'"; then
		expect "extend: over the cap: told while the job runs" RUNNING "$(field "$jid_over" JobState)"
	else
		bad "extend: over the cap: told while the job runs" "Comment '$(comment "$jid_over")', state $(field "$jid_over" JobState)"
	fi
	wait_for 240 sh -c "scontrol show job $jid_long | grep -qE 'JobState=(COMPLETED|TIMEOUT|FAILED|CANCELLED)' && scontrol show job $jid_over | grep -qE 'JobState=(COMPLETED|TIMEOUT|FAILED|CANCELLED)' && scontrol show job $jid_intime | grep -qE 'JobState=(COMPLETED|TIMEOUT|FAILED|CANCELLED)' && scontrol show job $jid_down | grep -qE 'JobState=(COMPLETED|TIMEOUT|FAILED|CANCELLED)'"
	expect "extend: a 1-minute job of ~78 s completes: its limit was extended" \
		"COMPLETED 2" "$(field "$jid_long" JobState) $(minutes "$(field "$jid_long" TimeLimit)")"
	got=$(comment "$jid_long")
	case $got in
	"mpipredict: limit extended by 1 min: predicted to need "*) ok "extend: the extended job's Comment says so ($got)" ;;
	*) bad "extend: the extended job's Comment says so" "got '$got'" ;;
	esac
	expect "extend: the extension is a notice line of the daemon's log" 1 \
		"$(grep -c "extend: job $jid_long: limit 00:01:00 -> 2 min" "$ed/daemon.log")"
	expect "extend: over the cap: not extended, killed at its limit" "TIMEOUT 1" \
		"$(field "$jid_over" JobState) $(minutes "$(field "$jid_over" TimeLimit)")"
	expect "extend: a job predicted in time is left alone" "COMPLETED 2" \
		"$(field "$jid_intime" JobState) $(minutes "$(field "$jid_intime" TimeLimit)")"
	expect "extend: daemon down: the job runs as a plain one (its one line of output)" \
		"COMPLETED 1 1 extendapp: 300 rounds" \
		"$(field "$jid_down" JobState) $(minutes "$(field "$jid_down" TimeLimit)") $(wc -l <"$ed/down.out") $(cut -d, -f1 "$ed/down.out")"
	# By job (submitted in this order); the two jobs' posts race.
	expect "extend: the audit rows: the long job extended, the other over the cap" \
		"$jid_long:extended:120 $jid_over:over_cap:-" \
		"$(sqlite3 "$ed/models.db" "SELECT job_id || ':' || outcome || ':' || coalesce(CAST(new_limit_s AS INTEGER), '-') FROM extensions ORDER BY CAST(job_id AS INTEGER), id" | tr '\n' ' ' | sed 's/ $//')"
	got=$(curl -s "$url/metrics" | grep '^mpipredictd_extensions_total' | awk '{ printf "%s ", $2 }')
	expect "extend: /metrics counts extended 1, over_cap 1, reservation 0, failed 0" "1 1 0 0 " "$got"
	if curl -s "$url/" | grep -q "<td>$jid_long</td><td>extended</td>"; then
		ok "extend: the staff page lists the extension"
	else
		bad "extend: the staff page lists the extension" "no row for job $jid_long"
	fi

	# A maintenance reservation on the node from 100 s on: a job that
	# needs ~78 s of its 1-minute limit would be extended into it, so it
	# is not; its user is told which reservation, and it is killed at
	# its limit as it would be without mpipredict (the policy's check of
	# the real scontrol's reservations).
	local rstart
	rstart=$(date -d "@$(($(date +%s) + 100))" +%Y-%m-%dT%H:%M:%S)
	if scontrol create reservation ReservationName=mpp_maint StartTime="$rstart" \
		Duration=5 Nodes=ALL Users=root Flags=MAINT,IGNORE_JOBS >"$ed/resv.log" 2>&1; then
		ex_job resv 1 1500
		wait_for 200 ex_done "$jid_resv"
		expect "extend: a reservation on its nodes before the new end: not extended, killed at its limit" \
			"TIMEOUT 1" "$(field "$jid_resv" JobState) $(minutes "$(field "$jid_resv" TimeLimit)")"
		got=$(comment "$jid_resv")
		case $got in
		"mpipredict: predicted to need "*"not extended: reservation mpp_maint starts on its nodes at "*)
			ok "extend: the user is told which reservation ($got)" ;;
		*) bad "extend: the user is told which reservation" "got '$got'" ;;
		esac
		expect "extend: the reservation is audited" "$jid_resv:reservation" \
			"$(sqlite3 "$ed/models.db" "SELECT job_id || ':' || outcome FROM extensions WHERE job_id = '$jid_resv'")"
		scontrol delete reservation mpp_maint >>"$ed/resv.log" 2>&1
	else
		bad "extend: a maintenance reservation" "scontrol create reservation: $(cat "$ed/resv.log")"
	fi
	unset MPIPREDICT_CLIENT_CONF MPIPREDICT_PROGRESS_S OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
	stop_pid "$ex_pid"
}
