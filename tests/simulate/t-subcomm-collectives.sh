#!/usr/bin/env bash
# Every collective on a communicator of 3 of 4 ranks (progs/groups.c:
# ranks 3, 2, 0 in that order; rank 1 alone in its own) is traced with
# its members and replayed by SimGrid as point-to-point messages among
# them: the replay completes (a send and its receive of different sizes
# would stop it with MPI_ERR_TRUNCATE, a missing one would deadlock), the
# bytes sent are those any point-to-point form of these calls moves among
# 3 members, and rank 1 sends nothing.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
# shellcheck disable=SC2086
mpicc -O1 ${MPP_TEST_CFLAGS:-} -o groups "$MPP_SRC/tests/simulate/progs/groups.c" \
	-L"$MPP_BUILD/lib" -Wl,-rpath,"$MPP_BUILD/lib" -lmpipredict || exit 1
traced tr 4 ./groups
fail=0
grep -qx "0 alltoallv 96 24 32 40 96 24 32 40 @ 3 3 2 0" tr/rank-0.ti &&
	grep -qx "1 bcast 40 1 @ 1 1" tr/rank-1.ti ||
	{ echo "expected member lists '@ 3 3 2 0' (rank 0) and '@ 1 1' (rank 1)"; fail=1; }
mpipredict-simulate replay --profile profile.json --trace tr --nodes 2 --keep kr \
	>/dev/null 2>err.txt || { echo "replay failed: $(head -3 err.txt)"; exit 1; }
# Bytes any point-to-point form moves among n = 3 members (8-byte
# doubles; member i = 0, 1, 2): a broadcast or reduce reaches n-1 members
# with the whole buffer, allreduce twice that, scan and exscan n-1 links
# of a chain; gather and scatter move the n-1 other members' blocks,
# gatherv i+1 and scatterv i+2 (members 1, 2 and 0, 1 besides the roots 0
# and 2), allgather, alltoall n(n-1) blocks, allgatherv each block to n-1
# others, alltoallv the off-diagonal i+j+1, reduce_scatter each block
# counts[j] from the n-1 others, ibcast n-1.
n=3
want=$(( 8 * ( (n - 1) * 5 + (n - 1) * 6 + 2 * (n - 1) * 7 + (n - 1) * 3 + (n - 1) * 2
	+ (n - 1) * 4 + (n - 1) * 3 + (2 + 3) + (2 + 3)
	+ n * (n - 1) * 2 + (n - 1) * (1 + 2 + 3) + n * (n - 1) * 1
	+ (2 + 3 + 2 + 4 + 3 + 4) + (n - 1) * (1 + 2 + 3) + (n - 1) * n * 2 + (n - 1) * 4 ) ))
got=$(awk '($2 == "send" || $2 == "isend") && $4 >= 32000 && $4 < 32700 { s += $5 } END { print s + 0 }' kr/r*.ti)
[ "$got" = "$want" ] || { echo "expected $want bytes among the members, got $got"; fail=1; }
one=$(awk '$4 >= 32000 && $4 < 32700' kr/r1.ti | wc -l)
[ "$one" = 0 ] || { echo "rank 1, alone in its communicator, has $one messages in the replay"; fail=1; }
exit $fail
