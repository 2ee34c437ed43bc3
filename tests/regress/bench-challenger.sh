#!/usr/bin/env bash
# make bench-challenger: the champion and challenger rule against the
# issue's goals (0 drifted or worse challengers promoted by themselves; a
# better challenger promoted within one retrain), on synthetic runs of a
# known law (gen-runs) over several seeds. Per seed (150 runs of one code,
# noise 5 %), from a first model on the first 30:
#   better  the next 30 runs too: should be promoted;
#   worse   the same runs, one term kept (--target 1): should not;
#   drift   the other 90 runs with every run time x10 (a new machine,
#           broken rows): should be held as a drift, not promoted;
#   slower  the same, x1.5: reported (a move under the drift factor of 2
#           is not a drift; the rule on MAPE decides);
#   weak    from a first model on 12 runs only, all 150: should be
#           promoted (a poor champion's errors are not a drift).
# Prints one line per seed and the counts against the goals. Not a test:
# it prints figures and exits 0 unless a command fails.
set -eu
build=${MPP_BUILD:?}
seeds=${MPP_BENCH_SEEDS:-8}
dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-challenger.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir"
gen=$build/tests/regress/gen-runs
train=$build/bin/mpipredict-train
outcome() { # DB FILES/OPTIONS...: the kind of the last event
	local db=$1
	shift
	"$train" --db "$db" --challenger "$@" >/dev/null 2>>train.err
	sqlite3 "$db" "SELECT kind FROM model_events ORDER BY id DESC LIMIT 1"
}
scale() { awk -F, -v k="$1" 'BEGIN { OFS = "," } NR > 1 { $8 = $8 * k } { print }'; }
declare -A n
echo "bench-challenger: $seeds seeds, margin 2 points; $(nproc) CPUs"
printf '%-5s %-9s %-9s %-9s %-9s %-9s\n' seed better worse drift slower weak
for s in $(seq 1 "$seeds"); do
	# One code (one seed: the same columns), its runs split in turn.
	"$gen" --runs 150 --features 40 --noise 0.05 --seed "$s" >all.csv
	head -n 31 all.csv >a.csv
	{ head -n 1 all.csv; sed -n 32,61p all.csv; } >b.csv
	{ head -n 1 all.csv; sed -n '62,$p' all.csv; } >new.csv
	scale 10 <new.csv >x10.csv
	scale 1.5 <new.csv >x15.csv
	rm -f m.db
	first=$(outcome m.db a.csv)
	[ "$first" = promoted ] || { echo "seed $s: the first model was $first"; exit 1; }
	cp m.db first.db
	better=$(outcome m.db a.csv b.csv)
	worse=$(outcome m.db a.csv b.csv --target 1)
	cp first.db d.db
	drift=$(outcome d.db a.csv x10.csv)
	cp first.db w.db
	slower=$(outcome w.db a.csv x15.csv)
	head -n 13 all.csv >few.csv
	rm -f k.db
	outcome k.db few.csv >/dev/null
	weak=$(outcome k.db all.csv)
	printf '%-5s %-9s %-9s %-9s %-9s %-9s\n' "$s" "$better" "$worse" "$drift" "$slower" "$weak"
	for k in better:$better worse:$worse drift:$drift slower:$slower weak:$weak; do
		n[$k]=$((${n[$k]:-0} + 1))
	done
done
echo "better challengers promoted: ${n[better:promoted]:-0}/$seeds (goal $seeds)"
echo "worse challengers promoted: ${n[worse:promoted]:-0}/$seeds (goal 0)"
echo "x10 challengers promoted: ${n[drift:promoted]:-0}/$seeds (goal 0), held as drift ${n[drift:drift]:-0}"
echo "x1.5 challengers: promoted ${n[slower:promoted]:-0}, drift ${n[slower:drift]:-0}, rejected ${n[slower:rejected]:-0}"
echo "challengers of a weak champion (12 runs) promoted: ${n[weak:promoted]:-0}/$seeds (goal $seeds)"
