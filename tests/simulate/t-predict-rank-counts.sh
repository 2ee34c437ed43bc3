#!/usr/bin/env bash
# mpipredict-simulate predict from traces taken at other rank counts than
# one, on laws known exactly (the real jacobi3d traces' structure, their
# computation rewritten; timing noise cannot move the expected values):
#   A. trained on 2-rank traces only (-n 24, 32, 40; every segment of every
#      rank 0.5 ms x (n/24)^3): at -n 48 on 2 ranks each segment is 4 ms
#      per rank, 2 x N x 4 ms in all. A 2-rank trace read as single-rank
#      work would be halved again (the defect this guards against).
#   B. trained on 1-rank traces (1 ms x (n/24)^3 per segment) and 2-rank
#      ones (0.6 ms x (n/24)^3 per segment and rank: the decomposition
#      costs 20 % more work): the rank count is a law variable ("nprocs"
#      in the report), and at -n 48 on 2 ranks the work is 1.2 x the
#      single-rank work, 2 x N x 4.8 ms, not the 2 x N x 4 ms work
#      conservation would give.
# N: computation segments per rank of a 2-rank run (same for 1 rank: the
# program posts its halo messages to MPI_PROC_NULL).
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_real jacobi3d && build_smpi jacobi3d || { echo "build failed: $(cat smpicc.err)"; exit 1; }
for np in 1 2; do
	MPIPREDICT_TRACE=real$np mpirun -np $np ./jacobi3d.real -n 24 -i 4 >/dev/null 2>err.txt ||
		{ echo "trace run at $np ranks failed: $(tail -3 err.txt)"; exit 1; }
done
law() { # np per-segment-ms n dir: the real np-rank trace, rewritten
	mkdir -p "$4"
	sed "s/^args .*/args -n $3 -i 4/" "real$1/meta" >"$4/meta"
	for f in "real$1"/rank-*.ti; do
		awk -v ms="$2" -v n="$3" '$2 == "compute" { printf "%s compute %.0f\n", $1, 1e6 * ms * (n / 24) ^ 3; next } { print }' \
			"$f" >"$4/$(basename "$f")"
	done
}
N=$(grep -c ' compute ' real2/rank-0.ti)
[ "$N" = "$(grep -c ' compute ' real1/rank-0.ti)" ] ||
	{ echo "expected the same segments per rank at 1 and 2 ranks: $N and $(grep -c ' compute ' real1/rank-0.ti)"; exit 1; }
a=() b=()
for n in 24 32 40; do
	law 2 0.5 $n a$n && a+=(--train a$n)
	law 1 1 $n b1-$n && law 2 0.6 $n b2-$n && b+=(--train b1-$n --train b2-$n)
done
fail=0
mpipredict-simulate predict --profile profile.json "${a[@]}" --ranks 2 --json \
	--skeleton "$PWD/sk" -- ./jacobi3d.smpi -n 48 -i 4 >a.json 2>err.txt ||
	{ echo "A: predict failed: $(cat err.txt)"; exit 1; }
ranks_compute_is a.json "$(echo "2 * $N * 0.004" | bc)" 0.001 "(A, 2-rank traces)" || fail=1
mpipredict-simulate predict --profile profile.json "${b[@]}" --ranks 2 \
	--skeleton "$PWD/sk" -- ./jacobi3d.smpi -n 48 -i 4 >b.txt 2>err.txt ||
	{ echo "B: predict (text) failed: $(cat err.txt)"; exit 1; }
grep -q '^law variables:.* nprocs' b.txt && grep -q '^law variables:.* -n' b.txt ||
	{ echo "B: expected -n and nprocs as law variables: $(grep '^law' b.txt)"; fail=1; }
mpipredict-simulate predict --profile profile.json "${b[@]}" --ranks 2 --json \
	--skeleton "$PWD/sk" -- ./jacobi3d.smpi -n 48 -i 4 >b.json 2>err.txt ||
	{ echo "B: predict failed: $(cat err.txt)"; exit 1; }
ranks_compute_is b.json "$(echo "2 * $N * 0.0048" | bc)" 0.001 "(B, 1- and 2-rank traces)" || fail=1
exit $fail
