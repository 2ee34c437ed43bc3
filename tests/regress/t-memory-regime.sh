#!/usr/bin/env bash
# Issue 15: the memory regime (regress/memory.h) on a campaign in the shape
# of HPCG: a 27-point sparse CG whose grid comes from `--nx=N --ny=N --nz=N`
# and whose iteration count is `--it=I`, at 1 and 2 ranks, N = 32..64
# trained and N = 72 held out. Its time per iteration follows the machine's
# memory curve: each rank's peak memory (mem:peak_rss_kib.mean, 9 MiB of
# code and MPI buffers plus 0.355 KiB per grid point) crosses the curve's
# step between 48 and 192 MiB, as cg's does on the bench machine
# (docs/benchmarks.md). The curve is a machine profile's "memory" object
# (mpipredict-calibrate --levels mem), a step of 2.4x at one rank and
# 2.8x at two, inserted in the store before training.
#
# Asserted:
#   - with the curve, training keeps beta 1 (--json memory.beta), stores
#     it (models.mem_beta, mem_curve, the peak-memory law as param_models
#     idx -5), and answers N = 72 from the job's parameters within 10 % of
#     the rows' law at both rank counts (the footprint from its law: 4.4
#     and 0.2 % when written);
#   - from measured features (mpipredict-predict --features), all 18 held
#     rows with a MAPE under 6 % (4.2 % when written);
#   - without the curve (a store with no profile) the same answers err by
#     more than 20 %: the regime is what carries them;
#   - a compute-bound twin (time per iteration flat) keeps beta 0;
#   - the same code with its grid read from an input deck (args
#     "hpcg.dat NX=64 IT=50", declared as MPIPREDICT_PARAMS gives them)
#     keeps the regime, its peak-memory law is in NX, and NX = 72 is
#     answered within 10 %; with --memory-beta 1 the same holds at 2 ranks
#     and the beta is reported as given;
#   - a setup phase that holds the whole grid on every rank (peak memory
#     2.1-4.5x the solve's footprint, the curve read at the wrong place): a
#     compute-bound code still keeps beta 0 and the flat store's answers, a
#     memory-bound one keeps a regime that answers closer than none from
#     features, and from parameters within 3 points of none;
#   - a profile whose curve is not usable is refused, naming the field,
#     and nothing is stored.
set -u
fail=0
gen() { # $1: 1 = the time follows the curve, 0 = flat; $2: sizes; $3: seed;
	# $4: deck = the sizes from an input deck, declared (hpcg.dat NX=.. IT=..);
	# $5: KiB per point of the whole grid that a setup phase holds on every
	# rank (added to the peak memory, not to the solve's footprint); $6: 1 =
	# the footprint 2.5x at sizes divisible by 16 (blocks allocated whole:
	# not a power law of the size)
	awk -v follow="$1" -v sizes="$2" -v seed="$3" -v deck="${4:-}" -v setup="${5:-0}" -v blocks="${6:-0}" '
	function slow(kib, np,   x0, x1, top) { # the curve below, at kib
		x0 = 48 * 1024; x1 = 192 * 1024; top = (np > 1) ? 2.8 : 2.4
		if (kib <= x0) return 1
		if (kib >= x1) return top
		return exp(log(top) * log(kib / x0) / log(x1 / x0))
	}
	BEGIN {
		srand(seed)
		printf "run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,args"
		printf ",loop:src/ComputeSPMV_ref.cpp:71:5.mean,loop:src/ComputeSYMGS_ref.cpp:84:5.mean"
		printf ",loop:src/ComputeDotProduct_ref.cpp:55:3.mean,loop:src/GenerateProblem_ref.cpp:117:7.mean"
		printf ",call:src/ExchangeHalo.cpp:98:5:MPI_Irecv.mean,mem:peak_rss_kib.mean\n"
		n = split(sizes, Ns, " "); id = 0
		for (rep = 1; rep <= 3; rep++)
		for (a = 1; a <= n; a++)
		for (np = 1; np <= 2; np++)
		for (it = 25; it <= 100; it *= 2) {
			N = Ns[a]; pts = N * N * N / np
			rss = (9 * 1024 + 0.355 * pts) * (blocks && N % 16 == 0 ? 2.5 : 1)
			s = follow ? slow(rss * np, np) : 1
			t = 0.05 + 2.2e-8 * pts * it * s + 5e-8 * pts
			t *= 1 + 0.02 * (2 * rand() - 1)
			if (deck)
				printf "r%d,hpcgdeck,b1,2026-11-28T00:00:%02dZ,,%d,1,%.6f,hpcg.dat NX=%d IT=%d",
					++id, id % 60, np, t, N, it
			else
				printf "r%d,hpcg,b1,2026-11-28T00:00:%02dZ,,%d,1,%.6f,--nx=%d --ny=%d --nz=%d --it=%d",
					++id, id % 60, np, t, N, N, N, it
			printf ",%.0f,%.0f,%.0f,%.0f,%.0f,%.0f\n", 27 * pts * it, 54 * pts * it,
				3 * pts * it, 27 * pts, (np > 1) ? 2 * it : 0,
				(rss + setup * N * N * N) * (1 + 0.002 * rand())
		}
	}'
}
# The truth at N = 72 (no noise), per rank count.
truth() { awk -v np="$1" -v follow="$2" 'BEGIN {
	N = 72; pts = N * N * N / np; rss = 9 * 1024 + 0.355 * pts
	x0 = 48 * 1024; x1 = 192 * 1024; top = (np > 1) ? 2.8 : 2.4; kib = rss * np
	s = kib <= x0 ? 1 : kib >= x1 ? top : exp(log(top) * log(kib / x0) / log(x1 / x0))
	if (!follow) s = 1
	printf "%.6f", 0.05 + 2.2e-8 * pts * 50 * s + 5e-8 * pts }'; }
# The profile: points from 1 MiB to 1 GiB by 2x, the same step.
profile=$(awk 'BEGIN {
	printf "{\"machine\": \"m\", \"created_at\": \"2026-11-28T09:00:00Z\", \"nodes_seen\": 1,"
	printf " \"packages_per_node\": 1, \"cores_per_node\": 2, \"levels\": {\"cmp\": null,"
	printf " \"socket\": null, \"net\": null}, \"missing\": {}, \"memory\": {\"node_kib\": ["
	for (i = 0; i <= 10; i++) printf "%s%d", i ? ", " : "", 1024 * 2 ^ i
	printf "], \"curves\": ["
	for (np = 1; np <= 2; np++) {
		top = (np > 1) ? 2.8 : 2.4
		printf "%s{\"ranks\": %d, \"ns_per_byte\": [", (np > 1) ? ", " : "", np
		for (i = 0; i <= 10; i++) {
			kib = 1024 * 2 ^ i; x0 = 48 * 1024; x1 = 192 * 1024
			s = kib <= x0 ? 1 : kib >= x1 ? top : exp(log(top) * log(kib / x0) / log(x1 / x0))
			printf "%s%.4f", i ? ", " : "", 0.05 * s
		}
		printf "]}"
	}
	printf "]}}" }')
newdb() { # $1: db, $2: profile JSON or empty. A first training (without
	# a profile: no regime) makes the store and its model version 1.
	rm -f "$1"
	mpipredict-train --db "$1" train.csv >/dev/null 2>&1 || { echo "expected a first training to work"; exit 1; }
	[ -n "$2" ] && sqlite3 "$1" "INSERT INTO machine_profiles (machine, created_at, profile) VALUES ('m', 'now', '$2')"
	return 0
}
within() { awk -v p="${1:-0}" -v w="$2" -v tol="$3" 'BEGIN { d = (p - w) / w; exit !(d < tol && d > -tol) }'; }
err_of() { awk -v p="${1:-0}" -v w="$2" 'BEGIN { d = (p - w) / w; printf "%.1f", 100 * (d < 0 ? -d : d) }'; }

gen 1 "32 40 48 56 64" 11 >train.csv
gen 1 "72" 12 >held.csv
newdb curve.db "$profile"
mpipredict-train --db curve.db --json train.csv >train.json 2>err.txt ||
	{ echo "expected training with the curve to work, got: $(cat err.txt)"; exit 1; }
echo "memory: $(jq -c '.models[0].memory' train.json)"
jq -e '.models[0].memory.beta == 1' train.json >/dev/null ||
	{ echo "expected beta 1 (the time follows the curve), got $(jq -c '.models[0].memory' train.json)"; fail=1; }
[ "$(sqlite3 curve.db 'SELECT mem_beta, mem_curve IS NOT NULL FROM models WHERE active = 1')" = "1.0|1" ] ||
	{ echo "expected models.mem_beta 1 and a mem_curve, got $(sqlite3 curve.db 'SELECT mem_beta, length(mem_curve) FROM models')"; fail=1; }
[ "$(sqlite3 curve.db 'SELECT count(*) FROM param_models WHERE idx = -5 AND predictable = 1')" = 1 ] ||
	{ echo "expected the peak-memory law stored as param_models idx -5"; fail=1; }
newdb flat.db ""
mpipredict-train --db flat.db train.csv >/dev/null 2>err.txt ||
	{ echo "expected training without a curve to work, got: $(cat err.txt)"; exit 1; }
for np in 1 2; do
	want=$(truth $np 1)
	p=$(mpipredict-predict --csv --db curve.db --app hpcg --args "--nx=72 --ny=72 --nz=72 --it=50" --ntasks $np 2>/dev/null | tail -n 1 | cut -d, -f2)
	q=$(mpipredict-predict --csv --db flat.db --app hpcg --args "--nx=72 --ny=72 --nz=72 --it=50" --ntasks $np 2>/dev/null | tail -n 1 | cut -d, -f2)
	echo "N = 72, $np rank(s), 50 iterations: the law $want s; with the curve ${p:-none} s ($(err_of "$p" "$want") %), without ${q:-none} s ($(err_of "$q" "$want") %)"
	within "$p" "$want" 0.10 ||
		{ echo "expected the answer from parameters with the curve within 10 % of $want s, got ${p:-none}"; fail=1; }
	within "$q" "$want" 0.20 &&
		{ echo "expected the answer without the curve to err by more than 20 % (the regime carries it), got $q against $want"; fail=1; }
done
# From measured features: every held row, against its own time.
mpipredict-predict --csv --db curve.db --app hpcg --features held.csv 2>/dev/null >pf.csv
got=$(awk -F, 'NR == FNR { if (FNR > 1) t[$1] = $8; next }
	$1 in t { d = ($2 - t[$1]) / t[$1]; e += d < 0 ? -d : d; m++ }
	END { printf "%d %.1f", m, m ? 100 * e / m : 100 }' held.csv pf.csv)
echo "from features: (answered, MAPE %) = $got"
[ "${got% *}" = 18 ] && awk -v e="${got#* }" 'BEGIN { exit !(e < 6) }' ||
	{ echo "expected all 18 held rows answered from features with a MAPE under 6 %, got (answered, MAPE) = $got"; fail=1; }

# A compute-bound twin: the same counters and memory, a flat time per
# iteration: the regime is not kept.
gen 0 "32 40 48 56 64" 13 >flat.csv
newdb twin.db "$profile"
mpipredict-train --db twin.db --json flat.csv >twin.json 2>err.txt ||
	{ echo "expected training the compute-bound twin to work, got: $(cat err.txt)"; exit 1; }
jq -e '.models[0].memory.beta == 0 and (.models[0].memory.held_mape_pct_by_beta[0] | type) == "number"' twin.json >/dev/null ||
	{ echo "expected beta 0 for a time per iteration that does not follow the curve, got $(jq -c '.models[0].memory' twin.json)"; fail=1; }
p=$(mpipredict-predict --csv --db twin.db --app hpcg --args "--nx=72 --ny=72 --nz=72 --it=50" --ntasks 1 2>/dev/null | tail -n 1 | cut -d, -f2)
within "$p" "$(truth 1 0)" 0.08 ||
	{ echo "expected the twin's answer within 8 % of $(truth 1 0) s, got ${p:-none}"; fail=1; }

# The same code reading its grid from an input deck (hpcg.dat), the sizes
# declared as MPIPREDICT_PARAMS gives them: the regime is kept, and the
# answer from the declared parameters holds.
gen 1 "32 40 48 56 64" 17 deck >deck.csv
deck() { # $1: db; $2: ranks; $3: jq test of the memory object; $4...:
	# training options. Trains deck.csv into a fresh $1 with the curve and
	# answers NX = 72 at $2 ranks within 10 %.
	local db=$1 np=$2 want=$3 p
	shift 3
	newdb "$db" "$profile"
	mpipredict-train --db "$db" --json "$@" deck.csv >"$db.json" 2>err.txt ||
		{ echo "expected training the deck campaign $* to work, got: $(cat err.txt)"; exit 1; }
	jq -e ".models[] | select(.app == \"hpcgdeck\") | .memory | $want" "$db.json" >/dev/null ||
		{ echo "expected $want for the deck campaign $*, got $(jq -c '.models[] | select(.app == "hpcgdeck") | .memory' "$db.json")"; fail=1; }
	p=$(mpipredict-predict --csv --db "$db" --app hpcgdeck --args "hpcg.dat NX=72 IT=50" --ntasks "$np" 2>/dev/null | tail -n 1 | cut -d, -f2)
	echo "deck $*, NX = 72, $np rank(s): the law $(truth "$np" 1) s, answered ${p:-none} s ($(err_of "$p" "$(truth "$np" 1)") %)"
	within "$p" "$(truth "$np" 1)" 0.10 ||
		{ echo "expected the deck's answer $* within 10 % of $(truth "$np" 1) s, got ${p:-none}"; fail=1; }
}
deck deck.db 1 '.beta > 0 and .peak_memory_law.expo.NX > 2'
# The same campaign with its beta pinned (--memory-beta 1: this code's time
# follows the curve whole): kept as given, the peak-memory law still in the
# declared NX, and NX = 72 answered within 10 % at 2 ranks.
deck deckb.db 2 '.beta == 1 and .given and .peak_memory_law.expo.NX > 2' --memory-beta 1

# A setup phase larger than the solve: every rank holds the whole grid
# (0.7 KiB per point) while it reads and partitions it, then frees it, as
# codes that read a global mesh before partitioning do. The peak memory is
# the setup's, 2.1-4.5x the solve's footprint, so the curve is read at the
# wrong place. Compute-bound, the regime stays out (the answers are the
# flat store's); memory-bound, it is kept and answers closer than no
# regime at all from features (28.4 against 32.4 %). From parameters at
# N = 72 it is not closer (29.2 and 28.9 % low against 28.5 and 26.7 %),
# and is asserted no more than 3 points farther: the curve read at the
# setup's peak is no better than none there. (Before the edge factor was
# dropped, regress/README.md, that factor made up for the curve read at
# the wrong place: 22.7 and 22.3 % from parameters, 21.8 from features.)
gen 1 "32 40 48 56 64" 19 "" 0.7 >train.csv
gen 1 "72" 20 "" 0.7 >held.csv
newdb setup.db "$profile"
newdb setupflat.db ""
mpipredict-train --db setup.db --json train.csv >setup.json 2>err.txt ||
	{ echo "expected training with a setup phase to work, got: $(cat err.txt)"; exit 1; }
jq -e '.models[0].memory.beta > 0' setup.json >/dev/null ||
	{ echo "expected a regime kept under a setup phase's peak, got $(jq -c '.models[0].memory' setup.json)"; fail=1; }
mpipredict-train --db setupflat.db train.csv >/dev/null 2>&1
feat_mape() { # $1: db; the held rows from features: "answered MAPE"
	mpipredict-predict --csv --db "$1" --app hpcg --features held.csv 2>/dev/null >pf.csv
	awk -F, 'NR == FNR { if (FNR > 1) t[$1] = $8; next }
		$1 in t { d = ($2 - t[$1]) / t[$1]; e += d < 0 ? -d : d; m++ }
		END { printf "%d %.1f", m, m ? 100 * e / m : 100 }' held.csv pf.csv
}
with=$(feat_mape setup.db) without=$(feat_mape setupflat.db)
echo "setup phase, from features (answered, MAPE %): with the curve $with, without $without"
awk -v a="${with#* }" -v b="${without#* }" 'BEGIN { exit !(a < b) }' ||
	{ echo "expected the regime under a setup phase's peak to answer closer than none"; fail=1; }
for np in 1 2; do
	want=$(truth $np 1)
	p=$(mpipredict-predict --csv --db setup.db --app hpcg --args "--nx=72 --ny=72 --nz=72 --it=50" --ntasks $np 2>/dev/null | tail -n 1 | cut -d, -f2)
	q=$(mpipredict-predict --csv --db setupflat.db --app hpcg --args "--nx=72 --ny=72 --nz=72 --it=50" --ntasks $np 2>/dev/null | tail -n 1 | cut -d, -f2)
	echo "setup phase, N = 72, $np rank(s): the law $want s; with the curve ${p:-none} s ($(err_of "$p" "$want") %), without ${q:-none} s ($(err_of "$q" "$want") %)"
	awk -v a="$(err_of "$p" "$want")" -v b="$(err_of "$q" "$want")" 'BEGIN { exit !(a < b + 3) }' ||
		{ echo "expected the answer from parameters with the curve within 3 points of the one without"; fail=1; }
done
gen 0 "32 40 48 56 64" 21 "" 0.7 >train.csv
gen 0 "72" 22 "" 0.7 >held.csv
newdb setup0.db "$profile"
newdb setup0flat.db ""
mpipredict-train --db setup0.db --json train.csv >setup0.json 2>err.txt
mpipredict-train --db setup0flat.db train.csv >/dev/null 2>&1
jq -e '.models[0].memory.beta == 0' setup0.json >/dev/null ||
	{ echo "expected beta 0 for a compute-bound code under a setup phase's peak, got $(jq -c '.models[0].memory' setup0.json)"; fail=1; }
feat_mape setup0.db >/dev/null && cp pf.csv pf-setup0.csv
feat_mape setup0flat.db >/dev/null
cmp -s pf.csv pf-setup0.csv ||
	{ echo "expected the compute-bound code's answers under a setup phase to be the flat store's"; fail=1; }

# A footprint that is not a power law of the size: the regime is chosen,
# then left out (no answer from parameters would follow it), and the model
# and its report are the ones --memory-beta 0 gives (the report's counts
# used to add up over the two trainings: duplicates 4 for 2).
gen 1 "32 40 48 56 64" 11 "" 0 1 >train.csv
newdb blocks.db "$profile"
newdb blocks0.db "$profile"
mpipredict-train --db blocks.db --json train.csv >blocks.json 2>err.txt
mpipredict-train --db blocks0.db --memory-beta 0 --json train.csv >blocks0.json 2>>err.txt
jq -e '.models[0].memory | .beta == 0 and (.none_because | test("not a power law"))' blocks.json >/dev/null ||
	{ echo "expected the regime left out for a footprint that is not a power law, got $(jq -c '.models[0].memory' blocks.json)"; fail=1; }
report() { jq -c '.models[0] | del(.memory, .train_seconds, .version)' "$1"; }
[ "$(report blocks.json)" = "$(report blocks0.json)" ] ||
	{ echo "expected the report after leaving the regime out to be beta 0's, got $(report blocks.json | cut -c1-300) against $(report blocks0.json | cut -c1-300)"; fail=1; }
gen 1 "32 40 48 56 64" 11 >train.csv

# A curve that is not usable: refused, naming the field; nothing stored.
newdb badc.db "$(echo "$profile" | sed 's/"ns_per_byte": \[0.0500/"ns_per_byte": [-1/')"
mpipredict-train --db badc.db train.csv >/dev/null 2>err.txt && { echo "expected a bad curve to be refused"; fail=1; }
grep -q 'memory: ns_per_byte\[0\]\[0\] is not a positive number' err.txt ||
	{ echo "expected the error to name memory ns_per_byte[0][0], got: $(cat err.txt)"; fail=1; }
[ "$(sqlite3 badc.db 'SELECT count(*) FROM models')" = 1 ] || { echo "expected no model stored after the first"; fail=1; }
exit $fail
