#!/usr/bin/env bash
# contrib/mpipredictd.service: starts the daemon with the configuration
# file, under UMask=0027, with a 0750 state directory, and systemd finds
# nothing to complain about in it (systemd-analyze verify, with ExecStart
# pointed at the built daemon; a setting systemd cannot parse is only a
# warning there, so any output fails). The example configuration it names
# is checked by tests/server/t-config-file.sh.
set -u
unit=$MPP_SRC/contrib/mpipredictd.service
fail() {
	echo "$*"
	exit 1
}

for want in 'ExecStart=/usr/local/bin/mpipredictd --config /etc/mpipredict/mpipredictd.conf' \
	'UMask=0027' 'StateDirectory=mpipredict' 'StateDirectoryMode=0750' 'User=mpipredict'; do
	grep -qx -- "$want" "$unit" || fail "expected the line '$want' in $unit"
done
grep -q -- '--db' "$unit" && fail "expected the store named by the configuration file, not by --db in the unit"

if ! command -v systemd-analyze >/dev/null; then
	echo "the unit's lines are there (systemd-analyze not installed: not verified)"
	exit 0
fi
sed "s|/usr/local/bin/mpipredictd|$MPP_BUILD/bin/mpipredictd|" "$unit" >mpipredictd.service
timeout 60 systemd-analyze verify ./mpipredictd.service >out 2>&1
rc=$?
[ "$rc" = 0 ] && [ ! -s out ] || fail "expected systemd-analyze verify to accept the unit silently, got $rc: $(cat out)"
# The check itself: a mode systemd cannot parse is reported.
sed 's/^UMask=0027/UMask=0x27/' mpipredictd.service >broken.service
timeout 60 systemd-analyze verify ./broken.service >out 2>&1
grep -q "mode value" out || fail "expected systemd-analyze to report a bad UMask (is the check working?), got $(cat out)"
echo "unit verified by systemd-analyze; --config, UMask=0027, StateDirectoryMode=0750"
