#!/usr/bin/env bash
# A solver in a shape many real codes have (progs/heat.c with guard_edges =
# 1 in its deck): it exchanges halos only with neighbours that exist,
# behind ifs, so a 1-rank run makes no point-to-point call at all, and it
# ends with a checksum of the grid sent to rank 0 by MPI_Reduce. Traced at
# 1 rank (decks nx = 24, 32, 40; tol 0, so 20 iterations), predicted at 2
# ranks for nx = 56, never run. The 2-rank run's sweeps sit between halo
# calls the training traces never had; only the checksum and the final
# segment are kinds the training traces share with it.
# Checked on an exact law (the traces' computation rewritten: each sweep
# segment 1 ms x (nx/24)^2, the checksum 0.02 ms x (nx/24)^2):
#   - the shape: no irecv/isend/waitall at 1 rank, all of them at 2;
#   - the ranks' predicted computation is the whole run's single-rank work
#     at nx = 56 (to 0.5 %), the report saying the kinds without a law
#     took what the whole run's law leaves. Before, they were scaled by
#     the checksum's ratio alone and the prediction was off by about 10x.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog heat
deck() { printf 'nx = %s\nny = %s\ntol = 0\nmax_iter = 20\ncheck_every = 5\nguard_edges = 1   # no MPI_PROC_NULL\n' "$1" "$1" >"d$1.in"; }
fail=0
train=() work=0
for nx in 24 32 40; do
	deck $nx
	MPIPREDICT_PARAMS="nx=$nx" MPIPREDICT_TRACE=real$nx mpirun -np 1 ./heat.real d$nx.in >out.txt 2>err.txt ||
		{ echo "trace run at nx=$nx failed: $(tail -3 err.txt)"; exit 1; }
	mkdir -p "t$nx"
	cp real$nx/meta t$nx/meta
	# the law, by the action after each segment (checksum: before reduce)
	awk -v n=$nx '{ l[NR] = $0; a[NR] = $2 }
	  END { for (i = 1; i <= NR; i++) {
	    if (a[i] != "compute") { print l[i]; continue }
	    split(l[i], f, " ")
	    printf "%s compute %.0f\n", f[1], (a[i + 1] == "reduce" ? 2e4 : 1e6) * (n / 24) ^ 2 } }' \
		real$nx/rank-0.ti >t$nx/rank-0.ti
	train+=(--train "t$nx")
done
grep -qE ' (irecv|isend|waitall) ' real24/rank-0.ti &&
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
MPIPREDICT_TRACE=real2 mpirun -np 2 ./heat.real d24.in >/dev/null 2>err.txt ||
	{ echo "2-rank run failed: $(tail -3 err.txt)"; exit 1; }
grep -q ' irecv ' real2/rank-0.ti && grep -q ' isend ' real2/rank-1.ti ||
	{ echo "expected halo calls at 2 ranks"; fail=1; }
exit $fail
