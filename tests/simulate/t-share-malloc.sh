#!/usr/bin/env bash
# --share-malloc BYTES: the SMPI run gives every rank the same pages for
# each allocation of BYTES or more (SimGrid's folding), so that 1,024
# ranks of a program that fills a pool per rank fit in memory.
# Checked:
#   - progs/stencil.c (a 2 MiB halo pool per rank, filled, never read to
#     decide anything), traced at 1 and 2 ranks: at 16 ranks the answer
#     with its pools shared is the answer without, the check ran against
#     the 2-rank trace of the same arguments (report and JSON say so);
#   - a target whose arguments no --train trace has: answered, and
#     "not checked" on stderr and in the JSON;
#   - progs/heat.c (a solver that iterates until the change between its
#     two grids falls below a tolerance): with the grids shared it stops
#     at once, so the check at 2 ranks finds other MPI calls than the
#     traced run's: exit 2, naming the trace and the first call that
#     differs, and no answer;
#   - progs/gather.c (indices kept in a large array, as an unstructured
#     mesh's connectivity): with them shared the check's run crashes: exit
#     3, saying so, and the log it names is kept;
#   - a size that is not a number of bytes: exit 1 naming the option.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog stencil -g
fail=0
for n in 512 1024; do
	for np in 1 2; do traced s$n-$np $np ./stencil.real -n $n -s 10; done
done
tr=(--train s512-1 --train s512-2 --train s1024-1 --train s1024-2)
pred() { # out [options...]: predict -n 1024 at 16 ranks on 8 nodes
	local out=$1
	shift
	mpipredict-simulate predict --profile profile.json "${tr[@]}" --ranks 16 --nodes 8 \
		--no-residual --json "$@" -- ./stencil.smpi -n 1024 -s 10 >"$out.json" 2>"$out.err" ||
		{ echo "predict $* failed: $(head -3 "$out.err")"; exit 1; }
}
pred plain
pred shared --share-malloc 65536
a=$(jq .predicted_s plain.json) b=$(jq .predicted_s shared.json)
awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 0 && (a - b) / a < 1e-6 && (b - a) / a < 1e-6) }' ||
	{ echo "expected the same answer with the halo pools shared: $a s without, $b s with"; fail=1; }
jq -e '.shared_malloc_bytes == 65536 and .shared_malloc_checked_on == "s1024-2"' shared.json >/dev/null ||
	{ echo "expected the check on s1024-2: $(jq -c '{shared_malloc_bytes, shared_malloc_checked_on}' shared.json)"; fail=1; }
jq -e '.shared_malloc_bytes == null and .shared_malloc_checked_on == null' plain.json >/dev/null ||
	{ echo "expected no sharing without the option"; fail=1; }
mpipredict-simulate predict --profile profile.json "${tr[@]}" --ranks 16 --nodes 8 --no-residual \
	--share-malloc 65536 -- ./stencil.smpi -n 1024 -s 10 >shared.txt 2>&1 ||
	{ echo "predict (text) failed: $(head -3 shared.txt)"; fail=1; }
grep -q "^shared allocations: 65536 bytes or more.*checked: the same MPI calls" shared.txt ||
	{ echo "expected the report to say the sharing was checked: $(grep -i shared shared.txt)"; fail=1; }
# arguments no trace has: answered, not checked
mpipredict-simulate predict --profile profile.json "${tr[@]}" --ranks 16 --nodes 8 --no-residual --json \
	--share-malloc 65536 -- ./stencil.smpi -n 768 -s 10 >other.json 2>other.err ||
	{ echo "predict -n 768 failed: $(head -3 other.err)"; fail=1; }
grep -q -- "--share-malloc: not checked: no --train trace of arguments '-n 768 -s 10'" other.err ||
	{ echo "expected 'not checked' on stderr: $(cat other.err)"; fail=1; }
jq -e '.predicted_s > 0 and .shared_malloc_checked_on == null' other.json >/dev/null ||
	{ echo "expected an unchecked answer: $(jq -c '{predicted_s, shared_malloc_checked_on}' other.json)"; fail=1; }
# a solver whose iteration count comes from its grids
build_prog heat
heat_decks
for nx in 96 120; do
	for np in 1 2; do MPIPREDICT_PARAMS="nx=$nx" traced h$nx-$np $np ./heat.real d$nx.in; done
done
MPIPREDICT_PARAMS="nx=120" mpipredict-simulate predict --profile profile.json --train h96-1 --train h96-2 \
	--train h120-1 --train h120-2 --ranks 4 --share-malloc 4096 -- ./heat.smpi d120.in >heat.out 2>heat.err
rc=$?
[ $rc -eq 2 ] && [ ! -s heat.out ] ||
	{ echo "heat with its grids shared: expected exit 2 and no answer, got $rc: $(head -3 heat.out)"; fail=1; }
grep -q -- "--share-malloc 4096: at 2 ranks the program makes other MPI calls than --train h120-2 (rank 0, call [0-9]*: " heat.err ||
	{ echo "expected the check's failure naming h120-2 and the call: $(cat heat.err)"; fail=1; }
[ "$(wc -l <heat.err)" -eq 1 ] || { echo "expected one line on stderr: $(cat heat.err)"; fail=1; }
# indices kept in a large array (an unstructured mesh's connectivity)
build_prog gather
for n in 32768 65536; do traced g$n-2 2 ./gather.real -n $n; done
mpipredict-simulate predict --profile profile.json --train g32768-2 --train g65536-2 --ranks 4 \
	--share-malloc 4096 -- ./gather.smpi -n 65536 >gather.out 2>gather.err
rc=$?
log=$(grep -o "see [^ ]*smpi.log" gather.err | cut -c5-)
[ $rc -eq 3 ] && [ ! -s gather.out ] &&
	grep -q -- "--share-malloc 4096: at 2 ranks the program failed with its allocations of that size shared" gather.err &&
	[ -n "$log" ] && [ -f "$log" ] ||
	{ echo "gather with its indices shared: expected exit 3 naming the failure and a kept log, got $rc: $(cat gather.err)"; fail=1; }
# a size that is not a number of bytes
for bad in 0 64k -5; do
	mpipredict-simulate predict --profile profile.json "${tr[@]}" --ranks 4 --share-malloc $bad \
		-- ./stencil.smpi -n 1024 -s 10 >bad.out 2>bad.err
	rc=$?
	[ $rc -eq 1 ] && grep -q -- "--share-malloc: expected a number of bytes >= 1, got '$bad'" bad.err ||
		{ echo "--share-malloc $bad: expected exit 1 naming the option, got $rc: $(cat bad.err)"; fail=1; }
done
exit $fail
