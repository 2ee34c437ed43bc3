#!/usr/bin/env bash
# The example applications refuse what they cannot run: a malformed or
# out-of-range number, an unknown option, a missing value, a stray argument,
# and process counts the decomposition cannot use. Each exits non-zero with
# one message naming what is wrong, printed once even under mpirun; --help
# prints the usage and exits 0. Options are checked before MPI starts, so
# most cases run the program directly (np 0), a few under mpirun.
set -u
# Under SANITIZE=1 the MPI libraries' own leaks are suppressed by module
# (tests/lsan.supp); that needs full stacks through them.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}fast_unwind_on_malloc=0"
apps=$MPP_BUILD/tests/apps
fail=0
reject() { # np (0: no mpirun), expected word in the message, app, args...
	local np=$1 want=$2 app=$3
	shift 3
	if [ "$np" = 0 ]; then
		"$apps/$app" "$@" >out.txt 2>err.txt
	else
		mpirun -np "$np" "$apps/$app" "$@" >out.txt 2>err.txt
	fi
	local rc=$?
	[ $rc -ne 0 ] || { echo "$app $*: expected a non-zero exit, got 0"; fail=1; }
	local n
	n=$(grep -c -- "^$app: .*$want" err.txt)
	[ "$n" = 1 ] || {
		echo "$app $* at $np ranks: expected one message naming '$want', got $n:"
		sed 's/^/    /' err.txt | head -n 5
		fail=1
	}
	[ ! -s out.txt ] || { echo "$app $*: expected no output, got '$(cat out.txt)'"; fail=1; }
}
for app in prime jacobi3d is cg; do
	reject 0 "--size" $app -n 12x
	reject 0 "--size" $app --size=0
	reject 0 "--iterations" $app -i -3
	reject 0 "--bogus" $app --bogus
	reject 0 "-n" $app -n
	reject 0 "extra" $app extra
	out=$("$apps/$app" --help) || { echo "$app --help: expected exit 0"; fail=1; }
	case $out in "Usage: $app "*) ;; *) echo "$app --help: expected a usage line, got '$out'"; fail=1 ;; esac
done
reject 2 "--size" prime -n 12x
reject 2 "--iterations" jacobi3d --iterations=1.5
reject 0 "--bits" is -b 40
reject 0 "--tol" cg --tol=abc
reject 4 "--size" cg -n 3
reject 2 "--px" jacobi3d --px 1 --py 1 --pz 1
reject 4 "--px" jacobi3d --px 3
reject 4 "--px" jacobi3d -n 2 --px 4
exit $fail
