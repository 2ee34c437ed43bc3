#!/usr/bin/env bash
# mpipredict.conf: read from $MPIPREDICT_CONF, else next to slurm.conf; a
# missing or bad file never fails init() (slurmctld must start): the plugin
# logs one error naming the file, line and setting, and changes nothing.
# opt_out_users keeps the daemon from being asked; a name the user database
# does not know is logged and ignored, not a reason to disable the plugin.
# The allow-list is applied to the daemon's answer.
set -u
. "$MPP_SRC/tests/contrib/lib.sh"
start_fake ok okd
script 'srun ./jacobi -n 512'
note='mpipredict: 300s [280,330] jacobi@7'

# bad SETTINGS... / EXPECTED-LOG: a config that must disable the plugin.
bad() {
	local want=$1
	shift
	conf "$@"
	run --time 30
	expect "bad config ($*): job unchanged" "comment= time_limit=30 time_min=unset" "$out"
	expect "bad config ($*): logged '$want'" 1 "$(log_lines "$want.*disabled")"
}
bad "plugin.conf:2: mode: expected annotate, time_min or fill, got 'fast'" "url = $url_okd" mode=fast
bad "plugin.conf:2: unknown setting 'timeout'" "url = $url_okd" timeout=5
bad "plugin.conf:1: url 'ftp://x' is not http" "url = ftp://x"
bad "plugin.conf:2: timeout_ms: expected an integer" "url = $url_okd" "timeout_ms = 20x"
bad "plugin.conf:2: safety: expected a factor" "url = $url_okd" "safety = 0.5"
bad "plugin.conf:1: expected key = value" "url $url_okd"
bad "plugin.conf: no url given" "mode = fill"
bad "plugin.conf: mode fill needs max_minutes" "url = $url_okd" mode=fill
bad "plugin.conf:2: partition_max_minutes: expected NAME:MINUTES, got 'short'" "url = $url_okd" "partition_max_minutes = short"
bad "max_minutes is below min_minutes" "url = $url_okd" min_minutes=10 max_minutes=5
bad "plugin.conf:2: max_body: expected an integer in \[4096," "url = $url_okd" max_body=100
bad "plugin.conf:2: hedge_ms: expected an integer in \[1," "url = $url_okd" hedge_ms=0

# Missing file: $MPIPREDICT_CONF names it.
out=$(MPIPREDICT_CONF=$PWD/nope.conf "$harness" "$plugin" --script job.sh 2>run.log)
expect "missing file: logged" 1 "$(log_lines "nope.conf: No such file.*disabled")"

# No $MPIPREDICT_CONF: mpipredict.conf next to slurm.conf.
mkdir etc
printf 'url = %s\n# a comment\n\nmode = fill\nmax_minutes = 600\n' "$url_okd" >etc/mpipredict.conf
out=$(SLURM_CONF=$PWD/etc/slurm.conf "$harness" "$plugin" --script job.sh 2>run.log)
expect "next to slurm.conf (safety 1: ceil(330/60) = 6)" "comment=$note time_limit=6 time_min=unset" "$out"

# Allow-list, two lines and a comma: applied to the answer's app.
n0=$(requests okd)
conf "url = $url_okd" "apps = heat, lulesh" "apps = other"
run
expect "app not allowed: unchanged (asked: the daemon names the app)" "comment= $((n0 + 1))" \
	"${out%% *} $(requests okd)"
conf "url = $url_okd" "apps = heat, jacobi"
run
expect "app allowed" "comment=$note" "${out%% time_limit*}"

# A user who opted out (this test's own user), named after one the user
# database does not know: that one is logged and skipped, the rest holds.
n0=$(requests okd)
conf "url = $url_okd" "opt_out_users = no-such-user-xyz, $(id -un)"
run
expect "user opted out: unchanged, not asked" "comment= $n0" "${out%% *} $(requests okd)"
expect "unknown opt_out_users name: logged, ignored, plugin enabled" "1 0 1" \
	"$(log_lines "plugin.conf:2: opt_out_users: no such user 'no-such-user-xyz'; ignored") $(log_lines disabled) $(log_lines '1 url(s)')"
# The shipped example loads without an error.
out=$(MPIPREDICT_CONF=$MPP_SRC/contrib/slurm/mpipredict.conf "$harness" "$plugin" --script job.sh 2>run.log)
expect "contrib/slurm/mpipredict.conf loads" "1 0" \
	"$(log_lines '1 url(s), timeout 200 ms, hedge 50 ms, mode annotate') $(log_lines disabled)"
exit $((fails > 0))
