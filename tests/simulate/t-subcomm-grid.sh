#!/usr/bin/env bash
# Collectives on communicators that hold only some of the ranks, in the
# shape of the dense linear-algebra codes (progs/summa.c: a 2 x 2 process
# grid, row and column communicators from MPI_Comm_split, panel
# broadcasts along rows and down columns, a column allreduce, a gather
# only process column 0 calls, an allreduce on a duplicate of
# MPI_COMM_WORLD). SimGrid's replay runs every collective over all ranks:
# these were replayed as world collectives and the replay broke off
# (MPI_ERR_TRUNCATE). The trace names each such collective's members, and
# the replay sends their messages among the members only.
#
# Checked: the trace's member lists; the replay of a real 4-rank trace on
# 2 nodes (ranks 0,1 | 2,3) completes, and its messages are exactly those
# of the grid: the row broadcasts stay inside a node, the column ones,
# the column allreduce and the gather cross, the ranks of column 1 never
# take part in the gather, and the world-wide collectives stay SimGrid's.
# Then the same through `predict` from 1-rank traces (the 4-rank skeleton
# is the smpicc build's own trace).
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog summa
n=128 w=8
traced tr 4 ./summa.real -n $n -w $w
fail=0
# Rank 3 is (row 1, column 1): its row is {2,3}, its column {1,3}.
for want in "3 bcast 4096 2 @ 2 2 3" "3 bcast 4096 1 @ 2 1 3" "3 allreduce 512 0 @ 2 1 3" \
	"3 allreduce 8 0" "0 gather 8 8 0 @ 2 0 2"; do
	r=${want%% *}
	grep -qx -- "$want" "tr/rank-$r.ti" ||
		{ echo "expected the line '$want' in tr/rank-$r.ti"; fail=1; }
done
grep -q gather tr/rank-1.ti tr/rank-3.ti && { echo "ranks 1 and 3 traced a gather they never called"; fail=1; }

# bytes_by_level DIR: "<bytes within a node> <bytes across nodes>" sent on
# the tags of sub-communicator collectives in the replay files DIR/r*.ti
# (2 ranks per node).
bytes_by_level() {
	awk '($2 == "send" || $2 == "isend") && $4 >= 32000 && $4 < 32700 {
		if (int($1 / 2) == int($3 / 2)) intra += $5; else inter += $5
	} END { printf "%d %d\n", intra, inter }' "$1"/r*.ti
}
# What the grid sends (2 x 2, blocks of mb x nq = 64 x 64 doubles): per
# panel, one row broadcast of mb*w doubles in each row (inside a node) and
# one column broadcast of w*nq in each column (across); a column allreduce
# of nq doubles (a reduce and a broadcast message per column) and the
# gather's one double.
panels=$((n / w)) mb=$((n / 2)) nq=$((n / 2))
expect="$((panels * 2 * mb * w * 8)) $((panels * 2 * w * nq * 8 + 2 * 2 * nq * 8 + 8))"

mpipredict-simulate replay --profile profile.json --trace tr --nodes 2 --keep kr \
	--json >sim.json 2>err.txt || { echo "replay failed: $(head -3 err.txt)"; exit 1; }
got=$(bytes_by_level kr)
[ "$got" = "$expect" ] ||
	{ echo "replay: expected bytes within / across nodes $expect, got $got"; fail=1; }
[ -z "$(awk '$4 >= 32000 && $4 < 32700 && $5 == 8' kr/r1.ti kr/r3.ti)" ] &&
	grep -qx "2 send 0 [0-9]* 8" kr/r2.ti ||
	{ echo "replay: expected the gather's 8 bytes from rank 2 to 0, none from ranks 1 and 3"; fail=1; }
for r in 0 1 2 3; do
	grep -qx "$r allreduce 8 0" "kr/r$r.ti" && grep -qx "$r reduce 8 0 0" "kr/r$r.ti" ||
		{ echo "kr/r$r.ti: expected the world allreduce and reduce as SimGrid collectives"; fail=1; }
	grep -q " bcast " "kr/r$r.ti" && { echo "kr/r$r.ti: a row or column broadcast left as a world bcast"; fail=1; }
done
jq -e '.simulated_s > 0 and .levels.cmp.bytes > 0 and .levels.net.bytes > 0' sim.json >/dev/null ||
	{ echo "replay analysis: expected time and both levels' bytes: $(jq -c '{simulated_s,levels}' sim.json)"; fail=1; }

# predict: trained at 1 rank (every communicator is one rank there), the
# 4-rank configuration never run; its skeleton comes from the smpicc build.
for m in 64 96; do
	traced t$m 1 ./summa.real -n $m -w $w
done
mpipredict-simulate predict --profile profile.json --train t64 --train t96 --ranks 4 --nodes 2 \
	--keep kp --json -- ./summa.smpi -n $n -w $w >pred.json 2>err.txt ||
	{ echo "predict failed: $(head -3 err.txt)"; exit 1; }
grep -q "^1 bcast [0-9]* 1 @ 2 1 3$" kp/skeleton/rank-1.ti ||
	{ echo "the smpicc skeleton of rank 1 has no column broadcast with its members"; fail=1; }
got=$(bytes_by_level kp)
[ "$got" = "$expect" ] ||
	{ echo "predict: expected bytes within / across nodes $expect, got $got"; fail=1; }
jq -e '.simulated_s > 0 and ([.ranks[].compute_s] | all(. > 0))' pred.json >/dev/null ||
	{ echo "predict: expected a time and computation on every rank: $(jq -c '{simulated_s,ranks}' pred.json)"; fail=1; }
exit $fail
