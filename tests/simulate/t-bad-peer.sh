#!/usr/bin/env bash
# A trace line naming a rank beyond nprocs (a hand-edited trace, a trace
# dir whose meta lost a rank): SimGrid's replay aborted on it with a
# backtrace, exit 3, and the message pointed at a replay.log already
# deleted (issue 38). Now: exit 2, the message names the file and line,
# from replay and from predict's --train alike; and when SimGrid itself
# fails (a trace whose receives are never sent: it deadlocks), the log
# its message names is kept.
set -u
. "$MPP_SRC/tests/simulate/lib.sh"
write_profile p.json
fail=0
mkdir -p bad dl
printf 'nprocs 2\nargs -n 8\n' >bad/meta
cp bad/meta dl/meta
printf '0 init\n0 compute 1000\n0 send 5 0 8\n0 compute 10\n0 finalize\n# wall 0.001\n' >bad/rank-0.ti
printf '1 init\n1 compute 1000\n1 finalize\n# wall 0.001\n' >bad/rank-1.ti
mpipredict-simulate replay --profile p.json --trace bad >out.txt 2>err.txt
rc=$?
[ $rc -eq 2 ] || { echo "replay: expected exit 2 for a peer beyond nprocs, got $rc: $(cat err.txt)"; fail=1; }
grep -q 'bad/rank-0.ti:3: send 5 0 8: peer 5 is not a rank of this 2-rank run' err.txt ||
	{ echo "replay: expected the file, line and peer named: $(cat err.txt)"; fail=1; }
[ "$(wc -l <err.txt)" -eq 1 ] || { echo "expected one line: $(cat err.txt)"; fail=1; }
[ ! -s out.txt ] || { echo "expected nothing on stdout: $(head -3 out.txt)"; fail=1; }
mpipredict-simulate predict --profile p.json --train bad --ranks 2 -- /bin/true >out.txt 2>err.txt
rc=$?
[ $rc -eq 2 ] && grep -q 'bad/rank-0.ti:3: .*peer 5' err.txt ||
	{ echo "predict --train: expected exit 2 naming bad/rank-0.ti:3, got $rc: $(cat err.txt)"; fail=1; }
# SimGrid fails: the log named in the message exists
printf '0 init\n0 compute 1000\n0 recv 1 0 8\n0 finalize\n' >dl/rank-0.ti
printf '1 init\n1 compute 1000\n1 recv 0 0 8\n1 finalize\n' >dl/rank-1.ti
TMPDIR=$PWD mpipredict-simulate replay --profile p.json --trace dl >out.txt 2>err.txt
rc=$?
[ $rc -ne 0 ] || { echo "expected the deadlocked replay to fail"; fail=1; }
log=$(grep -o '/[^ :]*\.log' err.txt | head -1)
[ -n "$log" ] && [ -s "$log" ] ||
	{ echo "expected the message to name a log that exists: $(cat err.txt)"; fail=1; }
exit $fail
