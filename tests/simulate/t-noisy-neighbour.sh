#!/usr/bin/env bash
# A noisy neighbour: another process shares one rank's core (a daemon, a
# second job on a node shared by core), so that rank computes at a third
# of its speed and the other waits for it at every halo exchange. SMPI's own
# benchmark of the segments cannot see this (it measures every rank one
# after the other on an idle simulation); the training runs at 2 ranks
# did. jacobi3d (tests/apps) traced at 1 rank quietly and at 2 ranks bound
# to one core each, with two busy loops on rank 1's core (start_hogs in
# lib.sh); predicted at a larger input, at 2 ranks.
# Checked: the noisy trace of the largest input shows rank 1 slowed (else
# the test cannot say anything: 3 attempts, then it fails, naming it); the prediction takes its noise from
# the 2-rank trace of the largest input; rank 1 computes at least 1.2x
# rank 0's time and rank 0 waits for at least 25 % of the simulated time
# (41-56 % in 6 runs with one busy loop), and the work replayed is the
# same as without the noise (only its timing moved); with --no-noise rank
# 0 waits for less than 15 % (SMPI's own benchmark: 2-9 %); the noise adds at least
# 20 % to the prediction. How near the prediction comes to runs measured
# with the neighbour is not asserted: one rank's share of a core it
# shares is the scheduler's to decide, run by run (in 8 runs of the
# first version of this test, against the median of 3 measured runs:
# -15 to +15 %, and -16 to -39 % with --no-noise; in a ninth, +43 %).
# bench-simulate measures the accuracy on a machine without a hog.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_real jacobi3d && build_smpi jacobi3d || { echo "build failed: $(tail -3 smpicc.err)"; exit 1; }
trap stop_hogs EXIT
bound=(--bind-to core --map-by core)
for n in 48 64; do
	traced q$n 1 ./jacobi3d.real -n $n -i 200
done
# The noisy runs; again when the hogs did not take (with one busy loop,
# rank 1 came out no slower than rank 0 in about 1 of 5 runs under
# SANITIZE=1, never in 10 without; the cause was not found): the test can
# say nothing of a trace with no slow rank.
for attempt in 1 2 3; do
	start_hogs
	for n in 48 64; do
		traced h$n 2 "${bound[@]}" ./jacobi3d.real -n $n -i 200
	done
	stop_hogs
	slowed h64 && break
	[ $attempt = 3 ] && { echo "h64: the neighbour did not slow rank 1 in 3 attempts (computation $(compute_of h64 0) s and $(compute_of h64 1) s; core binding?)"; exit 1; }
done
fail=0
tr=(--train q48 --train q64 --train h48 --train h64)
mpipredict-simulate predict --profile profile.json "${tr[@]}" --ranks 2 --json --skeleton "$PWD/sk" --keep kn \
	-- ./jacobi3d.smpi -n 80 -i 200 >noise.json 2>err.txt || { echo "predict failed: $(head -3 err.txt)"; exit 1; }
mpipredict-simulate predict --profile profile.json "${tr[@]}" --ranks 2 --json --skeleton "$PWD/sk" --no-noise --keep kq \
	-- ./jacobi3d.smpi -n 80 -i 200 >quiet.json 2>err.txt || { echo "predict --no-noise failed: $(head -3 err.txt)"; exit 1; }
from=$(jq -r '.noise_from | join(" ")' noise.json)
[ "$from" = h64 ] || { echo "expected the noise from the 2-rank trace of the largest input (h64), got '$from'"; fail=1; }
jq -e '.simulated_s as $t | .ranks[0].wait_s >= 0.25 * $t' noise.json >/dev/null ||
	{ echo "with the noise: expected rank 0 to wait >= 25 % of the time: $(jq -c '{simulated_s,ranks}' noise.json)"; fail=1; }
jq -e '.simulated_s as $t | .ranks[0].wait_s < 0.15 * $t' quiet.json >/dev/null ||
	{ echo "--no-noise: expected rank 0 to wait < 15 % of the time: $(jq -c '{simulated_s,ranks}' quiet.json)"; fail=1; }
# the work replayed (the replay files, flops rounded to integers per
# segment: 1e-4 is 4 times the largest difference seen, 2.4e-5; SimGrid's
# log prints durations to the microsecond, so the analyses' compute_s of
# many short segments can differ by a few per cent)
work() { cat "$1"/r*.ti | awk '$2 == "compute" { c += $3 } END { printf "%.0f\n", c }'; }
cn=$(work kn) cq=$(work kq)
awk -v a="$cn" -v b="$cq" 'BEGIN { e = a / b - 1; exit !(e < 1e-4 && e > -1e-4) }' ||
	{ echo "expected the same total computation with and without the noise, got $cn and $cq flops"; fail=1; }
sn=$(jq .simulated_s noise.json) sq=$(jq .simulated_s quiet.json)
awk -v n="$sn" -v q="$sq" 'BEGIN { exit !(n >= 1.2 * q) }' ||
	{ echo "expected the neighbour's noise to add >= 20 % to the prediction: $sn s against --no-noise's $sq s"; fail=1; }
jq -e '.ranks[1].compute_s >= 1.2 * .ranks[0].compute_s' noise.json >/dev/null ||
	{ echo "expected rank 1 to compute >= 1.2x rank 0's, as in the noisy traces: $(jq -c .ranks noise.json)"; fail=1; }
exit $fail
