#!/usr/bin/env bash
# A transpose in the shape of the parallel FFT libraries (progs/transpose.c:
# slabs of rows to slabs of columns and back with MPI_Alltoallw, one
# MPI_Type_create_subarray per peer, n = 91 so the slabs are uneven).
# SimGrid's replay has no alltoallw action: it was dropped, and the
# transposes cost nothing in the replay. The trace writes each peer's
# bytes (count x the subarray's size) as alltoallv's fields and the replay
# runs it as alltoallv: nothing approximated, the bytes those of the
# slabs, the same checksum at 1 and 2 ranks, and `predict`'s smpicc
# skeleton writes the same lines.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog transpose
n=91 steps=3
traced tr 2 ./transpose.real -n $n -i $steps
traced t1 1 ./transpose.real -n $n -i $steps
fail=0
cmp -s t1.out tr.out || { echo "1 and 2 ranks differ: $(cat t1.out tr.out)"; fail=1; }
# Rank r has part(r) = 46 or 45 rows and columns; it sends part(r) x
# part(j) doubles to rank j and receives part(j) x part(r).
part() { echo $(( n / 2 + ($1 < n % 2) )); }
for r in 0 1; do
	s0=$(( $(part $r) * $(part 0) * 8 )) s1=$(( $(part $r) * $(part 1) * 8 ))
	want="$r alltoallw $((s0 + s1)) $s0 $s1 $((s0 + s1)) $s0 $s1"
	got=$(grep -c -x -- "$want" "tr/rank-$r.ti")
	[ "$got" = $((2 * steps)) ] ||
		{ echo "tr/rank-$r.ti: expected $((2 * steps)) lines '$want', got $got"; fail=1; }
done
mpipredict-simulate replay --profile profile.json --trace tr --keep kr --json >sim.json 2>err.txt ||
	{ echo "replay failed: $(head -3 err.txt)"; exit 1; }
jq -e '.approximated_actions == 0' sim.json >/dev/null ||
	{ echo "replay: expected nothing approximated, got $(jq .approximated_actions sim.json)"; fail=1; }
[ "$(grep -c '^0 alltoallv ' kr/r0.ti)" = $((2 * steps)) ] ||
	{ echo "kr/r0.ti: expected $((2 * steps)) alltoallv actions"; fail=1; }
mpipredict-simulate predict --profile profile.json --train t1 --ranks 2 --keep kp \
	-- ./transpose.smpi -n $n -i $steps >pred.txt 2>err.txt ||
	{ echo "predict failed: $(head -3 err.txt)"; exit 1; }
cmp -s <(grep -v ' compute ' tr/rank-1.ti | grep -v '^#') <(grep -v ' compute ' kp/skeleton/rank-1.ti | grep -v '^#') ||
	{ echo "the smpicc skeleton's actions differ from the real run's: $(diff <(grep -v ' compute ' tr/rank-1.ti) <(grep -v ' compute ' kp/skeleton/rank-1.ti) | head -4)"; fail=1; }
exit $fail
