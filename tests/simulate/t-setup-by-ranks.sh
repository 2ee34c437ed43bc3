#!/usr/bin/env bash
# Issue 38's stencil (progs/stencil.c): its set-up allocates and fills
# halo buffers, and checks them with an extra MPI_Allreduce, only when it
# runs on more than one rank. Traced at 1 and 2 ranks (-n 512 and 1024),
# predicted at 4 to 1024 ranks for -n 1024. Named by the calls around
# them, the halo's filling (ms) and the loop's two reductions (us) were
# one segment kind "allreduce>allreduce"; its law had a rank-count
# exponent near 10 and the answers went 106 s, 3.9e6 s ... 4.1e20 s, exit
# 0, no warning. Built with -g, the traces carry call sites and the
# segments are matched by them.
# Checked on an exact law (the traces' computation rewritten: each sweep
# 10 ms x (n/512)^2 at 1 rank and 5.5 ms x (n/512)^2 on each rank at 2,
# the halo's filling 5 ms, every other segment 10 us), so that a loaded
# machine moves nothing:
#   - the shape: the set-up ends at the barrier at 1 rank and at the
#     halo's check at 2; the traces have call sites;
#   - every answer finite, non-increasing in the rank count (5 % for the
#     reductions' depth), never above the traced 1-rank time, marked
#     extrapolated with how far; the halo's segment modelled from the
#     2-rank traces and said so;
#   - the same traces without their call sites (matched by names, the
#     old way): the rank-count exponents beyond [0, 1] are capped, with a
#     warning on stderr and exit 0, and the answer is finite and below
#     the 1-rank time.
# --no-residual: the residual per MPI action is the real 2-rank runs'
# (their walls are not rewritten); --no-links: the replay at 1024 ranks
# costs half as much without SimGrid's link tracing.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
src=$MPP_SRC/tests/simulate/progs/stencil.c
# shellcheck disable=SC2086
mpicc -O2 -g ${MPP_TEST_CFLAGS:-} -o stencil.real "$src" -lm -L"$MPP_BUILD/lib" \
	-Wl,-rpath,"$MPP_BUILD/lib" -lmpipredict &&
	smpicc -O2 -g -o stencil.smpi "$src" "$MPP_BUILD/lib/mpp-smpitrace.o" -lm 2>smpicc.err ||
	{ echo "build failed: $(tail -3 smpicc.err)"; exit 1; }
fail=0
law() { # src dst n np: every rank's computation rewritten by what the
	# segment is: the sweep (after the second sendrecv of a step), the
	# halo's filling (allreduce to allreduce before the barrier), other
	mkdir -p "$2"
	cp "$1/meta" "$2/meta"
	for f in "$1"/rank-*.ti; do
		# two passes: sites of the sendrecvs first, then the rewrite
		awk -v n="$3" -v np="$4" '
		  BEGIN { setup = 1 }
		  FNR == NR { if ($1 == "#" && $2 == "@") site = $3 " " $4
		    else if ($2 == "sendrecv") { if (s1 == "") s1 = site; else if (site != s1 && s2 == "") s2 = site }
		    next }
		  { line[FNR] = $0; nm[FNR] = ($1 == "#" ? "#" : $2); st[FNR] = ($1 == "#" && $2 == "@") ? $3 " " $4 : "" }
		  END {
		    for (i = 1; i in line; i++) {
		      if (st[i] != "") site = st[i]
		      if (nm[i] == "#") { print line[i]; continue }
		      if (nm[i] != "compute") {
		        if (nm[i] == "barrier") setup = 0
		        prev = nm[i]; psite = site; print line[i]; continue }
		      for (j = i + 1; nm[j] == "#"; j++) ;
		      w = 1e4
		      if (prev == "sendrecv" && psite == s2)
		        w = (np == 1 ? 1e7 : 5.5e6) * (n / 512) ^ 2
		      else if (setup && prev == "allreduce" && nm[j] == "allreduce")
		        w = 5e6
		      split(line[i], f, " ")
		      printf "%s compute %.0f\n", f[1], w } }' "$f" "$f" >"$2/$(basename "$f")"
	done
}
train=()
for n in 512 1024; do
	for np in 1 2; do
		traced real$n-$np $np ./stencil.real -n $n -s 10
		law real$n-$np t$n-$np $n $np
		train+=(--train "t$n-$np")
	done
done
# the shape
grep -q '^# @ ' real512-1/rank-0.ti ||
	{ echo "expected call sites in the traces of a -g build"; fail=1; }
seq1=$(grep -v -e '^#' -e ' compute ' real512-1/rank-0.ti | awk '{ print $2 }' | head -4 | tr '\n' ' ')
seq2=$(grep -v -e '^#' -e ' compute ' real512-2/rank-0.ti | awk '{ print $2 }' | head -5 | tr '\n' ' ')
[ "$seq1" = "init allreduce barrier sendrecv " ] && [ "$seq2" = "init allreduce allreduce barrier sendrecv " ] ||
	{ echo "expected the set-up's extra allreduce at 2 ranks only: '$seq1' and '$seq2'"; fail=1; }
# the 1-rank time at -n 1024 (rewritten: its computation)
one=$(awk '$2 == "compute" { s += $3 } END { printf "%.6f", s * 1e-9 }' t1024-1/rank-0.ti)
prev=
for p in 4 16 64 256 1024; do
	mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks $p --nodes $((p / 2)) \
		--no-residual --no-links --json -- ./stencil.smpi -n 1024 -s 10 >p$p.json 2>p$p.err ||
		{ echo "predict at $p ranks failed: $(cat p$p.err)"; fail=1; continue; }
	t=$(jq .predicted_s p$p.json)
	echo "$p ranks: $t s (1 rank traced: $one s)"
	awk -v t="$t" -v o="$one" 'BEGIN { exit !(t > 0 && t < 1e30 && t <= o) }' ||
		{ echo "at $p ranks: expected a finite answer no more than the traced 1-rank time $one s, got $t s"; fail=1; }
	[ -z "$prev" ] || awk -v t="$t" -v q="$prev" 'BEGIN { exit !(t <= 1.05 * q) }' ||
		{ echo "at $p ranks: expected no more than the previous rank count's $prev s, got $t s"; fail=1; }
	jq -e --argjson p $p '.extrapolated_ranks == $p / 2' p$p.json >/dev/null ||
		{ echo "at $p ranks: expected extrapolated_ranks $((p / 2)): $(jq .extrapolated_ranks p$p.json)"; fail=1; }
	prev=$t
done
mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks 64 --nodes 32 \
	--no-residual --no-links -- ./stencil.smpi -n 1024 -s 10 >p.txt 2>p.err ||
	{ echo "predict (text) failed: $(cat p.err)"; exit 1; }
for want in "segments matched by the source locations" "from the traces at 2 ranks only" \
	"extrapolated: x32 beyond the largest traced rank count"; do
	grep -q "$want" p.txt || { echo "expected '$want' in the report: $(head -12 p.txt)"; fail=1; }
done
# without call sites: matched by names, capped, said so
for d in t512-1 t512-2 t1024-1 t1024-2; do
	mkdir -p n$d
	cp $d/meta n$d/
	for f in "$d"/rank-*.ti; do grep -v '^# [@o]' "$f" >"n$d/$(basename "$f")"; done
done
mpipredict-simulate predict --profile profile.json --train nt512-1 --train nt512-2 --train nt1024-1 \
	--train nt1024-2 --ranks 64 --nodes 32 --no-residual --no-links --json -- ./stencil.smpi -n 1024 -s 10 \
	>names.json 2>names.err || { echo "predict by names failed: $(cat names.err)"; exit 1; }
grep -q "warning: .*rank-count exponent .* capped" names.err ||
	{ echo "expected a warning that rank-count exponents were capped: $(cat names.err)"; fail=1; }
jq -e --argjson o "$one" '.predicted_s > 0 and .predicted_s <= $o and .capped' names.json >/dev/null ||
	{ echo "matched by names: expected a capped answer below $one s: $(jq -c '{predicted_s,capped}' names.json)"; fail=1; }
exit $fail
