#!/usr/bin/env bash
# check-slurm.sh: the job_submit/mpipredict plugin on a real slurmctld
# (make check-slurm). Not named t-*.sh: plain `make check` does not run it,
# because it needs root, munge and the Slurm daemons.
#
# It brings up munged, slurmctld and slurmd under a temporary directory with
# the plugin from the build tree, and servers for the plugin to call: the
# real mpipredictd with a model that mpipredict-train fitted on a synthetic
# CSV, and fake-predictd (tests/slurm/fake-predictd.c) answering a fixed
# prediction or misbehaving on purpose (hang, garbage, 500); fake-predictd
# picks the app with the daemon's own script reader. Each case submits held
# jobs with sbatch (and a few srun/salloc jobs that run) and reads them back
# with scontrol. The plugin reads its config once, so each config gets a
# slurmctld restart.
#
# Prints one line per check and "N passed, N failed"; exits non-zero on a
# failure. Everything it started is stopped by PID on exit (KEEP=1 keeps
# the temporary directory, with the daemons' logs).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
build=${MPP_BUILD:-$src/build}
fake=$build/tests/slurm/fake-predictd
. "$src/tests/slurm/cluster.sh"
. "$src/tests/slurm/daemon.sh"
. "$src/tests/slurm/history.sh"
. "$src/tests/slurm/loop.sh"
. "$src/tests/slurm/extend.sh"

[ "$(id -u)" = 0 ] || { echo "check-slurm: needs root (munged, slurmd)"; exit 1; }
for f in "$build/lib/slurm/job_submit_mpipredict.so" "$fake" \
	"$build/bin/mpipredictd" "$build/bin/mpipredict-train"; do
	[ -x "$f" ] || [ -f "$f" ] || { echo "check-slurm: $f is not built"; exit 1; }
done

pass=0 fail=0
ok() { pass=$((pass + 1)); printf 'ok    %s\n' "$1"; }
bad() { fail=$((fail + 1)); printf 'FAIL  %s: %s\n' "$1" "$2"; }
# expect NAME EXPECTED GOT
expect() {
	if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "expected '$2', got '$3'"; fi
}

server_pids=()
finish() {
	local p
	for p in "${server_pids[@]+"${server_pids[@]}"}"; do stop_pid "$p"; done
	cluster_down
}
trap finish EXIT

# start_fake MODE NAME [fake-predictd options]: a fake-predictd; sets
# port_NAME; its requests go to $work/NAME.requests.
start_fake() {
	local pf=$work/$2.port
	"$fake" --mode "$1" --port-file "$pf" --log "$work/$2.requests" "${@:3}" \
		>"$work/log/$2.out" 2>&1 &
	server_pids+=($!)
	wait_for 10 test -s "$pf" || { echo "fake-predictd $1 did not start"; exit 1; }
	printf -v "port_$2" '%s' "$(cat "$pf")"
	: >>"$work/$2.requests"
}

# requests NAME: how many requests that fake server has seen.
requests() {
	wc -l <"$work/$1.requests"
}

# conf NAME SETTINGS...: write $work/NAME.conf, one setting per argument.
# Unless they set timeout_ms, it is 5 s: a loaded machine can take longer
# than the default 200 ms to answer, and only the hang cases are about time.
conf() {
	local name=$1
	shift
	printf '%s\n' "$@" >"$work/$name.conf"
	case "$*" in *timeout_ms*) ;; *) echo 'timeout_ms = 5000' >>"$work/$name.conf" ;; esac
}

use_conf() {
	cluster_ctld_restart "$work/$1.conf" || exit 1
}

# script FILE LINES...: a batch script.
script() {
	local f=$work/$1
	shift
	{ echo '#!/bin/sh'; printf '%s\n' "$@"; } >"$f"
	echo "$f"
}

# submit SCRIPT [sbatch options]: submit held; sets jid and ms (wall time).
submit() {
	local s=$1 t0 t1
	shift
	t0=$(date +%s%N)
	jid=$(sbatch --parsable --hold -o /dev/null "$@" "$s" 2>"$work/sbatch.err")
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	[ -n "$jid" ] || { jid=none; echo "sbatch failed: $(cat "$work/sbatch.err")"; }
}

# comment ID / field ID KEY: what scontrol shows for the job.
comment() {
	scontrol show job "$1" 2>/dev/null | sed -n 's/^ *Comment=\(.*\) *$/\1/p' | sed 's/ *$//'
}
field() {
	scontrol show job "$1" 2>/dev/null | grep -o " $2=[^ ]*" | head -n 1 | cut -d= -f2
}

# minutes D-HH:MM:SS|HH:MM:SS|UNLIMITED|N/A -> minutes or the word.
minutes() {
	local v=$1 d=0
	case $v in *:*) ;; *) echo "$v"; return ;; esac
	case $v in *-*) d=${v%%-*}; v=${v#*-} ;; esac
	IFS=: read -r h m s <<<"$v"
	echo $((d * 1440 + 10#$h * 60 + 10#$m + (10#$s > 0)))
}

plugin_lines() {
	grep -c 'job_submit/mpipredict: job ' "$work/log/slurmctld.log"
}

# own_ms: the plugin's own time for its last call, as it logs it ("in T ms"
# at debug level for a prediction, "after T ms" for a failure).
own_ms() {
	sed -n 's/.*job_submit\/mpipredict: job .* \(in\|after\) \([0-9.]*\) ms.*/\2/p' \
		"$work/log/slurmctld.log" | tail -n 1
}

# expect_le NAME LIMIT VALUE: VALUE <= LIMIT (numbers).
expect_le() {
	if awk -v l="$2" -v v="$3" 'BEGIN { exit !(v != "" && v + 0 <= l + 0) }'; then
		ok "$1 ($3 <= $2)"
	else
		bad "$1" "expected at most $2, got '$3'"
	fi
}

# The margin over timeout_ms for the plugin's own call time: a scheduling
# delay on a loaded 2-core machine, far below a second budget.
margin_ms=100

steps0=$(pgrep -c -x slurmstepd)
cluster_up "$build/lib/slurm" || exit 1
# Started without MPIPREDICT_CONF: the plugin looks next to slurm.conf,
# finds nothing, says so and stands aside.
expect "no MPIPREDICT_CONF: looks next to slurm.conf, disabled" 1 \
	"$(grep -c "mpipredict: $work/mpipredict.conf: No such file.*disabled" "$work/log/slurmctld.log")"

jacobi=$(script jacobi.sh '#SBATCH -n 2' 'srun ./jacobi -n 512 --iters 100')
named=$(script named.sh '#MPIPREDICT app=jacobi' 'mpirun --bind-to core ./wrapper.sh 512')
unknown=$(script unknown.sh 'srun ./no-such-app 10')
optout=$(script optout.sh '#MPIPREDICT off' 'srun ./jacobi -n 512')
heat=$(script heat.sh 'mpiexec -n 2 ./heat 64')

# The fixed answer (fake-predictd, mode ok) is 300 s in [280,330], model
# version 7; with safety 1.2 the predicted minutes are ceil(330*1.2/60) = 7.
start_fake ok okd --apps jacobi,heat,true
start_fake hang hang
start_fake garbage garbage
start_fake error err
# A port nobody listens on: a server's, once it is stopped.
start_fake ok gone
stop_pid "${server_pids[-1]}"
dead=http://127.0.0.1:$port_gone
okurl=http://127.0.0.1:$port_okd
note='mpipredict: 300s [280,330] jacobi@7'

echo "== annotate (fake-predictd, fixed answer)"
conf annotate "url = $okurl" mode=annotate safety=1.2 'apps = jacobi, no-such-app, true'
use_conf annotate
n0=$(requests okd)
submit "$jacobi" -t 60
expect "annotate: comment" "$note" "$(comment "$jid")"
expect "annotate: time limit unchanged" 60 "$(minutes "$(field "$jid" TimeLimit)")"
expect "annotate: time_min unchanged" N/A "$(field "$jid" TimeMin)"
req=$(tail -n 1 "$work/okd.requests")
expect "annotate: request (script whole, no app or args of the plugin's own)" \
	"null null 2 0 3600 $(jq -Rs . "$jacobi") [\"$jacobi\"]" \
	"$(jq -r '[.app, .args, .ntasks, .uid, .time_limit_s, (.script|tojson), (.argv|tojson)]|map(tostring)|join(" ")' <<<"$req")"
submit "$jacobi" --comment="my note" -t 60
expect "annotate: user's comment kept" "my note; $note" "$(comment "$jid")"
submit "$named"
expect "annotate: #MPIPREDICT app= names the app" "$note" "$(comment "$jid")"
# One job that really runs: the plugin's changes do not get in its way.
runs=$(script runs.sh '#MPIPREDICT app=jacobi' 'srun /bin/true')
rid=$(sbatch --parsable -o /dev/null -t 5 "$runs")
wait_for 120 sh -c "scontrol show job $rid | grep -q JobState=COMPLETED"
expect "annotate: a predicted job runs to completion" "COMPLETED $note" \
	"$(field "$rid" JobState) $(comment "$rid")"
l0=$(plugin_lines)
submit "$unknown" --comment="mine"
expect "unknown app: job unchanged" "mine" "$(comment "$jid")"
expect "unknown app: one log line" 1 $(($(plugin_lines) - l0))
n1=$(requests okd)
submit "$optout"
expect "#MPIPREDICT off: unchanged, daemon not called" " $n1" "$(comment "$jid") $(requests okd)"
submit "$heat"
expect "answer for an app not in the allow-list (heat): unchanged" " $((n1 + 1))" \
	"$(comment "$jid") $(requests okd)"
# The comment: slurmctld refuses one over 1024 bytes (checked by hand:
# sbatch --comment of 1024 bytes is accepted, 1025 refused). The user's is
# kept whole; the note is appended when it fits, else the runtime alone.
c1000=$(head -c 1000 /dev/zero | tr '\0' c)
submit "$jacobi" --comment="$c1000"
expect "user's comment of 1000 bytes: accepted, runtime alone appended" \
	"${c1000}; mpipredict: 300s" "$(comment "$jid")"
submit "$jacobi" --comment="${c1000}cccccccccccccccccccccccc"
expect "user's comment of 1024 bytes: accepted, kept as it is" \
	"${c1000}cccccccccccccccccccccccc" "$(comment "$jid")"
# srun and salloc jobs (no script): these jobs run. Slurm 22.05 hands
# job_submit only argv[0] of an srun (argc 1) and no argv for salloc; the
# whole command is in the submit line. Both go to the daemon as they are,
# and it names the app (fake-predictd: its script reader on the srun line).
submit_alloc() {
	local name=$1
	shift
	"$@" >"$work/$name.out" 2>&1
	jid=$(scontrol -o show job 2>/dev/null | grep " JobName=$name " | sed -n 's/^JobId=\([0-9]*\) .*/\1/p' | tail -n 1)
}
submit_alloc srunjob srun -J srunjob -t 5 -n 1 --comment=mine /bin/true -n 512 x
expect "srun job: argv and submit line as Slurm gives them, no script, no app" \
	'["/bin/true"] "srun -J srunjob -t 5 -n 1 --comment=mine /bin/true -n 512 x" null null' \
	"$(tail -n 1 "$work/okd.requests" | jq -c '.argv, .submit_line, .script, .app' | paste -sd' ')"
expect "srun job: the daemon's app in the comment" "mine; mpipredict: 300s [280,330] true@7" "$(comment "$jid")"
l0=$(plugin_lines)
submit_alloc sallocjob salloc -J sallocjob -t 5 -n 1 /bin/true a b
expect "salloc job: submit line sent whole" '[] "salloc -J sallocjob -t 5 -n 1 /bin/true a b"' \
	"$(tail -n 1 "$work/okd.requests" | jq -c '.argv, .submit_line' | paste -sd' ')"
expect "salloc job (no app found): ran unchanged, one log line" "COMPLETED  1" \
	"$(field "$jid" JobState) $(comment "$jid") $(($(plugin_lines) - l0))"

echo "== time_min (fixed answer)"
conf time_min "url = $okurl" mode=time_min safety=1.2
use_conf time_min
submit "$jacobi" -t 60
expect "time_min: set to the predicted minutes" 7 "$(minutes "$(field "$jid" TimeMin)")"
expect "time_min: user's time limit kept" 60 "$(minutes "$(field "$jid" TimeLimit)")"
expect "time_min: comment" "$note" "$(comment "$jid")"
submit "$jacobi" -t 5
expect "time_min: not above the user's limit" N/A "$(field "$jid" TimeMin)"
expect "time_min: short user limit kept" 5 "$(minutes "$(field "$jid" TimeLimit)")"
submit "$jacobi"
expect "time_min: not set when the user gave no limit" "N/A UNLIMITED" \
	"$(field "$jid" TimeMin) $(field "$jid" TimeLimit)"
# Partition short has DefaultTime=5: a time_min of 7 there would make
# slurmctld reject the job.
submit "$jacobi" -p short
expect "time_min, partition with DefaultTime 5: job accepted as asked" "short N/A 5" \
	"$(field "$jid" Partition) $(field "$jid" TimeMin) $(minutes "$(field "$jid" TimeLimit)")"
submit "$jacobi" -t 60 --time-min=30
expect "time_min: user's own time_min kept" 30 "$(minutes "$(field "$jid" TimeMin)")"

echo "== fill (fixed answer)"
conf fill "url = $okurl" mode=fill max_minutes=600 safety=1.2
use_conf fill
submit "$jacobi"
expect "fill: time limit from the prediction" 7 "$(minutes "$(field "$jid" TimeLimit)")"
submit "$jacobi" -t 30 --comment="keep me"
expect "fill: user's time limit kept" 30 "$(minutes "$(field "$jid" TimeLimit)")"
expect "fill: user's comment kept" "keep me; $note" "$(comment "$jid")"
# A limit below --time-min gets the job refused ("Invalid time-min
# specification"): the plugin raises it to time_min.
submit "$jacobi" --time-min=30
expect "fill with --time-min=30 and no -t: accepted, limit 30" "30 30" \
	"$(minutes "$(field "$jid" TimeLimit)") $(minutes "$(field "$jid" TimeMin)")"
# Partition short has MaxTime=10; ceil(330 * 2 / 60) = 11 would leave the
# job pending for ever (PartitionTimeLimit).
conf fill_part "url = $okurl" mode=fill safety=2 max_minutes=600 'partition_max_minutes = short:10'
use_conf fill_part
submit "$jacobi" -p short
expect "fill, partition_max_minutes short:10: limit within the partition's MaxTime" 10 \
	"$(minutes "$(field "$jid" TimeLimit)")"
submit "$jacobi"
expect "fill, other partition: max_minutes (600) does not cut 11" 11 \
	"$(minutes "$(field "$jid" TimeLimit)")"
conf fill_lower "url = $okurl" mode=fill safety=1.2 lower_user_limit=yes max_minutes=6
use_conf fill_lower
submit "$jacobi" -t 30
expect "fill, lower_user_limit=yes, max_minutes=6: limit lowered and clamped" 6 \
	"$(minutes "$(field "$jid" TimeLimit)")"
submit "$jacobi" -t 30 --time-min=10
expect "fill, lower_user_limit=yes, --time-min=10 over max_minutes: accepted, limits as asked" "30 10" \
	"$(minutes "$(field "$jid" TimeLimit)") $(minutes "$(field "$jid" TimeMin)")"
submit "$jacobi" --time-min=10
expect "fill, --time-min=10 over max_minutes=6, no -t: accepted, no limit set" "UNLIMITED 10" \
	"$(field "$jid" TimeLimit) $(minutes "$(field "$jid" TimeMin)")"

echo "== the real daemon, each mode"
# What the job must show comes from the daemon's own answer to the request
# the plugin sent for the same job, as fake-predictd logged it above.
start_daemon "$work" || exit 1
echo "   ($daemon_kind)"
# expect_from_daemon JQ-FILTER: sets want_note and want_min from the daemon's
# answer to the first logged request that the filter selects.
expect_from_daemon() {
	local body answer rt lo up ver
	body=$(jq -c "select($1)" "$work/okd.requests" | head -n 1)
	answer=$(curl -s -H 'Content-Type: application/json' -d "$body" "$daemon_url/v1/predict")
	read -r rt lo up ver < <(jq -r '"\(.runtime_s) \(.lower_s) \(.upper_s) \(.model.version)"' <<<"$answer")
	want_note=$(printf 'mpipredict: %.0fs [%.0f,%.0f] jacobi@%s' "$rt" "$lo" "$up" "$ver")
	want_min=$(awk -v u="$up" 'BEGIN { m = u * 1.2 / 60; c = int(m); if (c < m) c++; if (c < 1) c = 1; print c }')
	echo "   (daemon: $rt s [$lo,$up], model version $ver: $want_min min with safety 1.2)"
}
expect_from_daemon '.time_limit_s == 3600 and (.argv[0] | endswith("/jacobi.sh"))'
conf real_annotate "url = $daemon_url" mode=annotate safety=1.2
use_conf real_annotate
submit "$jacobi" -t 60 --comment=mine
expect "real daemon, annotate: comment" "mine; $want_note" "$(comment "$jid")"
expect "real daemon, annotate: limits unchanged" "60 N/A" \
	"$(minutes "$(field "$jid" TimeLimit)") $(field "$jid" TimeMin)"
submit "$unknown" -t 60
expect "real daemon, unknown app (404): unchanged" " 60" "$(comment "$jid") $(minutes "$(field "$jid" TimeLimit)")"
# An srun job (no script): the real daemon reads its submit line, so the
# arguments count (-n 512 --iters 100 on 2 tasks, as in jacobi.sh).
ln -sf /bin/true "$work/jacobi"
srun_line="srun -J srunreal -t 5 -n 2 --comment=mine $work/jacobi -n 512 --iters 100"
answer=$(jq -n --arg a "$work/jacobi" --arg l "$srun_line" '{argv: [$a], submit_line: $l, uid: 0}' |
	curl -s -H 'Content-Type: application/json' -d @- "$daemon_url/v1/predict")
read -r rt lo up ver < <(jq -r '"\(.runtime_s) \(.lower_s) \(.upper_s) \(.model.version)"' <<<"$answer")
srun_note=$(printf 'mpipredict: %.0fs [%.0f,%.0f] jacobi@%s' "$rt" "$lo" "$up" "$ver")
submit_alloc srunreal $srun_line
expect "real daemon, srun job: predicted from its submit line" "mine; $srun_note" "$(comment "$jid")"
expect "real daemon, srun job: the same prediction as the batch script's" "mine; $want_note" "$(comment "$jid")"
l0=$(plugin_lines)
submit "$(script nolaunch.sh 'echo hello')" --comment=mine
expect "real daemon, script without a launcher line (400): unchanged, one log line" "mine 1" \
	"$(comment "$jid") $(($(plugin_lines) - l0))"
# Bodies: max_body (1 MiB, the daemon's default) caps the JSON-escaped
# request. 700 KiB of script is sent and predicted; 200 KiB of control
# characters (1.2 MiB escaped) is not sent.
big=$(script big.sh '#SBATCH -n 2' 'srun ./jacobi -n 512 --iters 100')
head -c 700000 /dev/zero | tr '\0' '#' >>"$big"
submit "$big" -t 60
expect "real daemon, 700 KiB script: predicted" "$want_note" "$(comment "$jid")"
esc=$(script esc.sh '#SBATCH -n 2' 'srun ./jacobi -n 512 --iters 100')
head -c 200000 /dev/zero | tr '\0' '\001' >>"$esc"
echo >>"$esc"
l0=$(plugin_lines)
submit "$esc" -t 60 --comment=mine
expect "real daemon, 200 KiB of control characters: accepted unchanged, not sent" "mine 1" \
	"$(comment "$jid") $(grep -c 'is over max_body (1048576); job submitted unchanged' "$work/log/slurmctld.log")"
conf real_time_min "url = $daemon_url" mode=time_min safety=1.2
use_conf real_time_min
submit "$jacobi" -t 60
expect "real daemon, time_min = ceil(upper * 1.2 / 60), limit kept" "$want_note $want_min 60" \
	"$(comment "$jid") $(minutes "$(field "$jid" TimeMin)") $(minutes "$(field "$jid" TimeLimit)")"
expect_from_daemon '(has("time_limit_s") | not) and (.argv[0] | endswith("/jacobi.sh"))'
conf real_fill "url = $daemon_url" mode=fill max_minutes=600 safety=1.2
use_conf real_fill
submit "$jacobi"
expect "real daemon, fill: time limit = ceil(upper * 1.2 / 60)" "$want_note $want_min" \
	"$(comment "$jid") $(minutes "$(field "$jid" TimeLimit)")"
stop_daemon
l0=$(plugin_lines)
submit "$jacobi" --comment=mine
expect "real daemon stopped: submitted unchanged" "mine UNLIMITED" "$(comment "$jid") $(field "$jid" TimeLimit)"
expect "real daemon stopped: one log line" 1 $(($(plugin_lines) - l0))

echo "== failover and failures"
conf failover "url = $dead http://127.0.0.1:$port_err $okurl" mode=fill max_minutes=600
use_conf failover
e0=$(requests err)
submit "$jacobi" -t 30
expect "failover: dead and 500 urls skipped, third answers" "$note" "$(comment "$jid")"
expect "failover: the 500 server was asked once" $((e0 + 1)) "$(requests err)"
# A hung first url does not use up the budget of a healthy second one.
conf failover_hang "url = http://127.0.0.1:$port_hang $okurl" mode=fill max_minutes=600 \
	timeout_ms=200 breaker_failures=0
use_conf failover_hang
scontrol setdebug debug
h0=$(requests hang)
submit "$jacobi" -t 30
expect "failover, hung first url: the second's prediction" "$note" "$(comment "$jid")"
expect "failover, hung first url: it was asked" $((h0 + 1)) "$(requests hang)"
expect_le "failover, hung first url: the plugin's own call in ms (timeout 200)" \
	$((200 + margin_ms)) "$(own_ms)"

conf down "url = $dead" mode=fill max_minutes=600 breaker_failures=0
use_conf down
l0=$(plugin_lines)
submit "$jacobi" --comment=mine
expect "daemon down: submitted unchanged" "mine UNLIMITED" "$(comment "$jid") $(field "$jid" TimeLimit)"
expect "daemon down: one log line" 1 $(($(plugin_lines) - l0))

conf err "url = http://127.0.0.1:$port_err" mode=fill max_minutes=600 breaker_failures=0
use_conf err
submit "$jacobi"
expect "HTTP 500: submitted unchanged" " UNLIMITED" "$(comment "$jid") $(field "$jid" TimeLimit)"

conf garbage "url = http://127.0.0.1:$port_garbage" mode=fill max_minutes=600 breaker_failures=0
use_conf garbage
l0=$(plugin_lines)
submit "$jacobi"
expect "garbage answer: submitted unchanged" " UNLIMITED" "$(comment "$jid") $(field "$jid" TimeLimit)"
expect "garbage answer: one log line" 1 $(($(plugin_lines) - l0))

# A server that accepts and never answers: the plugin's own call (it logs
# its time) ends within the budget (200 ms) plus a small margin; sbatch
# itself gets a loose bound (it also waits for slurmctld's other work).
# Without the timeout it would wait for ever.
conf hang "url = http://127.0.0.1:$port_hang" mode=fill max_minutes=600 timeout_ms=200 breaker_failures=0
use_conf hang
h0=$(requests hang)
submit "$jacobi" -t 20
expect "hung server: submitted unchanged" " 20" "$(comment "$jid") $(minutes "$(field "$jid" TimeLimit)")"
expect "hung server: it was called" $((h0 + 1)) "$(requests hang)"
expect_le "hung server: the plugin's own call in ms (timeout 200)" $((200 + margin_ms)) "$(own_ms)"
expect_le "hung server: sbatch wall time in ms (sanity)" 5000 "$ms"

echo "== circuit breaker"
conf breaker "url = http://127.0.0.1:$port_hang" mode=fill max_minutes=600 timeout_ms=200 \
	breaker_failures=2 breaker_seconds=600
use_conf breaker
h0=$(requests hang)
for i in 1 2 3 4 5; do submit "$jacobi"; done
expect "breaker: 5 jobs submitted" 5 "$(squeue -h -j "$((jid - 4)),$((jid - 3)),$((jid - 2)),$((jid - 1)),$jid" | wc -l)"
expect "breaker: only 2 calls, then open" $((h0 + 2)) "$(requests hang)"
expect "breaker: logged when it opened" 1 "$(grep -c 'failures in a row' "$work/log/slurmctld.log")"

echo "== bad config"
conf bad "url = $okurl" mode=bogus
use_conf bad
expect "bad config: logged, plugin disabled" 1 "$(grep -c "bad.conf:2: mode: expected" "$work/log/slurmctld.log")"
submit "$jacobi"
expect "bad config: slurmctld up, job submitted unchanged" " UNLIMITED" "$(comment "$jid") $(field "$jid" TimeLimit)"

echo "== history: actual run times from jobcomp/script, basis history"
history_checks

echo "== the centre's loop: rows to the daemon, retraining, champion and challenger"
loop_checks

echo "== extending limits: the daemon's policy through scontrol (issue 37)"
extend_checks

echo "== teardown"
started=("${cluster_pids[@]}" "${server_pids[@]}")
finish
left=0
for p in "${started[@]}"; do kill -0 "$p" 2>/dev/null && left=$((left + 1)); done
expect "teardown: every process started is gone (${#started[@]})" 0 "$left"
# A step daemon ends on its own shortly after its job; give it the time.
wait_for 30 sh -c "[ \$(pgrep -c -x slurmstepd) -le $steps0 ]"
expect "teardown: no slurmstepd left behind" "$steps0" "$(pgrep -c -x slurmstepd)"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
