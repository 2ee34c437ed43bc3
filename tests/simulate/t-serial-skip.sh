#!/usr/bin/env bash
# PENNANT's shape (progs/serialskip.c): its MPI calls are in wrappers that
# return at once at one rank, so a 1-rank trace is one init>finalize
# segment, with no call site. predict at 2 ranks from such traces (built
# with -g) said "the call sites of the traces and of the SMPI build do not
# match: built alike?": the builds were alike, no kind of the skeleton can
# be in a trace without kinds, and the sites were never at fault. Checked:
#   - the shape: the 1-rank traces have no call and no site, the 2-rank
#     run's has both;
#   - predict at 2 ranks from the 1-rank traces (computation rewritten to
#     an exact law, 10 ms x (n/200)^2): the report says the traces call
#     MPI only to start and stop and blames no build; the ranks' work is
#     the whole run's law at the target (work conserved), exit 0.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile profile.json
build_prog serialskip -g
fail=0
train=()
for n in 200 400; do
	traced r$n 1 ./serialskip.real -n $n -s 10
	# the shape: init, one computation, finalize; no site
	[ "$(awk '$1 != "#" { printf "%s ", $2 }' r$n/rank-0.ti)" = "init compute finalize " ] &&
		! grep -q '^# @' r$n/rank-0.ti ||
		{ echo "expected the 1-rank trace at -n $n to be init, compute, finalize with no site, got: $(head -5 r$n/rank-0.ti | tr '\n' '|')"; fail=1; }
	mkdir -p t$n
	cp r$n/meta t$n/meta
	awk -v n=$n '$2 == "compute" { printf "%s compute %.0f\n", $1, 1e7 * (n / 200) ^ 2; next } { print }' \
		r$n/rank-0.ti >t$n/rank-0.ti
	train+=(--train "t$n")
done
traced r2 2 ./serialskip.real -n 200 -s 10
grep -q '^# @' r2/rank-0.ti && grep -q ' allreduce ' r2/rank-0.ti ||
	{ echo "expected the 2-rank trace to have its calls and their sites"; fail=1; }
mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks 2 \
	--skeleton "$PWD/sk" -- ./serialskip.smpi -n 600 -s 10 >p.txt 2>err.txt ||
	{ echo "predict failed: $(cat err.txt)"; exit 1; }
grep -q "call MPI only to start and stop" p.txt ||
	{ echo "expected the report to say the traces call MPI only to start and stop, got: $(grep -i segments p.txt)"; fail=1; }
! grep -q "built alike" p.txt ||
	{ echo "expected no blame on the builds, got: $(grep 'built alike' p.txt)"; fail=1; }
mpipredict-simulate predict --profile profile.json "${train[@]}" --ranks 2 --json \
	--skeleton "$PWD/sk" -- ./serialskip.smpi -n 600 -s 10 >p.json 2>err.txt ||
	{ echo "predict --json failed: $(cat err.txt)"; exit 1; }
ranks_compute_is p.json 0.09 0.01 "(the whole run's law at -n 600, 10 ms x 3^2)" || fail=1
exit $fail
