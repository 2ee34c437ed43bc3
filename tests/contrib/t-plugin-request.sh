#!/usr/bin/env bash
# What the plugin sends, and whose word counts for the app: the batch script
# as written, argv whole, the submit line and the uid, never an app or args
# of its own (the daemon reads the script, or argv for srun and salloc
# jobs); the app of the daemon's answer is what the allow-list and the
# comment use. "#MPIPREDICT off" on a line of its own is the one thing the
# plugin reads in a script. No user-database lookup while jobs are
# submitted. fake-predictd finds the app with the daemon's own script reader.
set -u
. "$MPP_SRC/tests/contrib/lib.sh"
start_fake ok okd --apps jacobi,heat,true
conf "url = $url_okd" mode=annotate

# last KEY...: the last request's fields, as compact JSON ("null" if absent).
last() {
	local k
	for k; do tail -n 1 okd.requests | jq -c ".$k"; done | paste -sd' '
}

# A batch job: everything sent as it is, nothing made up.
script '#SBATCH -n 2' 'srun -n 2 ./jacobi -n 512 --iters 100 > out.txt 2>&1'
n0=$(requests okd)
run --arg first --arg 'two words' --submit-line 'sbatch job.sh first "two words"'
expect "batch job: asked once" $((n0 + 1)) "$(requests okd)"
expect "batch job: the script byte for byte" "$(jq -Rsc . job.sh)" "$(last script)"
expect "batch job: argv whole, submit line, uid" \
	"[\"job.sh\",\"first\",\"two words\"] \"sbatch job.sh first \\\"two words\\\"\" $(id -u)" \
	"$(last argv submit_line uid)"
expect "batch job: no app, no args, no user name of its own" "null null null" "$(last app args user)"
expect "batch job: the daemon's app in the comment" "comment=mpipredict: 300s [280,330] jacobi@7" "${out%% time_limit*}"

# Scripts the old in-plugin parser got wrong: a word "srun" in an echo, a
# here-document, a pipe. The daemon's reader decides; the plugin sends no
# app that could override it.
script 'echo srun ./not-this 1' 'srun ./jacobi -n 512'
run
expect "echo srun ...: the daemon's choice" "comment=mpipredict: 300s [280,330] jacobi@7 null" \
	"${out%% time_limit*} $(last app)"
script 'cat >input <<EOF' 'srun ./heat 64' 'EOF' 'srun ./jacobi -n 512 | tee log'
run
expect "here-document skipped by the daemon's reader" "comment=mpipredict: 300s [280,330] jacobi@7" "${out%% time_limit*}"
script '#MPIPREDICT app=heat' 'mpirun --bind-to core ./wrapper.sh 1024'
run
expect "#MPIPREDICT app=: the daemon's answer names heat" "comment=mpipredict: 300s [280,330] heat@7" "${out%% time_limit*}"

# Opt-outs by a line of their own, anywhere; "offline" is not "off".
for s in '#MPIPREDICT off' '  #MPIPREDICT app=jacobi	off'; do
	script 'srun ./jacobi -n 512' "$s"
	n0=$(requests okd)
	run
	expect "'$s': not asked, unchanged" "$n0 comment=" "$(requests okd) ${out%% time_limit*}"
done
script '#MPIPREDICT offline' 'srun ./jacobi -n 512'
n0=$(requests okd)
run
expect "#MPIPREDICT offline is no opt-out" $((n0 + 1)) "$(requests okd)"

# No launcher line: asked all the same (the daemon decides), refused, one line.
script 'echo hello'
n0=$(requests okd)
run --comment mine
expect "no launcher line: asked, unchanged" "$((n0 + 1)) comment=mine" "$(requests okd) ${out%% time_limit*}"
expect "no launcher line: one log line with the daemon's reason" 1 \
	"$(log_lines "job 'harness' of uid $(id -u): .*request refused (HTTP 400: app: missing).*job submitted unchanged")"

# srun/salloc jobs (no script): argv whole, the daemon takes the app from it.
n0=$(requests okd)
out=$(MPIPREDICT_CONF=$PWD/plugin.conf "$harness" "$plugin" --argv0 /usr/bin/true \
	--arg -n --arg 512 2>run.log)
expect "srun job: argv whole, no script, no app, no args" \
	"$((n0 + 1)) [\"/usr/bin/true\",\"-n\",\"512\"] null null null" \
	"$(requests okd) $(last argv script app args)"
expect "srun job: the daemon's app (basename of argv[0])" "comment=mpipredict: 300s [280,330] true@7" \
	"${out%% time_limit*}"

# The allow-list applies to the app of the answer.
conf "url = $url_okd" mode=annotate "apps = jacobi"
script 'srun ./heat 64'
n0=$(requests okd)
run --comment mine
expect "app heat not in apps: asked, unchanged" "$((n0 + 1)) comment=mine" \
	"$(requests okd) ${out%% time_limit*}"
script 'srun ./jacobi 64'
run
expect "app jacobi in apps: applied" "comment=mpipredict: 300s [280,330] jacobi@7" "${out%% time_limit*}"

# Bytes that are not UTF-8 (a Latin-1 comment, an argument) become '?':
# the script is still sent and argv keeps its length.
conf "url = $url_okd" mode=annotate
printf '#!/bin/sh\n# M\xfcller\nsrun ./jacobi -n 512\n' >job.sh
run --arg "$(printf 'caf\xe9')" --arg last
expect "Latin-1 script and argv: sent, predicted" \
	"\"#!/bin/sh\\n# M?ller\\nsrun ./jacobi -n 512\\n\" [\"job.sh\",\"caf?\",\"last\"] comment=mpipredict: 300s [280,330] jacobi@7" \
	"$(last script argv) ${out%% time_limit*}"

# The example job scripts in contrib/examples/.
ex=$MPP_SRC/contrib/examples
for e in jacobi:jacobi named-app:heat opt-out:none; do
	cp "$ex/${e%%:*}.sbatch" job.sh
	n0=$(requests okd)
	run
	got=$(sed -n 's/^comment=mpipredict: 300s \[280,330\] \([a-z]*\)@7 .*/\1/p' <<<"$out")
	[ "$(requests okd)" = "$n0" ] && got=none
	expect "example ${e%%:*}.sbatch" "${e#*:}" "$got"
done

# No user-database lookup per job; opt_out_users are looked up in init().
conf "url = $url_okd" mode=annotate "opt_out_users = nobody"
script 'srun ./jacobi -n 512'
run --jobs 3
expect "opt_out_users looked up once in init, never per job" "init 1, submit 0" \
	"$(sed -n 's/^plugin-harness: user-database lookups: //p' run.log)"
exit $((fails > 0))
