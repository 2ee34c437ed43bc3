#!/usr/bin/env bash
# The time budget holds whatever DNS does. The url names a host
# (predictd.test), and the resolver is a real one pointed at a DNS server
# on loopback that holds every answer back for 3 s (slow-dns.py), inside a
# private mount and network namespace (unshare -m -n, /etc/resolv.conf
# bind-mounted over), so nothing outside the test sees it. The plugin
# resolves the name when it loads and pins the addresses: job_submit then
# takes timeout_ms at most, also while the refresh of the addresses (every
# resolve_seconds, in the plugin's own thread) waits on the slow server.
# Before pinning, each call took the resolver's 3 s inside slurmctld's
# locks. A name that does not resolve at load fails open at once.
# Needs root (namespaces, port 53 on the private loopback), unshare, ip and
# python3; skipped (77) without them.
set -u
if [ -z "${MPP_IN_NS:-}" ]; then
	[ "$(id -u)" = 0 ] || { echo "skip: needs root for a private network namespace"; exit 77; }
	for c in unshare ip python3; do
		command -v $c >/dev/null || { echo "skip: no $c"; exit 77; }
	done
	unshare -m -n true 2>/dev/null || { echo "skip: unshare -m -n is not allowed here"; exit 77; }
	MPP_IN_NS=1 exec unshare -m -n "$BASH" "$0" "$@"
fi
ip link set lo up || { echo "cannot bring up loopback in the namespace"; exit 1; }
echo 'nameserver 127.0.0.1' >resolv.conf
echo 'options timeout:10 attempts:1' >>resolv.conf
mount --bind "$PWD/resolv.conf" /etc/resolv.conf || { echo "cannot bind-mount resolv.conf"; exit 1; }
. "$MPP_SRC/tests/contrib/lib.sh"
start_fake ok okd
port=$(cat okd.port)
python3 "$MPP_SRC/tests/contrib/slow-dns.py" --port 53 --delay 3 --log dns.log --ready dns.ready 2>dns.err &
fake_pids+=($!)
for i in $(seq 100); do [ -e dns.ready ] && break; sleep 0.05; done
[ -e dns.ready ] || { echo "slow-dns.py did not start:"; cat dns.err; exit 1; }
: >>dns.log
note='mpipredict: 300s [280,330] jacobi@7'
script 'srun ./jacobi -n 512'

# Resolved at load (3 s, outside any job), then pinned: three jobs, each
# within the budget, each predicted by the daemon the name points to.
conf "url = http://predictd.test:$port" timeout_ms=1000 resolve_seconds=1 breaker_failures=0
run --jobs 3 --interval-ms 700
expect "the resolver asked the slow server for the name" yes \
	"$(grep -q '^predictd.test 1$' dns.log && echo yes || echo no)"
expect "jobs predicted through the pinned address" "3" \
	"$(grep -cF "comment=$note" <<<"$out")"
expect_le "slow DNS (3 s), timeout_ms 1000: longest job_submit in ms" $((1000 + margin_ms)) "$(took)"
# The jobs spanned 1.4 s with resolve_seconds 1: the refresh thread was
# waiting on the slow server meanwhile, and no call waited with it.
expect "the refresh asked the server again" yes \
	"$(test "$(grep -c '^predictd.test 1$' dns.log)" -ge 2 && echo yes || echo no)"

# No DNS server at all when the plugin loads: logged at init, and each job
# fails open at once.
kill "${fake_pids[-1]}"; wait "${fake_pids[-1]}" 2>/dev/null
conf "url = http://predictd.test:$port" timeout_ms=300 breaker_failures=0
run --comment mine
expect "no DNS answer at load: job unchanged" "comment=mine time_limit=unset time_min=unset" "$out"
expect "no DNS answer at load: logged" 1 "$(log_lines 'predictd.test.*not resolved.*job submitted unchanged')"
expect_le "no DNS answer at load: job_submit in ms" $((300 + margin_ms)) "$(took)"
exit $((fails > 0))
