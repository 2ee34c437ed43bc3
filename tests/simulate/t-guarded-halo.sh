#!/usr/bin/env bash
# A solver in a shape many real codes have (progs/heat.c with guard_edges =
# 1 in its deck): it exchanges halos only with neighbours that exist,
# behind ifs, so a 1-rank run makes no point-to-point call at all, and it
# ends with a checksum of the grid sent to rank 0 by MPI_Reduce. Traced at
# 1 rank (decks nx = 24, 32, 40; tol 0, so 20 iterations), predicted at 2
# ranks for nx = 56, never run. The 2-rank run's sweeps sit between halo
# calls the training traces never had; only the checksum and the final
# segment are kinds the training traces share with it.
# Then traced at 1 and 2 ranks (a user who can run small rank counts).
# Checked on an exact law (the traces' computation rewritten: each sweep
# segment 1 ms x (nx/24)^2, the checksum 0.02 ms x (nx/24)^2; at 2 ranks
# each sweep segment 0.6 ms x (nx/24)^2 on each rank):
#   - the shape: no irecv/isend/waitall at 1 rank, all of them at 2;
#   - the ranks' predicted computation is the whole run's single-rank work
#     at nx = 56 (to 0.5 %), the report saying the kinds without a law
#     took what the whole run's law leaves. Before, they were scaled by
#     the checksum's ratio alone and the prediction was 4.2x the law;
#   - from 1- and 2-rank traces, the ranks' computation is the 2-rank
#     traces' law at nx = 56 (to 0.5 %), the rank count a law variable
#     (their work differs from the single-rank work by more than 10 %).
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog heat
deck() { printf 'nx = %s\nny = %s\ntol = 0\nmax_iter = 20\ncheck_every = 5\nguard_edges = 1   # no MPI_PROC_NULL\n' "$1" "$1" >"d$1.in"; }
fail=0
law() { # src dst nx sweep-ns: every rank's computation rewritten, by the
	# action after each segment (the checksum: before reduce, 0.02 ms)
	mkdir -p "$2"
	cp "$1/meta" "$2/meta"
	for f in "$1"/rank-*.ti; do
		awk -v n="$3" -v w="$4" '{ l[NR] = $0; a[NR] = $2 }
		  END { for (i = 1; i <= NR; i++) {
		    if (a[i] != "compute") { print l[i]; continue }
		    split(l[i], f, " ")
		    printf "%s compute %.0f\n", f[1], (a[i + 1] == "reduce" ? 2e4 : w) * (n / 24) ^ 2 } }' \
			"$f" >"$2/$(basename "$f")"
	done
}
train=() train12=() work=0
for nx in 24 32 40; do
	deck $nx
	for np in 1 2; do
		MPIPREDICT_PARAMS="nx=$nx" MPIPREDICT_TRACE=real$nx-$np mpirun -np $np ./heat.real d$nx.in >out.txt 2>err.txt ||
			{ echo "trace run at nx=$nx on $np ranks failed: $(tail -3 err.txt)"; exit 1; }
	done
	law real$nx-1 t$nx $nx 1e6
	law real$nx-2 t$nx-2 $nx 6e5
	train+=(--train "t$nx")
	train12+=(--train "t$nx" --train "t$nx-2")
done
grep -qE ' (irecv|isend|waitall) ' real24-1/rank-0.ti &&
	{ echo "expected no point-to-point call at 1 rank (guarded edges)"; fail=1; }
# the whole run's single-rank work at nx = 56: the rewritten work at 24
work=$(awk '$2 == "compute" { s += $3 } END { printf "%.9f", s * 1e-9 * (56 / 24) ^ 2 }' t24/rank-0.ti)
deck 56
MPIPREDICT_PARAMS="nx=56" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --keep kept -- ./heat.smpi d56.in >p.txt 2>err.txt ||
	{ echo "predict failed: $(cat err.txt)"; exit 1; }
grep -q "what the whole run's law leaves" p.txt ||
	{ echo "expected the report to say the kinds without a law share what the whole run's law leaves: $(grep -i 'law' p.txt)"; fail=1; }
MPIPREDICT_PARAMS="nx=56" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --json -- ./heat.smpi d56.in >p.json 2>err.txt ||
	{ echo "predict --json failed: $(cat err.txt)"; exit 1; }
ranks_compute_is p.json "$work" 0.005 "(the whole run's law at nx = 56)" || fail=1
# the 2-rank program does exchange (what the skeleton holds)
grep -q ' irecv ' real24-2/rank-0.ti && grep -q ' isend ' real24-2/rank-1.ti ||
	{ echo "expected halo calls at 2 ranks"; fail=1; }
# traced at 1 and 2 ranks (each sweep segment 0.6 ms x (nx/24)^2 on each
# of 2 ranks): nprocs is a law variable, and the work at 2 ranks is the
# 2-rank traces' law at nx = 56, not the single-rank work
work2=$(cat t24-2/rank-*.ti | awk '$2 == "compute" { s += $3 } END { printf "%.9f", s * 1e-9 * (56 / 24) ^ 2 }')
MPIPREDICT_PARAMS="nx=56" mpipredict-simulate predict --profile profile.json "${train12[@]}" \
	--ranks 2 --json -- ./heat.smpi d56.in >p12.json 2>err.txt ||
	{ echo "predict from 1- and 2-rank traces failed: $(cat err.txt)"; exit 1; }
awk -v a="$work" -v b="$work2" 'BEGIN { exit !(b > 1.1 * a || b < 0.9 * a) }' ||
	{ echo "expected the 2-rank traces' work ($work2 s) to differ from the single-rank work ($work s)"; fail=1; }
ranks_compute_is p12.json "$work2" 0.005 "(the 1- and 2-rank traces' law at nx = 56 and 2 ranks)" || fail=1
exit $fail
