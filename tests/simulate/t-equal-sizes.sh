#!/usr/bin/env bash
# A code with three size arguments always given equal (progs/md.c with
# -x = -y = -z), traced at 1 rank at 8, 12 and 16, predicted at 2 ranks
# for 24: one law variable, -x, the others named as merged (they were
# three variables of a singular fit, silently). Checked on an exact law
# (every segment 10 us or, the force loop, 1 ms, times (x/8)^3): the
# ranks' computation at 24 is the 1-rank work at 8 times 27 (to 0.5 %).
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog md
fail=0
train=()
for x in 8 12 16; do
	traced real$x 1 ./md.real -x $x -y $x -z $x -s 5
	mkdir -p t$x
	cp real$x/meta t$x/meta
	awk -v x="$x" '{ line[NR] = $0; nm[NR] = ($1 == "#" ? "#" : $2) }
	  END { for (i = 1; i <= NR; i++) {
	    if (nm[i] != "compute") { if (nm[i] != "#") prev = nm[i]; print line[i]; continue }
	    for (j = i + 1; nm[j] == "#"; j++) ;
	    split(line[i], f, " ")
	    printf "%s compute %.0f\n", f[1], (prev == "sendrecv" && nm[j] == "allreduce" ? 1e6 : 1e4) * (x / 8) ^ 3 } }' \
		real$x/rank-0.ti >t$x/rank-0.ti
	train+=(--train "t$x")
done
mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks 2 --no-residual \
	-- ./md.smpi -x 24 -y 24 -z 24 -i 2 -s 5 >p.txt 2>p.err ||
	{ echo "predict failed: $(cat p.err)"; exit 1; }
grep -q '^law variables: -x (merged: -y -z equal or collinear' p.txt ||
	{ echo "expected one law variable, -x, with -y -z merged: $(grep 'law variables' p.txt)"; fail=1; }
mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks 2 --no-residual --json \
	-- ./md.smpi -x 24 -y 24 -z 24 -i 2 -s 5 >p.json 2>p.err ||
	{ echo "predict --json failed: $(cat p.err)"; exit 1; }
ranks_compute_is p.json "$(awk '$2 == "compute" { s += $3 } END { printf "%.9f", s * 1e-9 * 27 }' t8/rank-0.ti)" \
	0.005 "(27 x the 1-rank work at 8)" || fail=1
exit $fail
