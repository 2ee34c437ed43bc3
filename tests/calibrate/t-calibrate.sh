#!/usr/bin/env bash
# mpipredict-calibrate end to end under OpenMPI, on synthetic topologies
# (hwloc's HWLOC_SYNTHETIC with the test hook MPIPREDICT_TEST_PU=rank: world
# rank r on PU r) and fake nodes (MPIPREDICT_TEST_NODE_KEY):
#   - one package, 2 ranks: cmp measured (every parameter a number, samples
#     = reps x 17 timed operations, no contention step: h and C all null),
#     socket and net null and listed in "missing" with why;
#   - the memory curve (level mem, calibrate/memory.h) of that node: at
#     least 10 footprints from 1 MiB up, increasing, curves for 1 and 2
#     streaming ranks, every time per byte positive (how fast the memory
#     is at each footprint is this machine's, not the feature's);
#   - --show prints the stored profile, the same document;
#   - two packages of two PUs, 4 ranks: cmp (0,1) and socket (0,2) measured,
#     one contention step (ranks 2 and 3, j = 2) on cmp: h[1] a number,
#     h[0] null; net missing;
#   - fake nodes (parity) over TCP, --levels net: net measured, cmp kept
#     from the stored profile unchanged, and the memory curve too;
#   - bad arguments exit 1, --show on an empty store exits 2, one line each.
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
failed=0
fail() { echo "$*"; failed=1; }
reps=5
# Under SANITIZE=1 the MPI library's own allocations show up as leaks from
# "<unknown module>" (as in tests/collector/lib.sh): leak checking is off
# for the MPI runs, on for --show and the argument checks.
asan_mpi=${ASAN_OPTIONS:-}
[ "${MPP_SANITIZE:-0}" = 1 ] && asan_mpi="$asan_mpi:detect_leaks=0"
cal() { ASAN_OPTIONS=$asan_mpi mpirun --bind-to none "$@"; }

q() { jq -r "$1" "$2"; }

HWLOC_SYNTHETIC="pack:1 core:2 pu:1" MPIPREDICT_TEST_PU=rank \
	cal -np 2 mpipredict-calibrate --db m.db --machine box --reps $reps >one.json 2>err.txt ||
	{ fail "2 ranks: exit $?: $(cat err.txt)"; exit 1; }
[ "$(q '.levels.cmp | [.o, .Os, .Or, .g, .L, .G] | map(type) | unique | join(",")' one.json)" = number ] ||
	fail "expected o, Os, Or, g, L, G of cmp to be numbers, got $(q '.levels.cmp' one.json)"
[ "$(q '.levels.cmp.residual | [.o, .Os, .Or, .g, .L, .G] | map(type) | unique | join(",")' one.json)" = number ] ||
	fail "expected a numeric residual for each cmp parameter, got $(q '.levels.cmp.residual' one.json)"
[ "$(q '.levels.cmp.samples' one.json)" = $((reps * 17)) ] ||
	fail "expected cmp samples $((reps * 17)), got $(q '.levels.cmp.samples' one.json)"
[ "$(q '.levels.cmp.h | map(type) | join(",")' one.json)" = null,null ] ||
	fail "expected h = [null, null] (2 cores, no contender), got $(q '.levels.cmp.h' one.json)"
[ "$(q '.levels.socket' one.json)" = null ] && [ "$(q '.missing.socket' one.json)" = "one package per node on this machine" ] ||
	fail "expected socket null, missing 'one package per node on this machine'; got $(q '.levels.socket, .missing.socket' one.json)"
q '.missing.net' one.json | grep -q '^one node' ||
	fail "expected net missing because of one node, got $(q '.missing.net' one.json)"
[ "$(q '[.machine, .nodes_seen, .packages_per_node, .cores_per_node] | join(",")' one.json)" = box,1,1,2 ] ||
	fail "expected machine box, 1 node, 1 package, 2 cores; got $(q '[.machine, .nodes_seen, .packages_per_node, .cores_per_node]' one.json)"
q '.created_at' one.json | grep -Eq '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]{8}Z$' ||
	fail "expected an ISO-8601 created_at, got $(q '.created_at' one.json)"

jq -e '.memory | (.node_kib | length >= 10 and .[0] == 1024 and (. as $x | [range(1; length)] | all($x[.] > $x[. - 1])))
	and ([.curves[].ranks] == [1, 2])
	and ([.curves[].ns_per_byte[]] | all(. > 0))' one.json >/dev/null ||
	fail "expected a memory curve from 1 MiB up, increasing footprints, curves for 1 and 2 ranks, positive times; got $(jq -c .memory one.json)"

mpipredict-calibrate --show --db m.db --machine box >show.json || fail "--show exited with $?"
[ "$(jq -S . show.json)" = "$(jq -S . one.json)" ] || fail "expected --show to print the stored profile; got $(cat show.json)"

HWLOC_SYNTHETIC="pack:2 core:2 pu:1" MPIPREDICT_TEST_PU=rank \
	cal -np 4 mpipredict-calibrate --db m.db --machine two --levels cmp,socket,net --reps $reps >two.json 2>err.txt ||
	fail "4 ranks: exit $?: $(cat err.txt)"
[ "$(q '[.levels.cmp, .levels.socket] | map(.o | type) | join(",")' two.json)" = number,number ] ||
	fail "expected cmp and socket measured on two packages, got $(q '.levels' two.json)"
[ "$(q '.levels.cmp.h | map(type) | join(",")' two.json)" = null,number,null,null ] ||
	fail "expected cmp h = [null, number, null, null] (contenders 2 and 3), got $(q '.levels.cmp.h' two.json)"
[ "$(q '.levels.cmp.samples' two.json)" = $((reps * 21)) ] ||
	fail "expected cmp samples $((reps * 21)), got $(q '.levels.cmp.samples' two.json)"
[ "$(q '.levels.net' two.json)" = null ] || fail "expected net null with one node"

HWLOC_SYNTHETIC="pack:1 core:2 pu:1" MPIPREDICT_TEST_PU=rank MPIPREDICT_TEST_NODE_KEY=parity \
	cal -np 2 --mca btl tcp,self mpipredict-calibrate --db m.db --machine box --levels net --reps $reps >net.json 2>err.txt ||
	fail "fake nodes over TCP: exit $?: $(cat err.txt)"
[ "$(q '.levels.net.L | type' net.json)" = number ] || fail "expected net measured on fake nodes, got $(q '.levels.net' net.json)"
[ "$(q '.nodes_seen' net.json)" = 2 ] || fail "expected nodes_seen 2, got $(q '.nodes_seen' net.json)"
[ "$(jq -S .levels.cmp net.json)" = "$(jq -S .levels.cmp one.json)" ] ||
	fail "expected --levels net to keep the stored cmp level; got $(jq -c .levels.cmp net.json)"
[ "$(jq -S .memory net.json)" = "$(jq -S .memory one.json)" ] ||
	fail "expected --levels net to keep the stored memory curve"
[ "$(q '.memory' two.json)" = null ] || fail "expected no memory curve without level mem and no stored one"
[ "$(q '.missing.socket' net.json)" = "one package per node on this machine" ] ||
	fail "expected --levels net to keep why socket is missing, got $(q '.missing.socket' net.json)"
[ "$(sqlite3 m.db 'SELECT count(*) FROM machine_profiles')" = 3 ] ||
	fail "expected 3 stored profiles, got $(sqlite3 m.db 'SELECT count(*) FROM machine_profiles')"

mpipredict-calibrate --levels cmp,disk 2>err.txt
rc=$?
[ $rc = 1 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q -- '--levels cmp,disk' err.txt ||
	fail "expected exit 1 and one line naming --levels, got $rc: $(cat err.txt)"
sqlite3 empty.db <"$MPP_SRC/schema/schema.sql" # the current schema, no profile stored
mpipredict-calibrate --show --db empty.db 2>err.txt
rc=$?
[ $rc = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q 'no machine profile' err.txt ||
	fail "expected exit 2 and 'no machine profile' on an empty store, got $rc: $(cat err.txt)"
exit $failed
