#!/usr/bin/env bash
# PENNANT's final output (progs/serialskip.c): after a gather, rank 0
# alone writes the output, whatever the rank count. Traced at 2 ranks, the
# noise (mpp_trace_noise) gave target rank r the timing of traced rank
# r % 2: at 64 ranks every even rank took a writer's share and rank 0
# computed 1/32 of the writing (PENNANT at 64 ranks: 0.017 s simulated,
# below its own output time, 0.19 s). Checked on an exact law: the traces'
# computation rewritten (the segment after the gather 50 ms x (n/200)^2
# on rank 0 and 10 us on rank 1, every other segment 10 us), predicted at
# 8 ranks on 4 nodes at -n 400 (a traced input):
#   - rank 0 still does the writing (at least 0.8 x 0.2 s), the other
#     ranks next to nothing of it (each under 5 % of rank 0's);
#   - at 2 ranks (the traced count) rank 0 does it too.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog serialskip -g
fail=0
train=()
for n in 200 400; do
	traced r$n 2 ./serialskip.real -n $n -s 10
	mkdir -p t$n
	cp r$n/meta t$n/meta
	for r in 0 1; do
		# the last computation (after the gather, before finalize)
		last=$(awk '$2 == "compute" { l = NR } END { print l }' r$n/rank-$r.ti)
		awk -v n=$n -v r=$r -v last="$last" '$2 == "compute" {
		    w = 1e4; if (NR == last && r == 0) w = 5e7 * (n / 200) ^ 2
		    printf "%s compute %.0f\n", $1, w; next } { print }' \
			r$n/rank-$r.ti >t$n/rank-$r.ti
	done
	grep -q ' gather ' t$n/rank-0.ti ||
		{ echo "expected a gather in the 2-rank trace at -n $n"; fail=1; }
	train+=(--train "t$n")
done
for np in 8 2; do
	mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks $np \
		--nodes $((np / 2)) --json --no-residual -- ./serialskip.smpi -n 400 -s 10 >p$np.json 2>err$np.txt ||
		{ echo "predict at $np ranks failed: $(cat err$np.txt)"; exit 1; }
	jq -e '.ranks[0].compute_s >= 0.16 and
	       ([.ranks[1:][] | .compute_s] | max) < 0.05 * .ranks[0].compute_s' p$np.json >/dev/null ||
		{ echo "at $np ranks: expected rank 0 to do the output (>= 0.16 s) and every other rank under 5 % of it, got $(jq -c '[.ranks[].compute_s]' p$np.json)"; fail=1; }
done
exit $fail
