#!/usr/bin/env bash
# A noisy neighbour: another process shares one rank's core (a daemon, a
# second job on a node shared by core), so that rank computes at a quarter
# of its speed and the other waits for it at every halo exchange. SMPI's own
# benchmark of the segments cannot see this (it measures every rank one
# after the other on an idle simulation); the training runs at 2 ranks
# did. jacobi3d (tests/apps) traced at 1 rank quietly and at 2 ranks bound
# to one core each, with three busy loops on rank 1's core (start_hogs in
# lib.sh); predicted at a larger input, at 2 ranks.
# Checked: the noisy trace of the largest input shows rank 1 slowed (else
# the test cannot say anything: 5 attempts, then it skips, naming it); the prediction takes its noise from
# the 2-rank trace of the largest input; rank 1 computes at least 1.2x
# rank 0's time and rank 0 is held up (not computing) for >= 25 % of the simulated time
# (41-56 % in 6 runs with one busy loop, 60 % with three), and the work replayed is the
# same as without the noise (only its timing moved); rank 0 waits at least
# twice as long as with --no-noise (SMPI's own benchmark leaves 2-17 %);
# the noise adds at least 20 % to the prediction. How near the prediction comes to runs measured
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
noisy() {
	local n
	for n in 48 64; do
		traced h$n 2 "${bound[@]}" ./jacobi3d.real -n $n -i 200
	done
}
noisy_traces h64 noisy
fail=0
tr=(--train q48 --train q64 --train h48 --train h64)
mpipredict-simulate predict --profile profile.json "${tr[@]}" --ranks 2 --json --skeleton "$PWD/sk" --keep kn \
	-- ./jacobi3d.smpi -n 80 -i 200 >noise.json 2>err.txt || { echo "predict failed: $(head -3 err.txt)"; exit 1; }
mpipredict-simulate predict --profile profile.json "${tr[@]}" --ranks 2 --json --skeleton "$PWD/sk" --no-noise --keep kq \
	-- ./jacobi3d.smpi -n 80 -i 200 >quiet.json 2>err.txt || { echo "predict --no-noise failed: $(head -3 err.txt)"; exit 1; }
noise_shows h64 0.25 2 0.2 || fail=1
exit $fail
