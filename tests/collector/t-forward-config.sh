#!/usr/bin/env bash
# The client configuration: with neither MPIPREDICT_URL nor a conf file
# (or with MPIPREDICT_FORWARD=0) the runtime writes no outbox and starts
# nothing; with one it starts the forwarder (a stand-in here, through
# MPIPREDICT_COLLECT, that records its arguments). A wrong conf file is
# named with its line by `mpipredict-collect --forward` (exit 2).
. "$MPP_SRC/tests/collector/forward.sh"

cat >fake-collect <<SH
#!/bin/sh
echo "\$@" >>$PWD/spawned
SH
chmod +x fake-collect

run_e2e MPIPREDICT_COLLECT="$PWD/fake-collect"
[ "$RC" = 0 ] || fail "expected exit 0, got $RC"
[ -s mpipredict-runs/e2e.csv ] || fail "expected the local row written"
[ ! -e "$OUTBOX" ] || fail "expected no outbox without a configured daemon, got $(ls -a "$OUTBOX")"
[ ! -e spawned ] || fail "expected nothing started without a configured daemon, got: $(cat spawned)"
mpipredict-collect --forward 2>err
rc=$?
[ "$rc" = 2 ] && grep -q "no daemon configured" err ||
	fail "expected exit 2 and 'no daemon configured', got $rc: $(cat err)"

printf '[client]\nurl = http://127.0.0.1:1\n' >client.conf
run_e2e MPIPREDICT_COLLECT="$PWD/fake-collect" MPIPREDICT_FORWARD=0
[ ! -e "$OUTBOX" ] && [ ! -e spawned ] || fail "expected MPIPREDICT_FORWARD=0 to write and start nothing"
run_e2e MPIPREDICT_COLLECT="$PWD/fake-collect"
for _ in $(seq 100); do [ -s spawned ] && break; sleep 0.1; done
[ "$(cat spawned 2>/dev/null)" = "--forward --quiet mpipredict-runs/outbox" ] ||
	fail "expected the forwarder started on the outbox, got: $(cat spawned 2>/dev/null)"
[ -f "$OUTBOX/$(last_run_id).csv" ] || fail "expected the row in the outbox"
[ -z "$(find "$OUTBOX" -name '.*tmp*')" ] || fail "expected no temporary file left"

# bad_conf WANT LINE...: the conf file made of LINEs is refused naming WANT.
bad_conf() {
	local want=$1
	shift
	printf '%s\n' "$@" >client.conf
	mpipredict-collect --forward 2>err
	local rc=$?
	[ "$rc" = 2 ] || fail "expected exit 2 for $*, got $rc: $(cat err)"
	[ "$(wc -l <err)" = 1 ] && grep -qF "$want" err ||
		fail "expected one line with '$want', got: $(cat err)"
}
bad_conf "$PWD/client.conf:3: unknown key 'uri'" '[client]' 'url = http://a:1' 'uri = http://b:2'
bad_conf "$PWD/client.conf:2: key 'url' in unknown section [server]" '[server]' 'url = http://a:1'
bad_conf "$PWD/client.conf:1: key 'url' before [client]" 'url = http://a:1'
bad_conf "$PWD/client.conf:2: not a 'key = value' line" '[client]' 'url localhost'
bad_conf "$PWD/client.conf:3: timeout_ms 'soon'" '[client]' 'url = http://a:1' 'timeout_ms = soon'
bad_conf "$PWD/client.conf:3: 'url' set twice" '[client]' 'url = http://a:1' 'url = http://a:2'
bad_conf "url 'a:1' is not http://" '[client]' 'url = a:1'
bad_conf "token file $PWD/none: No such file" '[client]' 'url = http://a:1' "token_file = $PWD/none"
rm client.conf
MPIPREDICT_URL=ftp://x mpipredict-collect --forward 2>err
[ $? = 2 ] && grep -q "^mpipredict-collect: MPIPREDICT_URL: url 'ftp://x'" err ||
	fail "expected MPIPREDICT_URL named in its error, got: $(cat err)"
mpipredict-collect --forward --print 2>err
[ $? = 1 ] || fail "expected exit 1 for --forward --print"
echo "no daemon configured: nothing written, nothing started; conf errors name the line"
