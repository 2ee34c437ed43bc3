#!/usr/bin/env bash
# The platform generated from a profile with two packages per node loads
# in SimGrid (mpipredict-simulate check-platform uses SimGrid's own loader
# and routing): four hosts (n<node>p<package>) of two cores, a loopback
# link per package, a socket link per node, a port and a NIC per node, and
# routes through them; the SMPI options carry the profile's overheads; the
# flat equivalent the replay runs on (for SimGrid's link tracing) has the
# same links and the same route between every pair of hosts. A
# profile without the level a placement needs, and a malformed one, are
# refused naming the field.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json 2 4 socket
mpipredict-simulate platform --profile profile.json --ranks 8 --nodes 2 -o plat ||
	{ echo "platform failed"; exit 1; }
mpipredict-simulate check-platform plat/platform.xml >check.txt 2>err.txt ||
	{ echo "SimGrid did not load it: $(cat err.txt)"; exit 1; }
fail=0
expect() { grep -q "$1" check.txt || { echo "expected '$1' in:"; cat check.txt; fail=1; }; }
expect "^hosts 4$"
for h in n0p0 n0p1 n1p0 n1p1; do expect "^host $h speed 1e+09 cores 2$"; done
for l in n0p0_cmp n1p1_cmp n0_socket n1_socket n0_port n0_nic n1_port n1_nic; do
	expect "^link $l "
done
expect "^route n0p1 n0p1 n0p1_cmp$"
expect "^route n0p0 n0p1 n0_socket$"
expect "^route n0p1 n1p1 n0_socket n0_port n0_nic n1_nic n1_port n1_socket$"
# latency of the cmp link is L (4e-7); the net port carries half of
# L + 2(o - o_cmp) + 2 h0 = 2.5e-5 + 2*3.7e-6 = 3.24e-5
expect "^link n0p0_cmp bandwidth .* latency 4e-07 shared 0$"
expect "^link n0_port bandwidth .* latency 1.62e-05 shared 0$"
[ "$(sed -n 4p plat/hostfile)" = n0p1 ] && [ "$(sed -n 5p plat/hostfile)" = n1p0 ] ||
	{ echo "hostfile: expected ranks 0-3 on n0 (two per package), got $(tr '\n' ' ' <plat/hostfile)"; fail=1; }
grep -qx "smpi/os:0:3e-07:5e-11" plat/smpi.cfg ||
	{ echo "smpi.cfg: expected smpi/os:0:3e-07:5e-11, got $(cat plat/smpi.cfg)"; fail=1; }
mpipredict-simulate check-platform plat/platform-flat.xml >flat.txt 2>err.txt ||
	{ echo "SimGrid did not load the flat platform: $(cat err.txt)"; exit 1; }
diff <(grep -v '^link __loopback__' check.txt | grep -v '^links' | sort) \
	<(grep -v '^link __loopback__' flat.txt | grep -v '^links' | sort) >d.txt ||
	{ echo "expected the same hosts, links and routes in both platforms:"; cat d.txt; fail=1; }
refused() { # profile ranks field: exit 2 and one line naming field
	mpipredict-simulate platform --profile "$1" --ranks "$2" -o "p-$1" 2>err.txt
	local rc=$?
	[ $rc = 2 ] && grep -q "$3" err.txt ||
		{ echo "expected exit 2 naming $3, got $rc: $(cat err.txt)"; fail=1; }
}
# socket level missing but needed: refused
write_profile nosock.json 2 4
refused nosock.json 4 "levels.socket is null"
echo '{"packages_per_node": 1, "cores_per_node": 2, "levels": {"cmp": {"o": "x"}}}' >bad.json
refused bad.json 2 "bad.json: levels.cmp.o"
# a calibrated profile as this machine gives it: G fitted below 0 and null
# h/C (not measured): the per-byte time Os + Or + G goes to the link, so
# its bandwidth is 1 / (1e-10 + 2e-10 - 1e-10) = 5e9 B/s and smpi/os has
# no per-byte part; a per-byte total <= 0 is refused naming G
cat >neg.json <<'JSON'
{"packages_per_node": 1, "cores_per_node": 2, "levels": {"cmp": {"o": 1e-7,
 "Os": 1e-10, "Or": 2e-10, "g": 1e-7, "L": 4e-7, "G": -1e-10,
 "h": [null, null], "C": [null, null], "residual": {}, "samples": 8}}}
JSON
mpipredict-simulate platform --profile neg.json --ranks 2 -o p4 2>err.txt ||
	{ echo "expected a negative fitted G to be accepted: $(cat err.txt)"; fail=1; }
grep -q 'id="n0p0_cmp" bandwidth="5e+09Bps"' p4/platform.xml ||
	{ echo "expected the cmp link at 5e+09Bps, got: $(grep n0p0_cmp p4/platform.xml)"; fail=1; }
grep -qx "smpi/os:0:1e-07:0" p4/smpi.cfg ||
	{ echo "expected smpi/os:0:1e-07:0, got $(cat p4/smpi.cfg)"; fail=1; }
sed 's/"G": -1e-10/"G": -3e-10/' neg.json >neg2.json
refused neg2.json 2 "neg2.json: levels.cmp.G"
# L fitted below 0 (cmp here: -31 ns, standard error 76 ns): within two
# standard errors of 0 the link's latency is 0; further below, refused
# naming L
jq '.levels.cmp.L = -3e-8 | .levels.cmp.residual.L = 7.6e-8' neg.json >negl.json
mpipredict-simulate platform --profile negl.json --ranks 2 -o p6 2>err.txt ||
	{ echo "expected L = -30 ns (standard error 76 ns) to be accepted: $(cat err.txt)"; fail=1; }
grep -q 'id="n0p0_cmp" [^>]*latency="0s"' p6/platform.xml ||
	{ echo "expected the cmp link's latency 0s, got: $(grep n0p0_cmp p6/platform.xml)"; fail=1; }
jq '.levels.cmp.L = -2e-7 | .levels.cmp.residual.L = 7.6e-8' neg.json >negl2.json
refused negl2.json 2 "negl2.json: levels.cmp.L"
exit $fail
