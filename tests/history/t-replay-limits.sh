#!/usr/bin/env bash
# mpipredict-replay --limits and the extension policy (issue 37's study of
# what extending running jobs is worth). Four jobs of one user, each
# alone on the machine, requesting 1000 s: 100, 110, 120 and 400 s of
# work. Requested limits kill none. ECMWF's rule (mean + 1 sd of the
# user's finished jobs of that request) gives job 3 a limit of 112.07 s
# (from 100 and 110) and job 4 one from 100, 110 and 112.07: both
# killed, each wasting its limit x its processors. With the policy and a
# predictor that is exact (ratio 1): job 3 (120 s, within +20 % of its
# limit) is extended and finishes; job 4 (400 s) is over the cap, left
# alone and killed. A predictor that answers half the need extends
# nothing. The schedule's ends are the kills. Bad ratio files are refused
# naming file:line; the options that do not go together, with exit 1.
set -u
fail=0
for j in "1 0 100" "2 1000 110" "3 2000 120" "4 3000 400"; do
	set -- $j
	echo "$1 $2 0 $3 4 -1 -1 4 1000 -1 1 7 1 -1 1 1 -1 -1"
done >four.swf
replay() { mpipredict-replay --procs 10 --json "$@" four.swf 2>err.txt; }
field() { jq -r "$1" out.json; }

replay --limits request >out.json || { echo "request: exit $?: $(cat err.txt)"; exit 1; }
[ "$(field '.limits | [.killed, .extended] | @csv')" = 0,0 ] ||
	{ echo "request: expected no job killed or extended, got $(cat out.json)"; fail=1; }

replay --limits ecmwf --schedule none.txt >out.json || { echo "ecmwf: exit $?: $(cat err.txt)"; exit 1; }
[ "$(field '.limits | [.killed, .extended, .saved] | @csv')" = 2,0,0 ] ||
	{ echo "ecmwf: expected jobs 3 and 4 killed, got $(cat out.json)"; fail=1; }
# job 3's limit 105 + sd(100, 110) = 112.07 s; job 4's from 100, 110, 112.07
awk '$1 == 3 { if ($4 - $3 < 112.0 || $4 - $3 > 112.2) { print "job 3 ends " $4 - $3 " s after its start, expected its limit 112.07"; exit 1 } }' none.txt || fail=1
w=$(field '.limits.waste_proc_h * 3600 / 4')
awk -v w="$w" 'BEGIN { exit !(w > 112.07 + 112 && w < 112.07 + 114) }' ||
	{ echo "ecmwf: expected the waste to be the two limits x 4 processors, got $w s per processor"; fail=1; }

echo 1 >exact.txt
replay --limits ecmwf --extend-ratios exact.txt --schedule ext.txt >out.json ||
	{ echo "extend: exit $?: $(cat err.txt)"; exit 1; }
[ "$(field '.limits | [.killed, .extended, .saved, .over_cap] | @csv')" = 1,1,1,1 ] ||
	{ echo "extend: expected job 3 extended and saved, job 4 over the cap and killed, got $(cat out.json)"; fail=1; }
awk '$1 == 3 && $4 - $3 != 120 { print "job 3: expected its whole 120 s, got " $4 - $3; exit 1 }' ext.txt || fail=1

printf '# half the need\n0.5\n' >half.txt
replay --limits ecmwf --extend-ratios half.txt >out.json || { echo "half: exit $?"; exit 1; }
[ "$(field '.limits | [.killed, .extended] | @csv')" = 2,0 ] ||
	{ echo "half: expected nothing extended, got $(cat out.json)"; fail=1; }
# a cap of 5 %: job 3's +7 % is over it
replay --limits ecmwf --extend-ratios exact.txt --extend-cap-pct 5 >out.json || { echo "cap: exit $?"; exit 1; }
[ "$(field '.limits | [.killed, .over_cap] | @csv')" = 2,2 ] ||
	{ echo "cap 5 %: expected both over the cap, got $(cat out.json)"; fail=1; }

printf '1.1\nabc\n' >bad.txt
replay --limits ecmwf --extend-ratios bad.txt >/dev/null
rc=$?
[ $rc = 2 ] && grep -q "bad.txt:2: 'abc' is not a ratio > 0" err.txt ||
	{ echo "bad ratio: expected exit 2 naming bad.txt:2, got $rc: $(cat err.txt)"; fail=1; }
replay --extend-ratios exact.txt >/dev/null
[ $? = 1 ] && grep -q -- "--extend-ratios needs --limits" err.txt ||
	{ echo "expected --extend-ratios without --limits refused (exit 1), got: $(cat err.txt)"; fail=1; }
replay --limits ecmwf --pred tsafrir >/dev/null
[ $? = 1 ] && grep -q -- "--limits goes with --pred requested" err.txt ||
	{ echo "expected --limits with --pred tsafrir refused (exit 1), got: $(cat err.txt)"; fail=1; }
exit $fail
