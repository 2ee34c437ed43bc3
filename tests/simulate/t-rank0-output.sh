#!/usr/bin/env bash
# Work only rank 0 does (progs/rootout.c: the shares gathered to rank 0,
# which writes them, as PENNANT writes its output) stays on rank 0 at rank
# counts never traced. The noise gives target rank r the timing of source
# rank r mod P; for such a kind that handed rank 0's writing to every P-th
# rank and divided it among them (PENNANT at 16 ranks: 0.045 s where plain
# SMPI said 0.18). Traced at 1 and 2 ranks (-n 512 and 1024), the traces'
# computation rewritten by an exact law so that a loaded machine moves
# nothing: each sweep 1 ms x (n/512)^2 / ranks, rank 0's writing after the
# gather 50 ms x (n/512)^2, every other segment 10 us. Predicted at 8
# ranks on 4 nodes for -n 1024, rank 0 writes for 0.2 s: the answer and
# rank 0's computation are at least that, with the noise as without it,
# and the other ranks compute 10 sweeps of 0.5 ms each, not a share of
# the writing.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog rootout -g
fail=0
law() { # src dst n np
	mkdir -p "$2"
	cp "$1/meta" "$2/meta"
	for f in "$1"/rank-*.ti; do
		awk -v n="$3" -v np="$4" '
		  { line[NR] = $0; nm[NR] = ($1 == "#" ? "#" : $2) }
		  END {
		    for (i = 1; i <= NR; i++) {
		      if (nm[i] != "compute") { if (nm[i] != "#") prev = nm[i]; print line[i]; continue }
		      for (j = i + 1; j <= NR && nm[j] == "#"; j++) ;
		      split(line[i], f, " ")
		      w = 1e4
		      if (nm[j] == "allreduce") w = 1e6 * (n / 512) ^ 2 / np
		      else if (prev == "gather" && f[1] == 0) w = 5e7 * (n / 512) ^ 2
		      printf "%s compute %.0f\n", f[1], w } }' "$f" >"$2/$(basename "$f")"
	done
}
train=()
for n in 512 1024; do
	for np in 1 2; do
		traced real$n-$np $np ./rootout.real -n $n -s 10
		law real$n-$np t$n-$np $n $np
		train+=(--train "t$n-$np")
	done
done
grep -q ' gather' real512-2/rank-1.ti || { echo "expected a gather in the 2-rank trace"; fail=1; }
for v in noise no-noise; do
	opt=()
	[ $v = no-noise ] && opt=(--no-noise)
	mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks 8 --nodes 4 --no-residual \
		"${opt[@]}" --json -- ./rootout.smpi -n 1024 -s 10 >$v.json 2>$v.err ||
		{ echo "predict ($v) failed: $(cat $v.err)"; exit 1; }
	echo "$v: $(jq -c '{predicted_s, r0: .ranks[0].compute_s, r2: .ranks[2].compute_s}' $v.json)"
	jq -e '.predicted_s >= 0.2 and .ranks[0].compute_s >= 0.19' $v.json >/dev/null ||
		{ echo "$v: expected rank 0's 0.2 s of writing in the answer and on rank 0: $(jq -c '{predicted_s, r0: .ranks[0].compute_s}' $v.json)"; fail=1; }
	jq -e '[.ranks[1:][].compute_s] | max < 0.02' $v.json >/dev/null ||
		{ echo "$v: expected no share of the writing on ranks 1-7: $(jq -c '[.ranks[].compute_s]' $v.json)"; fail=1; }
done
exit $fail
