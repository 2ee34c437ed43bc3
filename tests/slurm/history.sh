# history.sh: actual run times back from Slurm and history predictions
# (history/, issue 18), on check-slurm.sh's cluster. Sourced by
# check-slurm.sh after its other sections (uses its ok/bad/expect, submit,
# comment, field, script, conf and use_conf, and cluster.sh's helpers).
#
# slurmctld gets JobCompType=jobcomp/script with a two-line wrapper around
# mpipredict-jobcomp writing to the real daemon's store; two jobs of an app
# without a model run and end, their actual times arrive in the jobs
# table, the daemon learns them while it runs, and the third job of the same
# user is predicted from them (basis history) through the unchanged plugin;
# when it has run, its prediction and actual time are joined and
# mpipredict-accuracy reports them per app and per user.

history_checks() {
	local jc=$work/jobcomp.sh hsleep=$work/hsleep a1 a2 c n got
	printf '#!/bin/sh\nexec %s --db %s --log %s\n' "$build/bin/mpipredict-jobcomp" \
		"$work/models.db" "$work/log/jobcomp.log" >"$jc"
	chmod 755 "$jc"
	sed -i "s|^JobCompType=.*|JobCompType=jobcomp/script\nJobCompLoc=$jc|" "$SLURM_CONF"
	rm -f "$work/daemon.port" # the real daemon section's
	start_daemon "$work" || { bad "history: daemon" "did not start"; return; }
	conf history "url = $daemon_url" mode=annotate
	use_conf history
	# slurmd reads slurm.conf too: restart it on the new one.
	stop_pid "$slurmd_pid"
	spawn slurmd -D -f "$SLURM_CONF" >>"$work/log/slurmd.out" 2>&1
	slurmd_pid=$!
	wait_for 30 node_idle || { bad "history: slurmd" "node not idle after a restart"; return; }
	ln -sf /bin/sleep "$hsleep"
	hist=$(script hist.sh "srun $hsleep 2")
	for n in 1 2; do
		jid=$(sbatch --parsable -o /dev/null -t 5 "$hist")
		wait_for 120 sh -c "scontrol show job $jid | grep -q JobState=COMPLETED" ||
			bad "history: job $n" "did not complete: $(field "$jid" JobState)"
		eval "a$n=$jid"
	done
	wait_for 30 sh -c "[ \$(sqlite3 '$work/models.db' \"SELECT count(*) FROM jobs WHERE job_id IN ('$a1', '$a2')\") = 2 ]"
	got=$(sqlite3 "$work/models.db" "SELECT user, uid, partition, nodes, ntasks, time_limit_s, state,
		runtime_s BETWEEN 2 AND 10, end_at - start_at = runtime_s, submit_at <= start_at FROM jobs WHERE job_id = '$a1'")
	expect "history: a finished job's actual time in the jobs table (jobcomp/script)" \
		"root|0|debug|1|1|300.0|COMPLETED|1|1|1" "$got"
	expect "history: jobcomp logged nothing wrong" "" "$(cat "$work/log/jobcomp.log" 2>/dev/null)"
	# The third job: no model for hsleep, predicted from the first two.
	# The daemon reads new rows of the jobs table on its own clock
	# (--reload-interval): ask it the plugin's question until it has.
	wait_for 30 sh -c "jq -n --arg a '$hist' --rawfile s '$hist' '{argv: [\$a], script: \$s, uid: 0, time_limit_s: 300, ntasks: 1}' |
		curl -sf -H 'Content-Type: application/json' -d @- '$daemon_url/v1/predict' | jq -e '.basis == \"history\"' >/dev/null" ||
		bad "history: the daemon learns the finished jobs" "no history answer in 30 s"
	# The store joins a job to the audit record of its user made within
	# 5 s of its submission: let those of the question above age out.
	sleep 6
	n=$(sqlite3 "$work/models.db" "SELECT count(*) FROM predictions WHERE basis = 'history'")
	submit "$hist" -t 5
	c=$jid
	got=$(comment "$c")
	case $got in
	"mpipredict: "*"s ["*"] hsleep") ok "history: the plugin annotates a job without a model ($got)" ;;
	*) bad "history: the plugin annotates a job without a model" "expected 'mpipredict: Ns [L,U] hsleep', got '$got'" ;;
	esac
	rt=$(sqlite3 "$work/models.db" "SELECT (SELECT runtime_s FROM jobs WHERE job_id = '$a1') + (SELECT runtime_s FROM jobs WHERE job_id = '$a2')")
	# The daemon audits in batches (--audit-interval, 100 ms): the answer
	# reaches the plugin before its audit record reaches the store.
	wait_for 10 sh -c "[ \$(sqlite3 '$work/models.db' \"SELECT count(*) FROM predictions WHERE basis = 'history'\") -gt $n ]"
	expect "history: Tsafrir's mean of the two, audited with basis history" \
		"history|uid:0|hsleep|$(awk -v s="$rt" 'BEGIN { printf "%.1f", int(s / 2) }')" \
		"$(sqlite3 "$work/models.db" "SELECT basis, user, app, runtime_s FROM predictions WHERE basis = 'history' ORDER BY id DESC LIMIT 1")"
	scontrol release "$c"
	wait_for 120 sh -c "scontrol show job $c | grep -q JobState=COMPLETED"
	wait_for 30 sh -c "[ \$(sqlite3 '$work/models.db' \"SELECT count(*) FROM jobs WHERE job_id = '$c'\") = 1 ]"
	expect "history: the job's prediction joined by job id" "hsleep|history" \
		"$(sqlite3 "$work/models.db" "SELECT j.app, p.basis FROM jobs j JOIN predictions p ON p.job_id = j.job_id WHERE j.job_id = '$c'")"
	got=$("$build/bin/mpipredict-accuracy" --db "$work/models.db" --by app | awk -F'\t' '$1 == "hsleep" { print $1, $2 }')
	expect "history: mpipredict-accuracy per app" "hsleep 1" "$got"
	got=$("$build/bin/mpipredict-accuracy" --db "$work/models.db" --by user | awk -F'\t' '$1 == "root" { print $1, ($2 >= 1) }')
	expect "history: mpipredict-accuracy per user" "root 1" "$got"
	stop_daemon
}
