#!/usr/bin/env bash
# make bench-history-grid: the SC'15 study's selection, redone. The study
# (Gaussier, Glesser, Reis, Trystram) ran its online learner over a grid
# of losses, weights and correctors on each trace and published the best
# on KTH-SP2 (AVEbsld 45.80). This replays the same grid with our
# implementation of that learner (`--pred online`, history/nag.c):
#   over and under side each one of abs:1, abs:100, abs:10000, square:1,
#   square:100, square:10000, exp:0.0001, exp:1e-05 (64 pairs); threshold
#   0, 60, 600 s; the five weights; three correctors: 2,880 replays of the
#   whole trace, and as many of each half (jobs 1-14,240 and the rest),
# then prints:
#   - the best of the grid in hindsight and the distribution;
#   - the study's best configuration in our replay;
#   - an honest choice: the configuration best on the first half, scored
#     on the second half, against Tsafrir's and ours' on the same half;
#   - how well a configuration's rank on one half predicts its rank on
#     the other (Spearman).
# About 20 minutes on 2 cores (0.15-0.3 s per replay). Results are kept in
# build/bench/history-grid/.
#
# A site's own trace: TRACE=FILE (SWF, plain or .xz) and PROCS=N (its
# machine size, default 100), e.g. to choose the loss for
# `mpipredictd --history online --history-loss` on the first half of its
# own jobs and see what it is worth on the second.
set -u
bin=$MPP_BUILD/bin/mpipredict-replay
src=$(cd "$(dirname "$0")" && pwd)
out=$MPP_BUILD/bench/history-grid
trace=${TRACE:-$src/KTH-SP2-filtered.swf.xz}
procs=${PROCS:-100}
mkdir -p "$out"
case $trace in
*.xz) xz -dc "$trace" > "$out/all.swf" ;;
*) cat "$trace" > "$out/all.swf" ;;
esac || { echo "cannot read $trace"; exit 1; }
grep '^;' "$out/all.swf" > "$out/head.txt"
njobs=$(grep -vc '^;' "$out/all.swf")
half=$((njobs / 2))
{ cat "$out/head.txt"; grep -v '^;' "$out/all.swf" | head -n "$half"; } > "$out/h1.swf"
{ cat "$out/head.txt"; grep -v '^;' "$out/all.swf" | tail -n +"$((half + 1))"; } > "$out/h2.swf"

sides="abs:1 abs:100 abs:10000 square:1 square:100 square:10000 exp:0.0001 exp:1e-05"
: > "$out/specs.txt"
for o in $sides; do for u in $sides; do for t in 0 60 600; do
	for w in 1 5logrm 5logmr 11log1rm 1logmr; do
		for c in steps request double; do
			echo "$o/$u/$t/$w $c" >> "$out/specs.txt"
		done
	done
done; done; done

run_grid() { # trace name
	xargs -P "$(nproc)" -L1 sh -c \
		'"$0" --procs "$4" --scheduler easy++ --pred online --loss "$1" \
		   --corrector "$2" "$3" | sed "s|^|$1 $2 |"' "$bin" \
		< <(sed "s|\$| $out/$1.swf $procs|" "$out/specs.txt") \
		> "$out/grid-$1.txt" || { echo "grid on $1: a replay failed"; exit 1; }
}
for t in all h1 h2; do
	echo "grid on $t: $(wc -l < "$out/specs.txt") replays..."
	run_grid "$t"
	for p in "tsafrir --corrector steps" "ours --corrector request" \
		 "learned --corrector request" "clairvoyant"; do
		echo "$p $("$bin" --procs "$procs" --scheduler easy++ --pred $p "$out/$t.swf")"
	done > "$out/base-$t.txt"
done

python3 - "$out" "$(basename "$trace"), $njobs jobs, $procs processors" <<'EOF'
import math, sys
out = sys.argv[1]

def figures(line):
    f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
    return float(f["avebsld"]), float(f["mae_s"])

def grid(name):
    g = {}
    for line in open(f"{out}/grid-{name}.txt"):
        p = line.split()
        g[p[0] + " " + p[1]] = figures(line)
    return g

def base(name):
    b = {}
    for line in open(f"{out}/base-{name}.txt"):
        b[line.split(" easy++")[0]] = figures(line)
    return b

W, H1, H2 = grid("all"), grid("h1"), grid("h2")
BW, B1, B2 = base("all"), base("h1"), base("h2")
keys = sorted(set(W) & set(H1) & set(H2))
vals = sorted(W[k][0] for k in keys)
pct = lambda q: vals[min(len(vals) - 1, int(q * len(vals)))]
best = min(keys, key=lambda k: W[k][0])
print(f"\n{len(keys)} configurations, EASY++, {sys.argv[2]}")
print(f"AVEbsld over the grid: best {vals[0]:.2f}, 10th percentile {pct(0.1):.2f}, "
      f"median {pct(0.5):.2f}, worst {vals[-1]:.2f}")
print(f"best in hindsight: {best}: AVEbsld {W[best][0]:.2f}, MAE {W[best][1]:.0f} s")
study = "square:100/abs:1/60/1 steps"
if study in W:
    print(f"the study's best on KTH-SP2 ({study}; 45.80 there, in its simulator): "
          f"AVEbsld {W[study][0]:.2f}, MAE {W[study][1]:.0f} s")

def rank(v):
    order = sorted(range(len(v)), key=lambda i: v[i])
    r = [0] * len(v)
    for pos, i in enumerate(order):
        r[i] = pos
    return r
a, b = rank([H1[k][0] for k in keys]), rank([H2[k][0] for k in keys])
m = (len(keys) - 1) / 2
rho = sum((x - m) * (y - m) for x, y in zip(a, b)) / math.sqrt(
    sum((x - m) ** 2 for x in a) * sum((y - m) ** 2 for y in b))
print(f"rank of a configuration on one half against the other: Spearman {rho:.2f}")

pick = min(keys, key=lambda k: H1[k][0])
print(f"\nchosen on the first half: {pick} (first half {H1[pick][0]:.2f})")
print(f"{'on the second half':44s} {'AVEbsld':>8s} {'MAE s':>8s}")
print(f"{'  the chosen configuration':44s} {H2[pick][0]:8.2f} {H2[pick][1]:8.0f}")
for name, label in (("tsafrir --corrector steps", "Tsafrir, step corrections"),
                    ("ours --corrector request", "ours, corrected to the request"),
                    ("learned --corrector request", "learned, corrected to the request"),
                    ("clairvoyant", "clairvoyant")):
    print(f"  {label:42s} {B2[name][0]:8.2f} {B2[name][1]:8.0f}")
print(f"{'the chosen configuration, whole trace':44s} {W[pick][0]:8.2f} {W[pick][1]:8.0f}")
print(f"{'ours, corrected to the request, whole trace':44s} "
      f"{BW['ours --corrector request'][0]:8.2f} {BW['ours --corrector request'][1]:8.0f}")
EOF
