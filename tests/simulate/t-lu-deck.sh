#!/usr/bin/env bash
# A program in the shape of HPL (progs/lu.c: N and NB from an input deck
# like HPL.dat, block-cyclic columns, in every step the panel's owner
# broadcasts it from a root that rotates with the step, root = step % P;
# a final Allreduce of a checksum), traced at 1 rank at three decks and
# predicted at 2 ranks for a fourth deck never run before the prediction.
# The sizes reach the per-segment laws through MPIPREDICT_PARAMS. Checked,
# none of it depending on this shared machine's timing:
#   - the prediction's skeleton has exactly the real 2-rank run's bcasts
#     (run afterwards), rank by rank: their count (ceil(N/NB), not one of
#     the training decks'), sizes and roots, and the roots are the world
#     ranks 0 1 0 1 ... (the trace writes a bcast as "bcast <bytes>
#     <root>", the root as an MPI_COMM_WORLD rank, which SimGrid's replay
#     reads as the root);
#   - with the traces' computation rewritten to an exact law (every
#     segment 1 ms x (N/96)^2 x (NB/16)), the ranks' predicted
#     computation is the law's single-rank work at N = 160, NB = 24 for
#     the target's segments (to 0.5 %);
#   - the real 2-rank trace replays with no approximated action;
#   - the program prints the same line at 1 and 2 ranks.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
export OMPI_MCA_mpi_yield_when_idle=1
write_profile profile.json
build_prog lu
deck() { # N NB -> dN-NB.in, in HPL.dat's manner: a title, comments, keys
	printf 'HPL-like input deck for lu.c\n# problem size and block size\nN  = %s\nNB = %s    # columns per block\n' \
		"$1" "$2" >"d$1-$2.in"
}
law() { awk -v n="$1" -v b="$2" 'BEGIN { printf "%.0f\n", 1e6 * (n / 96) ^ 2 * (b / 16) }'; }
fail=0
train=() counts=()
for nnb in 96:16 128:16 128:32; do
	n=${nnb%:*} nb=${nnb#*:}
	deck "$n" "$nb"
	MPIPREDICT_PARAMS="N=$n NB=$nb" MPIPREDICT_TRACE=real$n-$nb mpirun -np 1 ./lu.real "d$n-$nb.in" >out.txt 2>err.txt ||
		{ echo "trace run at N=$n NB=$nb failed: $(tail -3 err.txt)"; exit 1; }
	grep -qx "args d$n-$nb.in N=$n NB=$nb" "real$n-$nb/meta" ||
		{ echo "expected MPIPREDICT_PARAMS in the trace's meta, got: $(cat "real$n-$nb/meta")"; fail=1; }
	counts+=("$(grep -c ' bcast ' "real$n-$nb/rank-0.ti")")
	mkdir -p "t$n-$nb"
	cp "real$n-$nb/meta" "t$n-$nb/meta"
	awk -v c="$(law "$n" "$nb")" '$2 == "compute" { print $1, "compute", c; next } { print }' \
		"real$n-$nb/rank-0.ti" >"t$n-$nb/rank-0.ti"
	train+=(--train "t$n-$nb")
done
[ "${counts[*]}" = "6 8 4" ] ||
	{ echo "expected ceil(N/NB) bcasts in the training traces (6 8 4), got ${counts[*]}"; fail=1; }
deck 160 24
MPIPREDICT_PARAMS="N=160 NB=24" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --json --skeleton "$PWD/sk" -- ./lu.smpi d160-24.in >p.json 2>err.txt ||
	{ echo "predict failed: $(cat err.txt)"; exit 1; }
# the target, run only now, at 2 ranks (traced) and at 1
MPIPREDICT_TRACE=m mpirun -np 2 ./lu.real d160-24.in >out2.txt 2>err.txt ||
	{ echo "2-rank run failed: $(tail -3 err.txt)"; exit 1; }
mpirun -np 1 ./lu.real d160-24.in >out1.txt 2>err.txt ||
	{ echo "1-rank run failed: $(tail -3 err.txt)"; exit 1; }
grep -q '^lu N 160 NB 24 steps 7 checksum ' out1.txt && cmp -s out1.txt out2.txt ||
	{ echo "expected the same line at 1 and 2 ranks, got '$(cat out1.txt)' and '$(cat out2.txt)'"; fail=1; }
roots="0 1 0 1 0 1 0"
for r in 0 1; do
	want=$(awk '$2 == "bcast" { print $3, $4 }' "m/rank-$r.ti")
	got=$(awk '$2 == "bcast" { print $3, $4 }' "sk/rank-$r.ti")
	[ -n "$want" ] && [ "$got" = "$want" ] ||
		{ printf 'rank %s: expected the skeleton'\''s bcasts (bytes root) to be the real run'\''s\n%s\ngot\n%s\n' \
			$r "$want" "$got"; fail=1; }
	seen=$(awk '$2 == "bcast" { printf "%s%s", s, $4; s = " " }' "m/rank-$r.ti")
	[ "$seen" = "$roots" ] ||
		{ echo "rank $r: expected the bcast roots to rotate ($roots), got '$seen'"; fail=1; }
done
N=$(grep -c ' compute ' m/rank-0.ti)
ranks_compute_is p.json "$(echo "$N * $(law 160 24) / 10^9" | bc -l)" 0.005 "$N x 1 ms x (160/96)^2 x (24/16)" || fail=1
mpipredict-simulate replay --profile profile.json --trace m --json >r.json 2>err.txt ||
	{ echo "replay failed: $(cat err.txt)"; exit 1; }
jq -e '.approximated_actions == 0 and .simulated_s > 0' r.json >/dev/null ||
	{ echo "expected the real trace replayed with nothing approximated: $(jq -c '{approximated_actions,simulated_s}' r.json)"; fail=1; }
exit $fail
