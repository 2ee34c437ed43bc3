#!/usr/bin/env bash
# valgrind's memcheck runs an instrumented program linked by $(LD) = mpicc
# (the units load the runtime with dlopen, no second exec: valgrind cannot
# follow a re-exec of /proc/self/exe) and one linked by mpipredict-mpicc:
# the program's output, a row with exact counts, and no memcheck error in
# the runtime or the rewritten code.
. "$MPP_SRC/tests/instrument/tools.sh"
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed (Debian package valgrind)"; exit 77; }
skip_if_sanitized valgrind
build_tools_prog ""
for p in prog-ld prog-cc; do
	got=$(MPIPREDICT_RUNS=runs-$p valgrind -q --error-exitcode=99 --log-file=vg-$p.log ./$p) ||
		{ rc=$?; [ $rc = 99 ] || fail "$p under memcheck exits $rc: $(cat vg-$p.log)"; }
	grep -q "cannot run\|You should use" vg-$p.log && fail "$p: valgrind refused the program: $(cat vg-$p.log)"
	[ "$got" = "sum 9" ] || fail "$p under memcheck: expected 'sum 9', got '$got'"
	# Errors inside OpenMPI are not ours; any in our code is.
	grep -E '== +(at|by) .*(__mpp|mpp_|libmpipredict|work\.c|main\.c)' vg-$p.log &&
		fail "$p: memcheck reports an error in mpipredict's code: $(cat vg-$p.log)"
	check_row runs-$p $p "$p under memcheck"
done
exit 0
