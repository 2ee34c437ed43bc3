#!/usr/bin/env bash
# mpipredict-replay on a hand-written trace for a 4-processor machine:
# - processors come from SWF field 8 (requested), as the SC'15 study's
#   simulator takes them, or field 5 (allocated) with --procs-from
#   allocated; the jobs where the two differ are counted (summary and a
#   stderr notice) and the schedule changes: job 1 requested 2 and was
#   allocated 4, so by its request job 2 (2 processors) runs beside it at
#   once, by its allocation job 2 waits for it (100 s);
# - job 3 asks for 8 processors: clamped to the machine's 4 and counted by
#   default (the study's simulator), refused with --oversize refuse (exit
#   2, the file, line and field named);
# - job 4 ran past its request: its run time is cut to the request;
# - without --procs, the machine is the trace's "; MaxProcs: N" header, as
#   in the study's simulator (a header that is not a count: exit 2 naming
#   the line).
set -u
fail=0
cat > t.swf <<'SWF'
; id submit wait run alloc cpu mem reqprocs reqtime reqmem status user group app queue part prev think
1 0 0 100 4 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1
2 0 0 100 2 -1 -1 2 100 -1 1 2 1 -1 -1 -1 -1 -1
3 1000 0 50 8 -1 -1 8 60 -1 1 3 1 -1 -1 -1 -1 -1
4 2000 0 300 1 -1 -1 1 200 -1 1 4 1 -1 -1 -1 -1 -1
SWF
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }
start_of() { awk -v j="$1" '$1 == j { print $3 }' "$2"; }

out=$(mpipredict-replay --procs 4 --schedule req.txt t.swf 2>err); rc=$?
[ $rc -eq 0 ] || { echo "requested: expected exit 0, got $rc: $(cat err)"; exit 1; }
[ "$(printf '%s' "$out" | field procs_differ)" = 1 ] ||
	{ echo "requested: expected procs_differ=1, got '$out'"; fail=1; }
grep -q 't.swf: 1 jobs were allocated (field 5) another number of processors than they requested (field 8); replayed with the request' err ||
	{ echo "requested: expected the notice of 1 job, got '$(cat err)'"; fail=1; }
[ "$(start_of 2 req.txt)" = 0 ] || { echo "requested: expected job 2 to start at 0 beside job 1 (2 + 2 processors), got $(start_of 2 req.txt)"; fail=1; }
[ "$(awk '$1 == 1 { print $5 }' req.txt)" = 2 ] || { echo "requested: expected job 1 on 2 processors, got $(awk '$1 == 1' req.txt)"; fail=1; }

out=$(mpipredict-replay --procs 4 --procs-from allocated --schedule alloc.txt t.swf 2>err); rc=$?
[ $rc -eq 0 ] || { echo "allocated: expected exit 0, got $rc: $(cat err)"; exit 1; }
[ "$(printf '%s' "$out" | field procs_differ)" = 1 ] ||
	{ echo "allocated: expected procs_differ=1, got '$out'"; fail=1; }
grep -q 'replayed with the allocation (--procs-from requested for the other)' err ||
	{ echo "allocated: expected the notice naming the allocation, got '$(cat err)'"; fail=1; }
[ "$(start_of 2 alloc.txt)" = 100 ] || { echo "allocated: expected job 2 to wait for job 1 (4 processors) until 100, got $(start_of 2 alloc.txt)"; fail=1; }

# Clamped by default; both files say so.
[ "$(awk '$1 == 3 { print $5 }' req.txt)" = 4 ] || { echo "clamp: expected job 3 on the machine's 4 processors, got $(awk '$1 == 3' req.txt)"; fail=1; }
out=$(mpipredict-replay --procs 4 --json t.swf 2>err)
printf '%s' "$out" | grep -q '"clamped":1' && printf '%s' "$out" | grep -q '"run_cut":1' &&
	printf '%s' "$out" | grep -q '"procs_differ":1' && printf '%s' "$out" | grep -q '"jobs":4' ||
	{ echo "json: expected jobs 4, clamped 1, run_cut 1, procs_differ 1, got '$out'"; fail=1; }
grep -q "t.swf: 1 jobs wider than the machine's 4 processors replayed on the whole machine" err ||
	{ echo "clamp: expected the notice, got '$(cat err)'"; fail=1; }
# Job 4 ran 300 s against a 200 s request: it ends 200 s after it starts.
awk '$1 == 4 { exit !($4 - $3 == 200) }' req.txt || { echo "run cut: expected job 4 to run 200 s, got $(awk '$1 == 4' req.txt)"; fail=1; }

out=$(mpipredict-replay --procs 4 --oversize refuse t.swf 2>err); rc=$?
[ $rc -eq 2 ] && [ -z "$out" ] &&
	grep -q '^mpipredict-replay: t.swf:4: field 8: job 3 needs 8 processors, the machine has 4' err ||
	{ echo "refuse: expected exit 2 naming t.swf:4: field 8, got $rc '$out' '$(cat err)'"; fail=1; }
out=$(mpipredict-replay --procs-from both t.swf 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "--procs-from both: expected usage error 1, got $rc '$out'"; fail=1; }
out=$(mpipredict-replay --oversize drop t.swf 2>&1); rc=$?
[ $rc -eq 1 ] || { echo "--oversize drop: expected usage error 1, got $rc '$out'"; fail=1; }
# The machine from the header: job 3 clamped to its 4 processors.
{ echo '; MaxProcs: 4'; grep -v '^;' t.swf; } > h.swf
out=$(mpipredict-replay --schedule h.txt h.swf 2>err); rc=$?
[ $rc -eq 0 ] && [ "$(printf '%s' "$out" | field clamped)" = 1 ] &&
	[ "$(awk '$1 == 3 { print $5 }' h.txt)" = 4 ] &&
	grep -q "h.swf: a machine of 4 processors, the trace's MaxProcs" err ||
	{ echo "header: expected a 4-processor machine and job 3 clamped to it, got $rc '$out' '$(cat err)'"; fail=1; }
out=$(mpipredict-replay --procs 8 --schedule h8.txt h.swf 2>err)
[ "$(printf '%s' "$out" | field clamped)" = 0 ] && [ "$(awk '$1 == 3 { print $5 }' h8.txt)" = 8 ] ||
	{ echo "header: expected --procs 8 to win over the header, got '$out'"; fail=1; }
{ echo '; MaxProcs: many'; grep -v '^;' t.swf; } > bad.swf
out=$(mpipredict-replay bad.swf 2>err); rc=$?
[ $rc -eq 2 ] && [ -z "$out" ] && grep -q '^mpipredict-replay: bad.swf:1: MaxProcs: not a processor count' err ||
	{ echo "bad header: expected exit 2 naming bad.swf:1: MaxProcs, got $rc '$out' '$(cat err)'"; fail=1; }
exit $fail
