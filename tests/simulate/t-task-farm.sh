#!/usr/bin/env bash
# A program in the shape of a master/worker task farm (progs/farm.c: tasks
# of varying sizes; the master receives from MPI_ANY_SOURCE, with
# MPI_ANY_TAG, with MPI_STATUS_IGNORE, and probes for results of varying
# length with MPI_Probe + MPI_Get_count; workers probe for their tasks;
# a stop tag ends them), traced at 3 ranks (2 workers racing for tasks)
# and replayed. Checked, none of it depending on timing beyond a factor
# of 4 where the truth is about 1000:
#   - every receive in the trace names the world rank and the tag of the
#     message it matched (never the wildcard it was posted with), and the
#     receives are exactly the sends: the same (source, destination, tag,
#     bytes) multiset, 2 x 24 tasks + 3 x 2 workers messages;
#   - the trace replays to the end with nothing approximated, every send
#     and receive kept, the bytes on the cmp level those of the sends;
#   - the master's traced computation is below a quarter of each worker's:
#     its waits in MPI_Probe are not computation;
#   - the program prints the same line at 1 and 3 ranks;
#   - under predict at 2 ranks SMPI runs the smpicc build (its skeleton,
#     kept with --skeleton, has the same properties, with 2 x 24 + 3
#     messages, and replays); a farm's single-rank trace (the master does
#     the tasks itself) has none of the 2-rank run's segment kinds, so the
#     whole run's computation follows one law: with the training traces'
#     computation rewritten to an exact law (1 ms x (size/100)^2 in all),
#     the ranks' predicted computation is the law's 9 ms at size 300.
#   - `farm 24 300 nonblocking`: the master posts its wildcard receives
#     with MPI_Irecv and finishes them with MPI_Waitany (status ignored)
#     and MPI_Waitsome. Each post is traced as 'irecv -2 <tag> <bytes>'
#     and the completion writes 'recvd <world source> <tag> <bytes>' on
#     the line after its own (4 of each: 2 readies, 2 reports), in the
#     real run and in SMPI's; the replay receives from that source just
#     before the completion, so its receives are again exactly its sends.
#     Before, the post was written with the wildcard (-2), the replay
#     dropped it and the master received 4 messages fewer than were sent.
# Before trace.c wrote a wildcard receive's real tag, the master's
# MPI_ANY_TAG receives were traced as "recv <w> -1 4" and SimGrid's replay
# (which matches tags exactly) waited forever for them.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
export OMPI_MCA_mpi_yield_when_idle=1
write_profile profile.json
build_prog farm
fail=0
# check_p2p DIR NPROCS MESSAGES: the receives name real peers and tags and
# match the sends one for one; the master computes little
check_p2p() {
	local d=$1 np=$2 want=$3 bad n
	bad=$(cat "$d"/rank-*.ti | awk '$2 == "recv" && ($3 < 0 || $4 < 1 || $4 > 5)')
	[ -z "$bad" ] || { echo "$d: expected receives from world ranks with the program's tags 1-5, got:"; echo "$bad"; fail=1; }
	cat "$d"/rank-*.ti | awk '$2 == "send" { print $1, $3, $4, $5 }' | sort >"$d.sends"
	cat "$d"/rank-*.ti | awk '$2 == "recv" { print $3, $1, $4, $5 }' | sort >"$d.recvs"
	n=$(wc -l <"$d.sends")
	[ "$n" = "$want" ] && cmp -s "$d.sends" "$d.recvs" ||
		{ echo "$d: expected $want sends matched one for one by receives (source dest tag bytes), got $n sends; diff:"; diff "$d.sends" "$d.recvs" | head; fail=1; }
	for r in $(seq 1 $((np - 1))); do
		grep -q "^0 recv $r 1 4$" "$d/rank-0.ti" ||
			{ echo "$d: expected the master's MPI_ANY_SOURCE/MPI_STATUS_IGNORE receive of worker $r's ready as 'recv $r 1 4'"; fail=1; }
		grep -q "^0 recv $r 5 4$" "$d/rank-0.ti" ||
			{ echo "$d: expected the master's MPI_ANY_SOURCE/MPI_ANY_TAG receive of worker $r's report as 'recv $r 5 4'"; fail=1; }
	done
	local c
	c=$(for r in $(seq 0 $((np - 1))); do awk '$2 == "compute" { s += $3 } END { printf "%.0f ", s }' "$d/rank-$r.ti"; done)
	echo "$c" | awk '{ for (i = 2; i <= NF; i++) if (4 * $1 >= $i) exit 1 }' ||
		{ echo "$d: expected the master's computation below a quarter of each worker's (ns: $c)"; fail=1; }
}
# check_replay DIR: replayed to the end, nothing approximated or dropped
check_replay() {
	local d=$1 k sends
	mpipredict-simulate replay --profile profile.json --trace "$d" --json --no-links \
		--keep "$PWD/$d.k" >"$d.json" 2>err.txt ||
		{ echo "$d: replay failed: $(cat err.txt)"; fail=1; return; }
	k=$(cat "$d.k"/r*.ti | grep -c -E '^[0-9]+ (send|recv) ')
	sends=$(awk '{ s += $4 } END { print s + 0 }' "$d.sends")
	jq -e ".approximated_actions == 0 and .simulated_s > 0 and .levels.cmp.bytes == $sends" "$d.json" >/dev/null &&
		[ "$k" = $((2 * $(wc -l <"$d.sends"))) ] ||
		{ echo "$d: expected a replay with nothing approximated, $(wc -l <"$d.sends") sends and receives each and $sends bytes on cmp, got $k actions and $(jq -c '{approximated_actions,simulated_s,cmp: .levels.cmp.bytes}' "$d.json")"; fail=1; }
}
MPIPREDICT_TRACE=real3 mpirun -np 3 ./farm.real 24 300 >out3.txt 2>err.txt ||
	{ echo "3-rank traced run failed: $(tail -3 err.txt)"; exit 1; }
mpirun -np 1 ./farm.real 24 300 >out1.txt 2>err.txt ||
	{ echo "1-rank run failed: $(tail -3 err.txt)"; exit 1; }
grep -q '^farm tasks 24 checksum ' out1.txt && cmp -s out1.txt out3.txt ||
	{ echo "expected the same line at 1 and 3 ranks, got '$(cat out1.txt)' and '$(cat out3.txt)'"; fail=1; }
check_p2p real3 3 $((2 * 24 + 3 * 2))
check_replay real3
# predict at 2 ranks: SMPI runs the program; no segment kind of it is in
# the single-rank traces, so the whole run's law scales it
train=()
for s in 100 200; do
	MPIPREDICT_TRACE=r$s mpirun -np 1 ./farm.real 24 $s >/dev/null 2>err.txt ||
		{ echo "1-rank trace run failed: $(tail -3 err.txt)"; exit 1; }
	# the exact law: 1 ms x (s/100)^2 of computation in all, evenly
	mkdir -p "t$s"
	cp "r$s/meta" "t$s/meta"
	n=$(grep -c ' compute ' "r$s/rank-0.ti")
	awk -v s=$s -v n="$n" '$2 == "compute" { printf "%s compute %.3f\n", $1, 1e6 * (s / 100) ^ 2 / n; next } { print }' \
		"r$s/rank-0.ti" >"t$s/rank-0.ti"
	train+=(--train "t$s")
done
mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks 2 --json \
	--skeleton "$PWD/sk" -- ./farm.smpi 24 300 >p.json 2>err.txt ||
	{ echo "predict failed: $(cat err.txt)"; exit 1; }
ranks_compute_is p.json 0.009 0.005 "(the whole run's law at size 300, 1 ms x 3^2)" || fail=1
[ -f sk/rank-0.ti ] && [ -f sk/rank-1.ti ] ||
	{ echo "expected SMPI's run of the farm at 2 ranks to leave its skeleton in sk/: $(ls sk 2>&1)"; exit 1; }
check_p2p sk 2 $((2 * 24 + 3))
check_replay sk
# nonblocking wildcard receives, resolved at their completion
check_resolved() { # DIR: 4 posts, 4 resolutions right after a completion
	local d=$1
	[ "$(grep -c '^0 irecv -2 ' "$d/rank-0.ti")" = 4 ] &&
		[ "$(grep -cE '^0 recvd [12] (1|5) 4$' "$d/rank-0.ti")" = 4 ] ||
		{ echo "$d: expected 4 'irecv -2' posts and 4 'recvd <worker> <1|5> 4' lines, got:"; grep -E ' (irecv|recvd) ' "$d/rank-0.ti"; fail=1; }
	awk '$2 == "recvd" && p !~ /^[0-9]+ (wait|test|recvd)/ { bad = 1 } { p = $0 } END { exit bad }' "$d/rank-0.ti" ||
		{ echo "$d: expected every recvd line right after a wait/test line"; fail=1; }
}
check_replay_matched() { # DIR: the replay's receives are its sends
	local d=$1
	mpipredict-simulate replay --profile profile.json --trace "$d" --json --no-links \
		--keep "$PWD/$d.k" >"$d.json" 2>err.txt ||
		{ echo "$d: replay failed: $(cat err.txt)"; fail=1; return; }
	for f in "$d.k"/r*.ti; do awk '$2 == "send" { print $1, $3, $4, $5 }' "$f"; done | sort >"$d.ks"
	for f in "$d.k"/r*.ti; do awk '$2 == "recv" { print $3, $1, $4, $5 }' "$f"; done | sort >"$d.kr"
	[ -s "$d.ks" ] && cmp -s "$d.ks" "$d.kr" ||
		{ echo "$d: expected the replay's receives to be its sends (source dest tag bytes); diff:"; diff "$d.ks" "$d.kr" | head; fail=1; }
}
MPIPREDICT_TRACE=nb3 mpirun -np 3 ./farm.real 24 300 nonblocking >outnb.txt 2>err.txt ||
	{ echo "nonblocking 3-rank traced run failed: $(tail -3 err.txt)"; exit 1; }
cmp -s out1.txt outnb.txt ||
	{ echo "expected the same line in nonblocking mode, got '$(cat outnb.txt)'"; fail=1; }
check_resolved nb3
check_replay_matched nb3
mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks 3 --json \
	--skeleton "$PWD/sknb" -- ./farm.smpi 24 300 nonblocking >pnb.json 2>err.txt ||
	{ echo "nonblocking predict failed: $(cat err.txt)"; exit 1; }
check_resolved sknb
check_replay_matched sknb
exit $fail
