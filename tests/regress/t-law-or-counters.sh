#!/usr/bin/env bash
# Issue 15, requirement 3: which of the two parameters paths answers, the
# counters' power laws or the run-time law, must not flip on noise. The law
# is chosen only when, on the same held-out runs, it beats the counters by
# more than one standard error of the paired difference.
#
# 1. A near tie (gen-md, seed 6: a force counter ~ s^3 n and a halo
#    counter ~ s^2.1 n share the run time, 5 % noise). The law's CV error
#    is 0.01 points below the counters', with a standard error of 0.13;
#    the rule "lower wins" took the law, which then erred 9.7 % on sizes
#    48-64 never run, against 3.2 % for the counters. Asserted: the
#    counters answer, the tie is reported as such, and the error at 48-64
#    is under 5 %.
# 2. The law clearly better: a solver whose cost per iteration grows with
#    the grid (cache misses: time ~ n^2.5 steps) while its loop counts
#    n^2 steps iterations, as cg's does on this machine. Its sizes come
#    from an input deck, declared (MPIPREDICT_PARAMS="N=.. STEPS=..": the
#    collector appends them to the row's args after the deck's name).
#    Every counter path is biased; the law's exponent follows the time.
#    Asserted: the law answers, its paired gain is larger than its
#    standard error, and it predicts a size in range within 3 %.
set -u
gen=$MPP_BUILD/tests/regress/gen-md
fail=0

"$gen" --runs 12 --seed 999 --first 100000 --noise 0 --ranks-levels 1 --smin 48 --smax 64 >far.csv || exit 1
"$gen" --runs 40 --seed 6 --noise 0.05 --ranks-levels 1 --smin 16 --smax 32 >md.csv || exit 1
mpipredict-train --db md.db --json md.csv >md.json 2>err.txt ||
	{ echo "md: expected training to succeed, got: $(cat err.txt)"; exit 1; }
jq -e '.models[0] | .params_basis == "parameters" and .law_vs_counters.runs == 40 and
	.law_vs_counters.mean_diff_pct < 0 and -.law_vs_counters.mean_diff_pct <= .law_vs_counters.se_pct' md.json >/dev/null ||
	{ echo "md: expected the counters to answer on a near tie (law ahead by less than its standard error), got $(jq -c '.models[0] | {params_basis, law_vs_counters}' md.json)"; fail=1; }
tail -n +2 far.csv | while IFS=, read -r _ _ _ _ _ np _ y args _; do
	printf '%s %s\n' "$(mpipredict-predict --csv --db md.db --app md --args "$args" --ntasks "$np" 2>/dev/null | tail -n 1 | cut -d, -f2)" "$y"
done >far.txt
err=$(awk '$1 > 0 { e = ($1 - $2) / $2; if (e < 0) e = -e; s += e; n++ } END { if (n == 12) printf "%.2f", 100 * s / n; else print "missing" }' far.txt)
awk -v e="$err" 'BEGIN { exit !(e != "missing" && e < 5) }' ||
	{ echo "md: expected the error from parameters at sizes 48-64 under 5 %, got $err %"; fail=1; }

hdr='run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args,loop:solver.c:40:5.mean,loop:init.c:12:3.mean'
awk -v hdr="$hdr" 'BEGIN {
	print hdr
	s = 9001
	for (i = 1; i <= 40; i++) {
		s = (s * 1103515245 + 12345) % 2147483648; n = 100 + 10 * (s % 31)
		s = (s * 1103515245 + 12345) % 2147483648; st = 10 + s % 41
		s = (s * 1103515245 + 12345) % 2147483648; u = (s % 1000) / 1000 - 0.5
		y = (0.2 + 4e-8 * n ^ 2.5 * st) * (1 + 0.02 * u)
		printf "r%d,solver,b1,t,,1,1,%.9f,solver.dat N=%d STEPS=%d,%d,%d\n", i, y, n, st, n * n * st, n * n
	}
}' >solver.csv
mpipredict-train --db solver.db --json solver.csv >solver.json 2>err.txt ||
	{ echo "solver: expected training to succeed, got: $(cat err.txt)"; exit 1; }
jq -e '.models[0] | .params_basis == "runtime-law" and .law_vs_counters.runs > 0 and
	-.law_vs_counters.mean_diff_pct > .law_vs_counters.se_pct' solver.json >/dev/null ||
	{ echo "solver: expected the run-time law, clearly better than the counters, got $(jq -c '.models[0] | {params_basis, law_vs_counters}' solver.json)"; fail=1; }
truth=$(awk 'BEGIN { printf "%.9f", 0.2 + 4e-8 * 255 ^ 2.5 * 33 }')
got=$(mpipredict-predict --csv --db solver.db --app solver --args "solver.dat N=255 STEPS=33" --ntasks 1 2>/dev/null | tail -n 1 | cut -d, -f2)
awk -v p="$got" -v t="$truth" 'BEGIN { e = (p - t) / t; if (e < 0) e = -e; exit !(p > 0 && e < 0.03) }' ||
	{ echo "solver: expected N=255 STEPS=33 within 3 % of $truth s, got '$got'"; fail=1; }
exit $fail
