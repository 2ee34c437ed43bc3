#!/usr/bin/env bash
# mpipredict-simulate's command line: --help and --version exit 0; usage
# errors exit 1 with one line; bad input exits 2 naming the file.
set -u
fail=0
check() { # expected-exit expected-substring args...
	local want=$1 text=$2
	shift 2
	mpipredict-simulate "$@" >out.txt 2>err.txt
	local rc=$?
	[ $rc = "$want" ] && grep -q -- "$text" out.txt err.txt ||
		{ echo "'$*': expected exit $want and '$text', got $rc: $(cat out.txt err.txt)"; fail=1; }
}
check 0 "Usage: mpipredict-simulate" --help
check 0 "mpipredict-simulate [0-9]" --version
check 1 "unknown command 'simulate'" simulate
check 1 "unknown or incomplete option '--bogus'" replay --bogus
check 1 "--profile is required" replay --trace x
check 1 "--ranks: expected an integer" platform --ranks 0 --profile p -o d
check 2 "nope.json" replay --profile nope.json --trace x
echo '{"packages_per_node": 1, "cores_per_node": 2, "levels": {"net": {"o": 1e-6, "Os": 0, "Or": 0, "g": 0, "L": 1e-5, "G": 1e-9}}}' >p.json
mkdir -p t && echo "nprocs 1" >t/meta && printf '0 init\n0 bogus-line\n1 compute 5\n' >t/rank-0.ti
check 2 "t/rank-0.ti:3: expected rank 0" replay --profile p.json --trace t
check 1 "the SMPI program is missing" predict --profile p.json --train t --ranks 2
exit $fail
