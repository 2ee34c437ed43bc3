#!/usr/bin/env bash
# libmpipredict's trace mode writes, per rank, the calls of progs/calls.c
# as SimGrid time-independent actions with their exact sizes in bytes and
# peers and roots as MPI_COMM_WORLD ranks (the Bcast root is rank 0 of a
# reversed communicator: world rank 1), MPI_PROC_NULL as -1, a compute
# line between calls, init first, finalize and "# wall" last, and meta.
# A neighbourhood collective on a Cartesian ring lists its sources and
# destinations as world ranks with their bytes.
# mpipredict-simulate converts and replays it (2 sendrecv with a rank
# peer, 2 with MPI_PROC_NULL, the neighbourhood collective: 5 approximated
# actions per rank).
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
# shellcheck disable=SC2086
mpicc -O1 ${MPP_TEST_CFLAGS:-} -o calls "$MPP_SRC/tests/simulate/progs/calls.c" \
	-L"$MPP_BUILD/lib" -Wl,-rpath,"$MPP_BUILD/lib" -lmpipredict || exit 1
MPIPREDICT_TRACE=tr mpirun -np 2 ./calls 100 >/dev/null 2>err.txt ||
	{ echo "run failed: $(tail -3 err.txt)"; exit 1; }
fail=0
grep -qx "nprocs 2" tr/meta && grep -qx "args 100" tr/meta ||
	{ echo "meta: expected nprocs 2 and args 100, got $(cat tr/meta)"; fail=1; }
for r in 0 1; do
	o=$((1 - r))
	if [ $r = 0 ]; then p2p="0 send 1 5 12"; else p2p="1 recv 0 5 12"; fi
	want="$r init
$r sendrecv $o 7 800 $o 7 800
$r sendrecv -1 8 800 -1 8 0
$r allreduce 32 0
$r sendrecv $o 7 800 $o 7 800
$r sendrecv -1 8 800 -1 8 0
$r allreduce 32 0
$p2p
$r bcast 16 1
$r alltoallv 32 16 16 32 16 16
$r neighbor_alltoall 2 2 $o 16 $o 16 $o 16 $o 16
$r finalize"
	got=$(grep -v -e ' compute ' -e '^#' "tr/rank-$r.ti")
	[ "$got" = "$want" ] || { printf 'rank %s: expected\n%s\ngot\n%s\n' $r "$want" "$got"; fail=1; }
	c=$(grep -c " compute " "tr/rank-$r.ti")
	[ "$c" = 11 ] || { echo "rank $r: expected 11 compute lines, got $c"; fail=1; }
	tail -1 "tr/rank-$r.ti" | grep -q '^# wall [0-9.]*$' ||
		{ echo "rank $r: expected '# wall' last"; fail=1; }
done
mpipredict-simulate replay --profile profile.json --trace tr --json >sim.json 2>err.txt ||
	{ echo "replay failed: $(cat err.txt)"; exit 1; }
a=$(jq .approximated_actions sim.json)
[ "$a" = 10 ] || { echo "expected 10 approximated actions (4 sendrecv and a neighbor_alltoall per rank), got $a"; fail=1; }
# the neighbourhood collective replays as 2 irecv + 2 isend + waitall
mpipredict-simulate replay --profile profile.json --trace tr --keep "$PWD/k" >/dev/null 2>err.txt ||
	{ echo "replay --keep failed: $(cat err.txt)"; exit 1; }
nb=$(grep -c ' 32766 16$' k/r0.ti)
[ "$nb" = 4 ] || { echo "expected 2 irecv and 2 isend of 16 bytes (tag 32766) in rank 0's replay, got $nb: $(grep 32766 k/r0.ti)"; fail=1; }
exit $fail
