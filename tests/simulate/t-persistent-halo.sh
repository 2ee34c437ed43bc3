#!/usr/bin/env bash
# A halo exchange on persistent requests (progs/heat.c with `persistent =
# 1`: MPI_Recv_init/MPI_Send_init once per grid buffer, MPI_Startall and
# MPI_Waitall every iteration, MPI_Request_free at the end), as PETSc's
# scatters and many CFD codes do it. SimGrid's replay has no action for
# persistent requests: such a run was replayed with no messages at all.
# Checked: each MPI_Startall is traced with the isend and irecv it starts;
# the replay of a real 2-rank run moves the same messages as the same run
# with MPI_Irecv/MPI_Isend (the deck without `persistent`), one per rank
# and iteration of (nx + 2) doubles; `predict` at 2 ranks from 1-rank
# traces (the smpicc skeleton) has those messages too.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog heat
deck() { # file nx [persistent]
	printf 'nx = %s\nny = 64\nmax_iter = 40\ncheck_every = 5\ntol = 0\n%s' "$2" \
		"${3:+persistent = 1
}" >"$1"
}
deck p64.deck 64 1
deck n64.deck 64
fail=0
for d in p64 n64; do
	traced tr-$d 2 ./heat.real $d.deck
done
cmp -s tr-p64.out tr-n64.out ||
	{ echo "persistent and plain halos print different results: $(cat tr-p64.out tr-n64.out)"; fail=1; }
# Rank 1's first start: its two receives and two sends (down is
# MPI_PROC_NULL: -1), 528 bytes each.
got=$(grep -v ' compute ' tr-p64/rank-1.ti | grep -A4 -m1 '^1 startall' | tr '\n' '|')
want="1 startall 0|1 irecv 0 1 528|1 irecv -1 2 528|1 isend 0 2 528|1 isend -1 1 528|"
[ "$got" = "$want" ] || { echo "rank 1's first MPI_Startall: expected $want, got $got"; fail=1; }

# sends DIR: "<messages> <bytes>" sent in the replay files DIR/r*.ti
sends() {
	awk '$2 == "send" || $2 == "isend" { n++; b += $5 } END { printf "%d %d\n", n, b }' "$1"/r*.ti
}
for d in p64 n64; do
	mpipredict-simulate replay --profile profile.json --trace tr-$d --keep k-$d \
		>/dev/null 2>err.txt || { echo "replay ($d) failed: $(head -3 err.txt)"; exit 1; }
done
want="$((2 * 40)) $((2 * 40 * (64 + 2) * 8))"
[ "$(sends k-p64)" = "$want" ] && [ "$(sends k-n64)" = "$want" ] ||
	{ echo "replays: expected $want (messages bytes), persistent $(sends k-p64), plain $(sends k-n64)"; fail=1; }

# predict: 1-rank traces (no neighbours: no persistent request at all),
# 2 ranks at nx = 80 never run.
for nx in 48 64; do
	deck t$nx.deck $nx 1
	MPIPREDICT_PARAMS="nx=$nx" traced t$nx 1 ./heat.real t$nx.deck
done
deck t80.deck 80 1
MPIPREDICT_PARAMS="nx=80" mpipredict-simulate predict --profile profile.json --train t48 --train t64 \
	--ranks 2 --keep kp --json -- ./heat.smpi t80.deck >pred.json 2>err.txt ||
	{ echo "predict failed: $(head -3 err.txt)"; exit 1; }
grep -q '^0 startall 0$' kp/skeleton/rank-0.ti ||
	{ echo "the smpicc skeleton has no MPI_Startall line"; fail=1; }
want="$((2 * 40)) $((2 * 40 * (80 + 2) * 8))"
[ "$(sends kp)" = "$want" ] || { echo "predict: expected $want (messages bytes), got $(sends kp)"; fail=1; }
jq -e '[.ranks[].compute_s] | all(. > 0)' pred.json >/dev/null ||
	{ echo "predict: expected computation on both ranks: $(jq -c .ranks pred.json)"; fail=1; }
MPIPREDICT_PARAMS="nx=80" mpipredict-simulate predict --profile profile.json --train t48 --train t64 \
	--ranks 2 --skeleton kp/skeleton -- ./heat.smpi t80.deck >pred.txt 2>err.txt &&
	grep -q "^law variables: nx;" pred.txt ||
	{ echo "predict: expected a law in nx, got: $(grep -i law pred.txt) $(head -2 err.txt)"; fail=1; }
exit $fail
