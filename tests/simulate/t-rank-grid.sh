#!/usr/bin/env bash
# Issue 38's molecular-dynamics shape (progs/md.c): a box -x -y -z given
# equal, decomposed over a rank grid -i -j -k whose product is the rank
# count. Traced at 1 rank (-i 1) and 2 ranks (-i 2) at -x = -y = -z = 8
# and 12, predicted at 8 ranks (-i 2 -j 2 -k 2) for 12. Taken as separate
# law variables, -x -y -z and -i were four exponents for two
# directions the traces move in (the law's variables were "nprocs -x -y
# -z -i", silently). Checked on an exact law (every segment's
# computation rewritten: the force loop 1 ms x (x/8)^3, the others
# 10 us x (x/8)^3, on each of 2 ranks 0.55 of that):
#   - the report: law variables nprocs and -x, -y -z -i merged and named;
#   - the ranks' computation at 8 ranks is the law's work, 1.1^3 times
#     the 1-rank work at -x 12 (to 1 %), and below the 1-rank time;
#   - marked extrapolated, x4.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog md
fail=0
law() { # src dst x np
	mkdir -p "$2"
	cp "$1/meta" "$2/meta"
	for f in "$1"/rank-*.ti; do
		awk -v x="$3" -v np="$4" '{ line[NR] = $0; nm[NR] = ($1 == "#" ? "#" : $2) }
		  END { for (i = 1; i <= NR; i++) {
		    if (nm[i] != "compute") { if (nm[i] != "#") prev = nm[i]; print line[i]; continue }
		    for (j = i + 1; nm[j] == "#"; j++) ;
		    w = (prev == "sendrecv" && nm[j] == "allreduce" ? 1e6 : 1e4) * (x / 8) ^ 3 * (np == 1 ? 1 : 0.55)
		    split(line[i], f, " ")
		    printf "%s compute %.0f\n", f[1], w } }' "$f" >"$2/$(basename "$f")"
	done
}
train=()
for x in 8 12; do
	traced real$x-1 1 ./md.real -x $x -y $x -z $x -i 1 -j 1 -k 1 -s 5
	traced real$x-2 2 ./md.real -x $x -y $x -z $x -i 2 -j 1 -k 1 -s 5
	law real$x-1 t$x-1 $x 1
	law real$x-2 t$x-2 $x 2
	train+=(--train "t$x-1" --train "t$x-2")
done
mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks 8 --nodes 4 --no-residual \
	-- ./md.smpi -x 12 -y 12 -z 12 -i 2 -j 2 -k 2 -s 5 >p.txt 2>p.err ||
	{ echo "predict failed: $(cat p.err)"; exit 1; }
grep -q '^law variables: nprocs -x (merged: -y -z -i equal or collinear' p.txt ||
	{ echo "expected law variables nprocs -x with -y -z -i merged: $(grep 'law variables' p.txt)"; fail=1; }
grep -q 'extrapolated: x4 beyond the largest traced rank count' p.txt ||
	{ echo "expected the answer marked extrapolated x4: $(grep extrapolated p.txt)"; fail=1; }
mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks 8 --nodes 4 --no-residual --json \
	-- ./md.smpi -x 12 -y 12 -z 12 -i 2 -j 2 -k 2 -s 5 >p.json 2>p.err ||
	{ echo "predict --json failed: $(cat p.err)"; exit 1; }
one=$(awk '$2 == "compute" { s += $3 } END { printf "%.9f", s * 1e-9 }' t12-1/rank-0.ti)
ranks_compute_is p.json "$(awk -v o="$one" 'BEGIN { printf "%.9f", o * 1.1 ^ 3 }')" 0.01 \
	"(1.1^3 x the 1-rank work at -x 12)" || fail=1
jq -e --argjson o "$one" '.predicted_s > 0 and .predicted_s < $o' p.json >/dev/null ||
	{ echo "expected an answer below the 1-rank time $one s: $(jq .predicted_s p.json)"; fail=1; }
exit $fail
