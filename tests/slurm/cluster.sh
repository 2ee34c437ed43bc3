# cluster.sh: bring up and tear down a one-node Slurm cluster (munged,
# slurmctld, slurmd) under one temporary directory, with the job_submit
# plugin from the build tree. Sourced by check-slurm.sh and bench-slurm.sh.
# Partitions: debug (default, no limits) and short (DefaultTime 5, MaxTime
# 10 minutes), for the plugin's limit rules. Munged runs on its own socket
# and Slurm on random ports, so a Slurm already on the machine is left alone.
#
# After cluster_up: $work is the directory, SLURM_CONF is exported, and
# cluster_ctld_restart CONF restarts slurmctld with MPIPREDICT_CONF=CONF
# (the plugin reads its config once, when slurmctld loads it). Every process
# started here is stopped by PID in cluster_down, which the caller runs from
# an EXIT trap. Not for: more than one node, or real accounting.

sysplugins=/usr/lib/x86_64-linux-gnu/slurm-wlm
cluster_pids=()
ctld_pid=
slurmd_pid=

# Start a background process and remember its PID for cluster_down.
spawn() {
	"$@" &
	cluster_pids+=($!)
}

# wait_for SECONDS CMD...: poll CMD every 0.1 s until it succeeds.
wait_for() {
	local end=$((SECONDS + $1))
	shift
	until "$@" >/dev/null 2>&1; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.1
	done
}

stop_pid() {
	local pid=$1 i
	kill -0 "$pid" 2>/dev/null || return 0
	kill -TERM "$pid" 2>/dev/null
	for i in $(seq 50); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# cluster_up PLUGIN_DIR [JobSubmitPlugins value, default mpipredict]
cluster_up() {
	local plugdir=$1 jsp=${2-mpipredict} host port
	host=$(hostname)
	work=$(mktemp -d /tmp/mpp-slurm.XXXXXX)
	chmod 755 "$work"
	mkdir -p "$work/munge" "$work/state" "$work/spool" "$work/log"
	chown munge:munge "$work/munge"
	# Our own munged on our own socket: whatever else runs here is left alone.
	spawn setpriv --reuid=munge --regid=munge --init-groups \
		munged -F --socket="$work/munge/sock" \
		--pid-file="$work/munge/pid" --log-file="$work/munge/log" \
		--seed-file="$work/munge/seed" >"$work/log/munged.out" 2>&1
	wait_for 10 test -S "$work/munge/sock" || { echo "munged did not start"; return 1; }
	munge -n -S "$work/munge/sock" | unmunge -S "$work/munge/sock" >/dev/null ||
		{ echo "munge -n | unmunge failed"; return 1; }
	# Ports away from the defaults, in case a real Slurm runs here.
	port=$((20000 + RANDOM % 20000))
	cat >"$work/slurm.conf" <<-EOF
	ClusterName=mpptest
	SlurmctldHost=$host
	SlurmctldPort=$port
	SlurmdPort=$((port + 1))
	SlurmUser=root
	SlurmdUser=root
	AuthType=auth/munge
	CredType=cred/munge
	AuthInfo=socket=$work/munge/sock
	MpiDefault=none
	ProctrackType=proctrack/linuxproc
	TaskPlugin=task/none
	JobAcctGatherType=jobacct_gather/none
	AccountingStorageType=accounting_storage/none
	JobCompType=jobcomp/none
	SchedulerType=sched/backfill
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core
	ReturnToService=2
	MailProg=/bin/true
	PluginDir=$sysplugins:$plugdir
	${jsp:+JobSubmitPlugins=$jsp}
	StateSaveLocation=$work/state
	SlurmdSpoolDir=$work/spool
	SlurmctldPidFile=$work/slurmctld.pid
	SlurmdPidFile=$work/slurmd.pid
	SlurmctldLogFile=$work/log/slurmctld.log
	SlurmdLogFile=$work/log/slurmd.log
	SlurmctldDebug=info
	NodeName=$host CPUs=2 RealMemory=1000 State=UNKNOWN
	PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
	PartitionName=short Nodes=ALL DefaultTime=5 MaxTime=10 State=UP
	EOF
	export SLURM_CONF=$work/slurm.conf
	cluster_ctld_restart "${MPIPREDICT_CONF:-}" || return 1
	spawn slurmd -D -f "$SLURM_CONF" >"$work/log/slurmd.out" 2>&1
	slurmd_pid=$!
	wait_for 20 node_idle || { echo "node did not become idle"; return 1; }
}

node_idle() {
	sinfo -h -o '%t' | grep -qx idle
}

ctld_up() {
	scontrol ping | grep -q 'is UP'
}

# cluster_ctld_restart MPIPREDICT_CONF: restart slurmctld alone (the plugin
# re-reads its config); jobs from before are forgotten (-c).
cluster_ctld_restart() {
	[ -n "$ctld_pid" ] && stop_pid "$ctld_pid"
	MPIPREDICT_CONF=$1 spawn slurmctld -D -c -f "$SLURM_CONF" \
		>>"$work/log/slurmctld.out" 2>&1
	ctld_pid=$!
	wait_for 30 ctld_up || { echo "slurmctld did not start; log:"; tail -n 20 "$work/log/slurmctld.log"; return 1; }
}

# Cancel what is left, let running jobs end (a slurmd stopped under a job
# leaves a slurmstepd behind), then stop everything by PID, newest first.
cluster_down() {
	local i
	if [ -n "$ctld_pid" ] && kill -0 "$ctld_pid" 2>/dev/null; then
		scancel --user=root >/dev/null 2>&1
		wait_for 20 sh -c '[ -z "$(squeue -h -t running,completing)" ]'
	fi
	for ((i = ${#cluster_pids[@]} - 1; i >= 0; i--)); do
		stop_pid "${cluster_pids[i]}"
	done
	cluster_pids=()
	[ -n "${work:-}" ] && [ "${KEEP:-0}" != 1 ] && rm -rf "$work"
	return 0
}
