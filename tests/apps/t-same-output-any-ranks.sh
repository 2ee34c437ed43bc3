#!/usr/bin/env bash
# Each example application prints the same result at 1, 2 and 4 ranks (and
# with an explicit process grid for jacobi3d), and the result is right where
# it can be checked by hand:
#   prime: 25 primes below 100, 78498 below 10^6 (the known counts);
#   jacobi3d -n 2 -i 1: the four points next to the u = 1 face become 1/6,
#     the others stay 0, so residual 1/6 and checksum 4 * round(2^32 / 6);
#   cg -n 2: every row of the 2x2x2 Laplacian sums to 6 - 3 = 3, so x = 1/3
#     everywhere and sum(x) = 8/3, reached in one iteration;
#   is: its own verification (sorted, ordered across ranks, nothing lost).
set -u
# Under SANITIZE=1 the MPI libraries' own leaks are suppressed by module
# (tests/lsan.supp); that needs full stacks through them.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}fast_unwind_on_malloc=0"
apps=$MPP_BUILD/tests/apps
fail=0
run() { # ranks, app, args...
	local np=$1 app=$2
	shift 2
	mpirun -np "$np" "$apps/$app" "$@" 2>err.txt || {
		echo "$app $* at $np ranks: exit $?: $(tail -n 3 err.txt)"
		fail=1
	}
}
same() { # expected-substring app args...: the same at 1, 2 and 4 ranks
	local want=$1
	shift
	local one two four
	one=$(run 1 "$@") two=$(run 2 "$@") four=$(run "${FOUR:-4}" "$@")
	case $one in *"$want"*) ;; *)
		echo "$*: expected output containing '$want', got '$one'"
		fail=1 ;;
	esac
	[ "$one" = "$two" ] && [ "$one" = "$four" ] || {
		echo "$*: expected the same output at 1, 2, ${FOUR:-4} ranks, got"
		printf '  %s\n' "$one" "$two" "$four"
		fail=1
	}
}
same "primes below 100: 25 " prime -n 100
same "primes below 1000000: 78498 " prime --size=1000000 -i 2
same "residual=1.666666666667e-01 checksum=2863311532" jacobi3d -n 2 -i 1
same "jacobi3d N=24 sweeps=30 " jacobi3d -n 24 -i 30
p=$(run 4 jacobi3d -n 24 -i 30 --px 1 --py 1 --pz 4)
q=$(run 1 jacobi3d -n 24 -i 30)
[ "$p" = "$q" ] || { echo "jacobi3d --pz 4: expected '$q', got '$p'"; fail=1; }
same "verification=passed" is -n 100000 -i 3 -b 16
same "verification=passed" is --size=7 --iterations=2 --bits=8
# Two planes are for at most two ranks.
FOUR=2 same "iterations=1 residual=0.000000000000e+00 sum(x)=2.666666666667e+00" \
	cg -n 2 -i 5 --tol 1e-12
same "cg N=20 iterations=" cg -n 20 -i 40
c=$(run 2 cg -n 20 -i 1000 --tol 1e-8)
res=${c#*residual=}
res=${res%% *}
awk -v r="$res" 'BEGIN { exit !(r < 1e-8) }' ||
	{ echo "cg --tol 1e-8: expected a residual below 1e-8, got '$c'"; fail=1; }
exit $fail
