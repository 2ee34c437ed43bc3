#!/usr/bin/env bash
# mem:peak_rss_kib is each rank's peak resident memory, in KiB, in a code
# that writes its output through the root (progs/gather_io.c): every rank
# holds a part of M MiB, rank 0 gathers the whole field (n x M MiB) and
# frees it before MPI_Finalize. Runs at M = 16 and 64 MiB, 2 and 3 ranks,
# OpenMPI and MPICH; the MPI library's own memory cancels in the
# differences, which must be, within 15 % (30 % above under ASan's shadow):
#   max:  rank 0 grows by (1 + n) x 48 MiB (its part and the whole field:
#         a measure taken at MPI_Finalize, not the peak, would miss the
#         freed field and see 48);
#   mean: (n + 1 + n - 1) / n x 48 = 2 x 48 MiB, whatever n.
# Also: mpipredict-report prints the peak per rank and gives it in --json,
# and says "not recorded" for rows of a collector before the column.
. "$MPP_SRC/tests/collector/lib.sh"

hi=1.15
[ "${MPP_SANITIZE:-0}" = 1 ] && hi=1.30
near() { # got want what
	awk -v g="$1" -v w="$2" -v hi="$hi" 'BEGIN { exit !(g != "" && g >= 0.85 * w && g <= hi * w) }' ||
		fail "$mpi n=$n: expected $3 near $2 KiB, got '$1'"
}

for m in $MPIS; do
	use_mpi "$m"
	build gather_io "$progs/gather_io.c"
	for n in 2 3; do
		rm -rf runs
		for mib in 16 64; do
			MPIPREDICT_RUNS=runs/ run $n ./gather_io $mib >out 2>&1 ||
				{ fail "$m n=$n M=$mib: gather_io exited with $?: $(tail -2 out)"; continue 2; }
		done
		[ "$(csvget runs/gather_io.csv)" = 2 ] || { fail "$m n=$n: expected two rows"; continue; }
		mapfile -t a < <(csvget runs/gather_io.csv 1 mem:peak_rss_kib.mean mem:peak_rss_kib.max)
		mapfile -t b < <(csvget runs/gather_io.csv 2 mem:peak_rss_kib.mean mem:peak_rss_kib.max)
		near "$((b[1] - a[1]))" $(((1 + n) * 48 * 1024)) "rank 0's peak to grow by (1 + $n) x 48 MiB"
		near "$(awk -v x="${b[0]}" -v y="${a[0]}" 'BEGIN { print x - y }')" $((2 * 48 * 1024)) \
			"the mean peak to grow by 2 x 48 MiB"
		# every rank holds at least its own part
		awk -v x="${b[0]}" 'BEGIN { exit !(x >= 64 * 1024) }' ||
			fail "$m n=$n: expected a mean peak of at least 64 MiB at M = 64, got ${b[0]} KiB"
	done
done

# The report: the last row (3 ranks, MPICH or OpenMPI, M = 64), in MiB.
mpipredict-report runs/gather_io.csv --json >r.json 2>err.txt || fail "report exited with $?: $(cat err.txt)"
[ "$(jq -r '.peak_rss_mib.max * 1024 | floor' r.json)" = "$(csvget runs/gather_io.csv 2 mem:peak_rss_kib.max)" ] ||
	fail "expected --json peak_rss_mib.max = the row's KiB / 1024, got $(jq -c .peak_rss_mib r.json)"
mpipredict-report runs/gather_io.csv >r.txt 2>err.txt || fail "text report exited with $?: $(cat err.txt)"
grep -q "^  peak memory per rank: mean [0-9.]* MiB, max [0-9.]* MiB" r.txt ||
	fail "expected the text report's peak memory line, got: $(grep -i memory r.txt)"
# Rows of a collector before the column (tests/regress/data: cg runs of
# 2026-11): the report says so rather than print a number.
mpipredict-report "$MPP_SRC/tests/regress/data/cg-train.csv" >old.txt 2>err.txt ||
	fail "report of older rows exited with $?: $(cat err.txt)"
grep -q "^  peak memory per rank: not recorded" old.txt ||
	fail "expected 'not recorded' for rows without mem:peak_rss_kib, got: $(grep -i memory old.txt)"
[ "$(mpipredict-report "$MPP_SRC/tests/regress/data/cg-train.csv" --json | jq -c .peak_rss_mib)" = '{"mean":null,"max":null}' ] ||
	fail "expected null peak_rss_mib in --json for older rows"
finish
