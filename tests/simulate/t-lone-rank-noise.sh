#!/usr/bin/env bash
# A solver traced at one rank only (progs/heat.c: a halo exchange every
# iteration, an allreduce every 5), whose single-rank runs are slow at
# the start (a warm-up: the first half of every trace's segments take
# twice their work), predicted at 2 ranks. The machine's noise is a
# timing the training runs at more than one rank recorded; a lone rank's
# spread is in step on every rank of a real run, and handed to the two
# ranks from shifted points of the run it made each wait for the other's
# slow half (miniFE from 1-rank traces: +20.6 and +33.2 % against -1.4
# and +9.8 % without it). Checked:
#   - from 1-rank traces, no noise: noise_from is null, the report says
#     why, and the answer is --no-noise's to the last digit (the same
#     skeleton, reused);
#   - with a 2-rank trace of the largest input among the training traces,
#     the noise comes from it again.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
export OMPI_MCA_mpi_yield_when_idle=1
write_profile profile.json
build_prog heat
warm() { # trace dir -> the same with the first half of its segments x2
	mkdir -p "$2"
	cp "$1/meta" "$2/meta"
	for f in "$1"/rank-*.ti; do
		awk -v n="$(grep -c ' compute ' "$f")" '$2 == "compute" { k++; if (k <= n / 2) $3 = 2 * $3 } { print }' \
			"$f" >"$2/$(basename "$f")"
	done
}
fail=0
train=()
for nx in 24 32 40; do
	heat_deck $nx
	MPIPREDICT_PARAMS="nx=$nx" MPIPREDICT_TRACE=real$nx mpirun -np 1 ./heat.real d$nx.in >out.txt 2>err.txt ||
		{ echo "trace run at nx=$nx failed: $(tail -3 err.txt)"; exit 1; }
	warm real$nx t$nx
	train+=(--train "t$nx")
done
heat_deck 56
MPIPREDICT_PARAMS="nx=56" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --skeleton "$PWD/sk" --json -- ./heat.smpi d56.in >p.json 2>err.txt ||
	{ echo "predict failed: $(cat err.txt)"; exit 1; }
MPIPREDICT_PARAMS="nx=56" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --skeleton "$PWD/sk" --no-noise --json -- ./heat.smpi d56.in >q.json 2>err.txt ||
	{ echo "predict --no-noise failed: $(cat err.txt)"; exit 1; }
MPIPREDICT_PARAMS="nx=56" mpipredict-simulate predict --profile profile.json "${train[@]}" \
	--ranks 2 --skeleton "$PWD/sk" -- ./heat.smpi d56.in >p.txt 2>err.txt ||
	{ echo "predict (text) failed: $(cat err.txt)"; exit 1; }
jq -e '.noise_from == null' p.json >/dev/null ||
	{ echo "expected no noise from 1-rank traces, got noise_from $(jq -c .noise_from p.json)"; fail=1; }
grep -q '^noise: none (the nearest --train traces have one rank' p.txt ||
	{ echo "expected the report to say why there is no noise: $(grep '^noise' p.txt)"; fail=1; }
a=$(jq .predicted_s p.json) b=$(jq .predicted_s q.json)
[ "$a" = "$b" ] || { echo "expected --no-noise's answer from 1-rank traces: $a against $b"; fail=1; }
# a 2-rank trace of the largest training input: the noise is its again
MPIPREDICT_PARAMS="nx=40" MPIPREDICT_TRACE=two mpirun -np 2 ./heat.real d40.in >out.txt 2>err.txt ||
	{ echo "2-rank trace run failed: $(tail -3 err.txt)"; exit 1; }
MPIPREDICT_PARAMS="nx=56" mpipredict-simulate predict --profile profile.json "${train[@]}" --train two \
	--ranks 2 --json -- ./heat.smpi d56.in >r.json 2>err.txt ||
	{ echo "predict with a 2-rank trace failed: $(cat err.txt)"; exit 1; }
[ "$(jq -r '.noise_from | join(" ")' r.json 2>/dev/null)" = two ] ||
	{ echo "expected the noise from the 2-rank trace 'two', got $(jq -c .noise_from r.json)"; fail=1; }
exit $fail
