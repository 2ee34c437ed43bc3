#!/usr/bin/env bash
# predict --runs: the computation's total from counted work. A program in
# HPL's shape (progs/lu.c: N and NB from an input deck, declared with
# MPIPREDICT_PARAMS), built with mpipredict-cc so that its run rows carry
# loop counters, traced at 2 ranks on three decks. The traces' computation
# is rewritten to a known cost per counted unit that grows with the deck
# (1.0, 1.3, 1.6 ns: data leaving a cache) and, by the test's premise,
# stays at the largest deck's beyond it. Checked, none of it depending on
# this machine's timing:
#   - with --runs, the ranks' predicted computation is the target's counted
#     work (its own instrumented run, made after the prediction) times the
#     largest deck's 1.6 ns, to 3 % (the counters' power law in N errs a
#     little: lu's loops are not one power of N);
#   - without it, the time law carries the growth on and predicts more
#     (at least 10 % more here);
#   - the report names the deck the cost came from, and work_factor < 1;
#   - rows that lack one training deck: nothing changes (work_factor 1,
#     said in the report); a --runs file that does not exist: exit 1,
#     naming it.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
export OMPI_MCA_mpi_yield_when_idle=1
write_profile profile.json
MPP_REAL_CC="mpipredict-cc mpicc" build_prog lu
deck() { # N NB -> dN-NB.in
	printf 'HPL-like input deck for lu.c\nN  = %s\nNB = %s\n' "$1" "$2" >"d$1-$2.in"
}
# work N: the run row's counted work (loop counters' means summed, times
# the ranks), from runs/lu.real.csv
work() {
	awk -F, -v a="d$1-16.in N=$1 NB=16" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i ~ /^loop:.*\.mean$/) c[i] = 1; next }
		$9 == a && $6 == 2 { w = 0; for (i in c) w += $i; print w * $6; exit }' runs/lu.real.csv
}
fail=0 train=()
declare -A cost=([96]=1.0 [128]=1.3 [160]=1.6)
for n in 96 128 160; do
	deck "$n" 16
	MPIPREDICT_PARAMS="N=$n NB=16" MPIPREDICT_RUNS=$PWD/runs/ MPIPREDICT_TRACE=real$n \
		mpirun -np 2 ./lu.real "d$n-16.in" >/dev/null 2>err.txt ||
		{ echo "trace run at N=$n failed: $(tail -3 err.txt)"; exit 1; }
	w=$(work "$n")
	[ -n "$w" ] && awk -v w="$w" 'BEGIN { exit !(w > 0) }' ||
		{ echo "N=$n: expected a run row with loop counters, got '$w'"; exit 1; }
	# every compute line scaled so that the run's computation is
	# cost x counted work
	t=$(cat real$n/rank-*.ti | awk '$2 == "compute" { s += $3 } END { print s }')
	mkdir -p "t$n"
	cp "real$n/meta" "t$n/meta"
	for f in real$n/rank-*.ti; do
		awk -v k="$(awk -v c="${cost[$n]}" -v w="$w" -v t="$t" 'BEGIN { print c * w / t }')" \
			'$2 == "compute" { printf "%s compute %.0f\n", $1, $3 * k; next } { print }' "$f" >"t$n/${f##*/}"
	done
	train+=(--train "t$n")
done
deck 224 16
pred() { MPIPREDICT_PARAMS="N=224 NB=16" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --json --no-noise --skeleton "$PWD/sk" "$@" -- ./lu.smpi d224-16.in; }
pred --runs runs/lu.real.csv >w.json 2>err.txt || { echo "predict --runs failed: $(cat err.txt)"; exit 1; }
pred >l.json 2>err.txt || { echo "predict failed: $(cat err.txt)"; exit 1; }
# the target's counted work, from its own instrumented run (after the
# predictions)
MPIPREDICT_PARAMS="N=224 NB=16" MPIPREDICT_RUNS=$PWD/runs/ mpirun -np 2 ./lu.real d224-16.in >/dev/null 2>err.txt ||
	{ echo "target run failed: $(tail -3 err.txt)"; exit 1; }
want=$(awk -v w="$(work 224)" 'BEGIN { printf "%.6f", w * 1.6e-9 }')
got=$(jq '[.ranks[].compute_s] | add' w.json)
law=$(jq '[.ranks[].compute_s] | add' l.json)
awk -v g="$got" -v w="$want" 'BEGIN { d = (g - w) / w; exit !(d < 0.03 && d > -0.03) }' ||
	{ echo "--runs: expected the ranks' computation within 3 % of counted work x 1.6 ns = $want s, got $got s"; fail=1; }
awk -v l="$law" -v g="$got" 'BEGIN { exit !(l > 1.1 * g) }' ||
	{ echo "expected the time law to carry the cost's growth on (> 1.1 x $got s), got $law s"; fail=1; }
jq -e '.work_factor < 1' w.json >/dev/null && jq -e '.work_factor == null' l.json >/dev/null ||
	{ echo "expected work_factor < 1 with --runs and null without, got $(jq .work_factor w.json) and $(jq .work_factor l.json)"; fail=1; }
MPIPREDICT_PARAMS="N=224 NB=16" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --no-noise --skeleton "$PWD/sk" --runs runs/lu.real.csv -- ./lu.smpi d224-16.in >w.txt 2>err.txt ||
	{ echo "predict --runs (text) failed: $(cat err.txt)"; exit 1; }
grep -q "per unit from 'd160-16.in N=160 NB=16' at 2 ranks" w.txt ||
	{ echo "expected the report to name the deck the cost came from, got: $(grep 'counted work' w.txt)"; fail=1; }
# rows of two decks only: the third's work is unknown, nothing changes
awk -F, 'NR == 1 || $9 !~ /N=160 /' runs/lu.real.csv >two.csv
pred --runs two.csv >two.json 2>err.txt || { echo "predict --runs two.csv failed: $(cat err.txt)"; exit 1; }
jq -e '.work_factor == 1' two.json >/dev/null &&
	awk -v a="$(jq '[.ranks[].compute_s] | add' two.json)" -v b="$law" 'BEGIN { d = a - b; exit !(d < 1e-6 && d > -1e-6) }' ||
	{ echo "rows lacking a deck: expected work_factor 1 and the law's computation ($law s), got $(jq .work_factor two.json), $(jq '[.ranks[].compute_s] | add' two.json) s"; fail=1; }
pred --runs nosuch.csv >/dev/null 2>err.txt
rc=$?
[ $rc = 1 ] && grep -q "nosuch.csv" err.txt ||
	{ echo "--runs nosuch.csv: expected exit 1 naming the file, got $rc: $(cat err.txt)"; fail=1; }
exit $fail
