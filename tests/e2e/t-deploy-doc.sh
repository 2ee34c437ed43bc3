#!/usr/bin/env bash
# t-deploy-doc.sh: every `sh` block of docs/deploy.md, in order, as a centre
# would run them, with the install folders in this test's directory. The
# commands that need a booted system or the centre's own accounts
# (useradd, groupadd, usermod, chown, systemctl) are recorded instead of
# run; `systemctl enable --now mpipredictd` starts the daemon as the unit
# does (its ExecStart, on a free port), so that the later steps meet a
# running daemon. Then: the files' modes, the daemon's health and start
# line, the backup.
set -u
. "$MPP_SRC/tests/e2e/lib.sh"
e2e_need mpipredictd mpipredict-model
fail=0
root=$PWD/root
export PREFIX=$root/usr ETC=$root/etc/mpipredict UNITDIR=$root/etc/systemd/system \
	STATE=$root/var/lib/mpipredict SPOOL=$root/var/spool/mpipredict
mkdir -p "$UNITDIR"
umask 022 # root's usual: the steps must set the modes themselves
here=$PWD

awk '/^```sh$/ { on = 1; next } /^```/ { on = 0 } on' "$MPP_SRC/docs/deploy.md" >steps.sh
[ -s steps.sh ] || { echo "no sh block in docs/deploy.md"; exit 1; }

# The stand-ins, then the steps, in one shell as a person would type them.
record() { echo "$*" >>"$here/calls.log"; }
useradd() { record useradd "$@"; }
groupadd() { record groupadd "$@"; }
usermod() { record usermod "$@"; }
chown() { record chown "$@"; }
systemctl() {
	record systemctl "$@"
	[ "$*" = "enable --now mpipredictd" ] || return 0
	"$PREFIX/bin/mpipredictd" --config "$ETC/mpipredictd.conf" \
		--listen 127.0.0.1:0 --port-file "$here/port" 2>"$here/daemon.log" &
	pid=$!
	for _ in $(seq 200); do [ -s "$here/port" ] && return 0; sleep 0.05; done
	echo "the daemon did not start"
	return 1
}
make() {
	command make -s -C "$MPP_SRC" BUILD="$MPP_BUILD" SANITIZE="${MPP_SANITIZE:-0}" "$@" >/dev/null
}
pid=
(
	set -e
	# shellcheck disable=SC1091
	. "$here/steps.sh"
	echo "$pid" >"$here/pid"
) >run.out 2>&1 || {
	echo "docs/deploy.md's commands failed:"
	tail -n 15 run.out
	tail -n 5 daemon.log 2>/dev/null
	[ -s pid ] && kill "$(cat pid)"
	exit 1
}
pid=$(cat pid)

for f in bin/mpipredictd bin/mpipredict-collect bin/mpipredict-jobcomp bin/mpipredict-model; do
	[ -x "$PREFIX/$f" ] || bad "make install: $PREFIX/$f missing"
done
mode() { stat -c %a "$1"; }
[ "$(mode "$ETC/token")" = 640 ] || bad "token: mode $(mode "$ETC/token"), expected 640"
[ "$(mode "$STATE")" = 750 ] || bad "state folder: mode $(mode "$STATE"), expected 750"
[ "$(mode "$ETC/mpipredictd.conf")" = 640 ] || bad "mpipredictd.conf: mode $(mode "$ETC/mpipredictd.conf"), expected 640"
# Users' jobs read the client configuration: the folder and the file.
[ "$(mode "$ETC")" = 755 ] && [ "$(mode "$ETC/client.conf")" = 644 ] ||
	bad "client.conf: $ETC $(mode "$ETC"), the file $(mode "$ETC/client.conf"); users cannot read it"
grep -q '^useradd --system --gid mpipredict ' calls.log || bad "useradd not among the steps"
grep -q "^url = http://" "$ETC/client.conf" || bad "client.conf has no url"
grep -q -- '--config /etc/mpipredict/mpipredictd.conf' "$UNITDIR/mpipredictd.service" ||
	bad "the unit does not read the configuration file"
# The unit must start the daemon make install put in PREFIX, and the
# plugin must be where the doc's PluginDir looks ($PREFIX/lib/slurm).
prog=$(sed -n 's/^ExecStart=\([^ ]*\).*/\1/p' "$UNITDIR/mpipredictd.service")
[ "$prog" = "$PREFIX/bin/mpipredictd" ] ||
	bad "the installed unit starts '$prog', not $PREFIX/bin/mpipredictd: fix step 3 of docs/deploy.md"
[ -f "$PREFIX/lib/slurm/job_submit_mpipredict.so" ] ||
	bad "make install: $PREFIX/lib/slurm/job_submit_mpipredict.so missing (slurm.conf's PluginDir looks there)"
url=http://127.0.0.1:$(cat port)
got=$(curl -s "$url/healthz" | jq -r .status)
[ "$got" = no_models ] || bad "healthz: expected no_models on a new store, got '$got'"
for f in "$STATE/models.db" "$STATE/models.db.bak"; do
	[ -f "$f" ] || { bad "$f: missing"; continue; }
	m=$(mode "$f")
	[ $((8#$m & 8#007)) -eq 0 ] || bad "$f: mode $m, readable by others"
done
grep -q "mpipredictd .*: store $STATE/models.db" daemon.log || bad "no start line naming the store"
kill -TERM "$pid"
for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$pid" 2>/dev/null && bad "the daemon did not stop on SIGTERM"
exit "$fail"
