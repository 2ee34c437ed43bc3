#!/usr/bin/env bash
# A noisy neighbour: another process shares one rank's core (a daemon, a
# second job on a node shared by core), so that rank computes at about
# half speed and the other waits for it at every halo exchange. SMPI's own
# benchmark of the segments cannot see this (it measures every rank one
# after the other on an idle simulation); the training runs at 2 ranks
# did. jacobi3d (tests/apps) traced at 1 rank quietly and at 2 ranks bound
# to one core each, with a busy loop on rank 1's core; predicted at a
# larger input, at 2 ranks.
# Checked: the noisy trace of the largest input shows rank 1 slowed (else the test cannot
# say anything and fails, naming it); the prediction takes its noise from
# the 2-rank trace of the largest input; rank 1 computes at least 1.2x
# rank 0's time and rank 0 waits for at least 25 % of the simulated time
# (41-56 % in 6 runs), and the total computation is the same as without
# the noise (only its timing moved); with --no-noise rank 0 waits for
# less than 10 % (SMPI's own benchmark: 2-9 %); the noise adds at least
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
hog=
trap '[ -n "$hog" ] && kill "$hog" 2>/dev/null' EXIT
bound=(--bind-to core --map-by core)
for n in 48 64; do
	traced q$n 1 ./jacobi3d.real -n $n -i 200
done
taskset -c 1 sh -c 'while :; do :; done' &
hog=$!
sleep 0.3 # running before the first traced run starts
for n in 48 64; do
	traced h$n 2 "${bound[@]}" ./jacobi3d.real -n $n -i 200
done
kill "$hog"
hog=
compute_of() { # trace dir, rank -> seconds of computation
	awk '$2 == "compute" { c += $3 } END { printf "%.6f\n", c / 1e9 }' "$1/rank-$2.ti"
}
for d in h64; do # the noise source
	c0=$(compute_of $d 0) c1=$(compute_of $d 1)
	awk -v a="$c0" -v b="$c1" 'BEGIN { exit !(b >= 1.2 * a) }' ||
		{ echo "$d: the neighbour did not slow rank 1 (computation $c0 s and $c1 s; core binding?)"; exit 1; }
done
fail=0
tr=(--train q48 --train q64 --train h48 --train h64)
mpipredict-simulate predict --profile profile.json "${tr[@]}" --ranks 2 --json --skeleton "$PWD/sk" \
	-- ./jacobi3d.smpi -n 80 -i 200 >noise.json 2>err.txt || { echo "predict failed: $(head -3 err.txt)"; exit 1; }
mpipredict-simulate predict --profile profile.json "${tr[@]}" --ranks 2 --json --skeleton "$PWD/sk" --no-noise \
	-- ./jacobi3d.smpi -n 80 -i 200 >quiet.json 2>err.txt || { echo "predict --no-noise failed: $(head -3 err.txt)"; exit 1; }
from=$(jq -r '.noise_from | join(" ")' noise.json)
[ "$from" = h64 ] || { echo "expected the noise from the 2-rank trace of the largest input (h64), got '$from'"; fail=1; }
jq -e '.simulated_s as $t | .ranks[0].wait_s >= 0.25 * $t' noise.json >/dev/null ||
	{ echo "with the noise: expected rank 0 to wait >= 25 % of the time: $(jq -c '{simulated_s,ranks}' noise.json)"; fail=1; }
jq -e '.simulated_s as $t | .ranks[0].wait_s < 0.1 * $t' quiet.json >/dev/null ||
	{ echo "--no-noise: expected rank 0 to wait < 10 % of the time: $(jq -c '{simulated_s,ranks}' quiet.json)"; fail=1; }
cn=$(jq '[.ranks[].compute_s] | add' noise.json) cq=$(jq '[.ranks[].compute_s] | add' quiet.json)
awk -v a="$cn" -v b="$cq" 'BEGIN { e = a / b - 1; exit !(e < 0.01 && e > -0.01) }' ||
	{ echo "expected the same total computation with and without the noise, got $cn s and $cq s"; fail=1; }
sn=$(jq .simulated_s noise.json) sq=$(jq .simulated_s quiet.json)
awk -v n="$sn" -v q="$sq" 'BEGIN { exit !(n >= 1.2 * q) }' ||
	{ echo "expected the neighbour's noise to add >= 20 % to the prediction: $sn s against --no-noise's $sq s"; fail=1; }
jq -e '.ranks[1].compute_s >= 1.2 * .ranks[0].compute_s' noise.json >/dev/null ||
	{ echo "expected rank 1 to compute >= 1.2x rank 0's, as in the noisy traces: $(jq -c .ranks noise.json)"; fail=1; }
exit $fail
