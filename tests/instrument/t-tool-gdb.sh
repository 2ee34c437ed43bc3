#!/usr/bin/env bash
# gdb (`gdb -batch -ex run -ex bt`) runs an instrumented program linked by
# $(LD) = mpicc and one linked by mpipredict-mpicc to its normal end in
# one process (gdb says "executing new program" on an exec: a re-exec to
# load the runtime would show; OpenMPI's singleton forks orted, which gdb
# detaches from), with an exact row; and a breakpoint in the
# user's code is reached with the backtrace naming main.
. "$MPP_SRC/tests/instrument/tools.sh"
command -v gdb >/dev/null || { echo "SKIP: gdb is not installed (Debian package gdb)"; exit 77; }
build_tools_prog "$CFLAGS_T"
for p in prog-ld prog-cc; do
	# gdb's status is its last command's: bt after a normal exit fails.
	# LeakSanitizer cannot run under ptrace (SANITIZE=1 builds).
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0 \
		MPIPREDICT_RUNS=runs-$p gdb -q -nx -batch -ex run -ex bt ./$p >gdb-$p.out 2>&1 </dev/null
	grep -q "executing new program" gdb-$p.out && fail "$p: the program ran itself again under gdb: $(cat gdb-$p.out)"
	grep -q '^sum 9$' gdb-$p.out || fail "$p under gdb: expected 'sum 9': $(cat gdb-$p.out)"
	grep -q 'exited normally' gdb-$p.out || fail "$p under gdb: expected a normal exit: $(cat gdb-$p.out)"
	check_row runs-$p $p "$p under gdb"
	MPIPREDICT_RUNS=runs-bt-$p gdb -q -nx -batch -ex 'break work' -ex run -ex bt -ex continue ./$p >bt-$p.out 2>&1 </dev/null
	grep -qE '^#1 .* main \(' bt-$p.out || fail "$p: expected the breakpoint in work() called from main: $(cat bt-$p.out)"
	check_row runs-bt-$p $p "$p under gdb with a breakpoint"
done
exit 0
