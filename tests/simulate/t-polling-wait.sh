#!/usr/bin/env bash
# Waiting by polling (progs/poll.c: two ranks pass a token back and forth,
# each polls for it with MPI_Test or MPI_Testall instead of MPI_Wait, so
# the run is serial). Before, every poll was a trace line (258,000 in a
# 0.2 s run), the replay dropped all tests, so no rank ever waited for
# the token and the replay took about half the run; and the polling
# loop's own time was scaled as work.
# Checked: the trace holds only the tests that finished something (rank
# 0: 9 tests, rank 1: 10 testalls, "1" for done); the replay of the run is
# within 15 % of its own wall time; `predict` at a larger work keeps the
# ranks taking turns: each waits for the token at least 20 % of the
# simulated time (before, rank 1 never waited). A polling rank the
# machine preempts between two polls for more than 5 us has that gap
# counted as work (collector/trace.c, POLL_GAP): on a loaded machine the
# ranks' computation then overlaps in the prediction, so the test does not
# ask for a serial sum.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog poll
for w in 200 300; do
	traced t$w 2 ./poll.real -w $w -i 10
done
fail=0
n0=$(grep -c '^0 test 1$' t300/rank-0.ti) n1=$(grep -c '^1 testall 1 1$' t300/rank-1.ti)
[ "$n0 $n1" = "9 10" ] || { echo "expected 9 finished tests on rank 0 and 10 testalls on rank 1, got $n0 $n1"; fail=1; }
for r in 0 1; do
	l=$(wc -l <t300/rank-$r.ti)
	[ "$l" -lt 100 ] || { echo "t300/rank-$r.ti: $l lines for 10 turns (a line per poll?)"; fail=1; }
done
mpipredict-simulate replay --profile profile.json --trace t300 --json >rep.json 2>err.txt ||
	{ echo "replay failed: $(head -3 err.txt)"; exit 1; }
wall=$(wall_of t300)
awk -v s="$(jq .simulated_s rep.json)" -v w="$wall" 'BEGIN { e = s / w - 1; exit !(e < 0.15 && e > -0.15) }' ||
	{ echo "replay: expected within 15 % of the run's $wall s, got $(jq .simulated_s rep.json) s"; fail=1; }
mpipredict-simulate predict --profile profile.json --train t200 --train t300 --ranks 2 --json \
	-- ./poll.smpi -w 400 -i 10 >pred.json 2>err.txt || { echo "predict failed: $(head -3 err.txt)"; exit 1; }
jq -e '.simulated_s as $t | [.ranks[].wait_s] | all(. >= 0.2 * $t)' pred.json >/dev/null ||
	{ echo "predict: expected each rank to wait for its turn (>= 20 % of the time): $(jq -c '{simulated_s,ranks}' pred.json)"; fail=1; }
exit $fail
