#!/usr/bin/env bash
# perf stat measures an instrumented program linked by $(LD) = mpicc and
# one linked by mpipredict-mpicc: the program's output, an exact row, and
# perf's count. Skipped when this machine does not let perf count
# (kernel.perf_event_paranoid, no perf_event_open in a container).
. "$MPP_SRC/tests/instrument/tools.sh"
command -v perf >/dev/null && perf stat -e task-clock true >/dev/null 2>perf-probe.err ||
	{ echo "SKIP: perf cannot count here (perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)): $(head -1 perf-probe.err 2>/dev/null)"; exit 77; }
build_tools_prog "$CFLAGS_T"
for p in prog-ld prog-cc; do
	got=$(MPIPREDICT_RUNS=runs-$p perf stat -x, -e task-clock -o perf-$p.csv ./$p) ||
		fail "$p under perf stat exits $?"
	[ "$got" = "sum 9" ] || fail "$p under perf: expected 'sum 9', got '$got'"
	grep -q 'task-clock' perf-$p.csv || fail "$p: expected perf's task-clock count: $(cat perf-$p.csv)"
	check_row runs-$p $p "$p under perf stat"
done
exit 0
