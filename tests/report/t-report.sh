#!/usr/bin/env bash
# mpipredict-report on real runs of the collector's test program
# (tests/collector/progs/traffic.c) under OpenMPI, with a synthetic
# two-package topology and fake nodes (see t-package-levels.sh for the
# counts): per rank the `levels` pattern has 2 socket messages of 50 B and
# 2+1+(r>=2)+2 net messages (200 + 10 + (r>=2) 1000 + 4000 B), so the
# profile table must say socket 26.67 % of messages, 2.08 % of bytes. Then a
# run where the last rank sleeps 1 s before a tagged barrier: load
# imbalance >= 1.6 and the barrier on top of the sites by time. The
# per-rank times (the collector's runs/ranks/traffic.csv) must show the
# sleeping rank outside MPI and the other waiting in it. The
# modelled MPI time must be the LogGPS formula (regress/loggps.h) worked out
# here in awk from the reported traffic and a profile stored by hand (with
# different socket and net parameters). Bad input: exit 2 with one line.
set -u
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
failed=0
fail() { echo "$*"; failed=1; }
inc=$MPP_BUILD/include/mpipredict lib=$MPP_BUILD/lib
# shellcheck disable=SC2086
mpicc ${MPP_TEST_CFLAGS:-} -O1 -g -Wno-stringop-overflow -I"$inc" -o traffic "$MPP_SRC/tests/collector/progs/traffic.c" \
	-L"$lib" -Wl,-rpath,"$lib" -lmpipredict || { echo "compiling traffic.c failed"; exit 1; }
if [ "${MPP_SANITIZE:-0}" = 1 ]; then
	export ASAN_OPTIONS="${ASAN_OPTIONS:-}:detect_leaks=0"
fi

HWLOC_SYNTHETIC="pack:2 core:2 pu:1" MPIPREDICT_TEST_PU=rank MPIPREDICT_TEST_NODE_KEY=parity \
	MPIPREDICT_RUNS=runs/ mpirun -np 4 ./traffic levels || fail "traffic levels exited with $?"
id1=$(cut -d, -f1 runs/traffic.csv | sed -n 2p)
o=1e-6 Os=1e-9 Or=2e-9 Ls=2e-6 Gs=1e-10 Ln=2e-5 Gn=1e-9
level() { # L G
	echo "{\"o\": $o, \"Os\": $Os, \"Or\": $Or, \"g\": 1e-7, \"L\": $1, \"G\": $2, \"h\": [0, 0, 0, 0], \"C\": [0, 0, 0, 0],
	 \"residual\": {\"o\": 0, \"Os\": 0, \"Or\": 0, \"g\": 0, \"L\": 0, \"G\": 0, \"h\": 0, \"C\": 0}, \"samples\": 1}"
}
profile="{\"machine\": \"hand\", \"created_at\": \"2026-11-24T03:00:00Z\", \"nodes_seen\": 2, \"packages_per_node\": 2,
 \"cores_per_node\": 4, \"levels\": {\"cmp\": $(level 1e-6 1e-10), \"socket\": $(level $Ls $Gs), \"net\": $(level $Ln $Gn)}, \"missing\": {}}"
sqlite3 m.db <"$MPP_SRC/schema/schema.sql"
sqlite3 m.db "INSERT INTO machine_profiles (machine, created_at, profile) VALUES ('hand', 'now', '$profile')"

mpipredict-report runs/traffic.csv --db m.db --json >r1.json 2>err.txt || fail "report exited with $?: $(cat err.txt)"
awk -v m="$(jq .levels.socket.msgs_pct r1.json)" -v b="$(jq .levels.socket.bytes_pct r1.json)" \
	-v nm="$(jq .levels.net.msgs_pct r1.json)" 'BEGIN {
	exit !(m > 26.66 && m < 26.67 && b > 2.07 && b < 2.09 && nm > 73.33 && nm < 73.34) }' ||
	fail "expected socket 26.67 % of messages and 2.08 % of bytes, net 73.33 % of messages; got $(jq -c .levels r1.json)"
[ "$(jq -r '[.run_id, .nprocs, .nnodes] | join(",")' r1.json)" = "$id1,4,2" ] ||
	fail "expected run $id1 of 4 ranks on 2 nodes, got $(jq -c '[.run_id, .nprocs, .nnodes]' r1.json)"
# The model by hand: 4 ranks on 2 nodes (2 per node, h = C = 0),
# collectives ceil(log2 4) = 2 latencies each.
want=$(jq -r --arg o $o --arg Os $Os --arg Or $Or --arg Ls $Ls --arg Gs $Gs --arg Ln $Ln --arg Gn $Gn '
	.levels as $l | ($o | tonumber) as $o | (($Os | tonumber) + ($Or | tonumber)) as $cpu |
	[["socket", ($Ls | tonumber), ($Gs | tonumber)], ["net", ($Ln | tonumber), ($Gn | tonumber)]] |
	map($l[.[0]] as $v | ($v.msgs / 2 + 2 * $v.coll_calls) * (2 * $o + .[1]) + ($v.bytes / 2 + $v.coll_bytes / 2) * ($cpu + .[2])) | add' r1.json)
got=$(jq .model.modelled_mpi_s r1.json)
awk -v g="$got" -v w="$want" 'BEGIN { d = g - w; if (d < 0) d = -d; exit !(w > 0 && d <= 1e-9 * w) }' ||
	fail "expected modelled MPI time $want s (by hand), got $got"
mpipredict-report runs/traffic.csv --db m.db >r1.txt || fail "text report exited with $?"
grep -q "^  socket .* 26.7 " r1.txt || fail "expected the text table's socket row with 26.7 % of messages, got: $(grep socket r1.txt)"
grep -q "modelled .* (LogGPS, profile hand" r1.txt || fail "expected the modelled line naming profile hand, got: $(tail -1 r1.txt)"

MPIPREDICT_RUNS=runs/ mpirun -np 2 ./traffic sleep1 wait || fail "traffic sleep1 wait exited with $?"
mpipredict-report runs/traffic.csv --json --db m.db >r2.json || fail "report of run 2 exited with $?"
awk -v i="$(jq .load_imbalance r2.json)" 'BEGIN { exit !(i >= 1.6) }' ||
	fail "expected load imbalance >= 1.6 (one rank sleeps 1 s outside MPI), got $(jq .load_imbalance r2.json)"
[ "$(jq -r '.top_by_time[0].site' r2.json)" = t.c:S_WT_BARRIER:1:MPI_Barrier ] ||
	fail "expected the barrier on top by time, got $(jq -c '.top_by_time[0]' r2.json)"
# Per rank (the collector's sidecar runs/ranks/traffic.csv): rank 1 slept
# 1 s outside MPI while rank 0 waited in the barrier; their mean is the
# row's mean; the text shows one bar per rank.
id2=$(jq -r .run_id r2.json)
[ "$(grep -c "^$id2," runs/ranks/traffic.csv)" = 2 ] ||
	fail "expected 2 lines of run $id2 in runs/ranks/traffic.csv, got: $(cat runs/ranks/traffic.csv)"
jq -e '(.ranks | length) == 2 and ([.ranks[].rank] == [0, 1]) and .ranks[0].in_mpi_s >= 0.9 and
	.ranks[1].outside_mpi_s >= 0.9 and .ranks[1].in_mpi_s < 0.5 and
	(((.ranks[0].in_mpi_s + .ranks[1].in_mpi_s) / 2 - .mpi_s.mean) | fabs) <= 1e-6 * .mpi_s.mean and
	(((.ranks[0].outside_mpi_s + .ranks[1].outside_mpi_s) / 2 - .outside_mpi_s.mean) | fabs) <= 1e-6 * .outside_mpi_s.mean' r2.json >/dev/null ||
	fail "expected rank 0 >= 0.9 s in MPI, rank 1 >= 0.9 s outside, means equal to the row's; got $(jq -c '{ranks, mpi_s, outside_mpi_s}' r2.json)"
mpipredict-report runs/traffic.csv --db m.db >r2.txt || fail "text report of run 2 exited with $?"
[ "$(grep -cE '^  rank +[01]  \|[#=.]{40}\| in ' r2.txt)" = 2 ] ||
	fail "expected a 40-character bar for each of the 2 ranks, got: $(grep -A3 'each rank' r2.txt)"
grep -E '^  rank +1  \|' r2.txt | grep -q '=====' ||
	fail "expected rank 1's bar mostly outside MPI (=), got: $(grep -E '^  rank +1 ' r2.txt)"
mpipredict-report runs/traffic.csv --run "$id1" --json --db m.db | jq -e --arg id "$id1" '.run_id == $id' >/dev/null ||
	fail "expected --run $id1 to show that run"
mpipredict-report runs/traffic.csv --json --db none.db 2>err.txt
[ $? = 2 ] && [ "$(wc -l <err.txt)" = 1 ] || fail "expected exit 2 and one line for a store that does not exist, got: $(cat err.txt)"
mpipredict-report runs/traffic.csv --json >r3.json || fail "report without a store exited with $?"
jq -e '.model.modelled_mpi_s == null and (.model.note | test("mpipredict-calibrate"))' r3.json >/dev/null ||
	fail "expected no modelled time and a note without a profile, got $(jq -c .model r3.json)"

mpipredict-report runs/traffic.csv --run nosuchrun 2>err.txt
rc=$?
[ $rc = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q 'no run nosuchrun' err.txt ||
	fail "expected exit 2 and 'no run nosuchrun', got $rc: $(cat err.txt)"
printf 'run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,x.mean\nr,a,b,s,,1,1,1.0,,3\n' >old.csv
printf 'run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,time:in_mpi.mean,time:in_mpi.max,time:outside_mpi.mean,time:outside_mpi.max\nr,a,b,s,,1,1,1.0,,5,5,6,6\n' >bad.csv
mkdir -p ranks
printf 'run_id,rank,time:in_mpi,time:outside_mpi,time:mpi_init\nr,0,12,x,1\n' >ranks/bad.csv
mpipredict-report bad.csv 2>err.txt
rc=$?
[ $rc = 2 ] && [ "$(wc -l <err.txt)" = 1 ] && grep -q 'ranks/bad.csv:2:' err.txt ||
	fail "expected exit 2 and one line naming ranks/bad.csv:2 for a bad per-rank line, got $rc: $(cat err.txt)"
mpipredict-report bad.csv --json >r4.json 2>err.txt
[ $? = 2 ] || fail "expected exit 2 with --json too"
rm -r ranks
mpipredict-report bad.csv --json >r4.json 2>err.txt || fail "expected a report without a sidecar, got: $(cat err.txt)"
jq -e '.ranks == null' r4.json >/dev/null || fail "expected ranks null without a sidecar, got $(jq -c .ranks r4.json)"
mpipredict-report old.csv 2>err.txt
rc=$?
[ $rc = 2 ] && grep -q 'time:in_mpi.mean' err.txt || fail "expected exit 2 naming time:in_mpi.mean for an old row, got $rc: $(cat err.txt)"
mpipredict-report --bogus 2>err.txt
[ $? = 1 ] || fail "expected exit 1 for an unknown option"
exit $failed
