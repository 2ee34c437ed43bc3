#!/usr/bin/env bash
# callgrind with --trace-children=yes profiles an instrumented program
# linked by $(LD) = mpicc (before, the unit's re-exec made valgrind fail
# with "mmap(0x58000000, 4096) failed in UME with error 22") and one linked
# by mpipredict-mpicc: output, an exact row, and one profile per program in
# which the runtime's MPI wrapper is seen running in the program's process.
. "$MPP_SRC/tests/instrument/tools.sh"
command -v valgrind >/dev/null || { echo "SKIP: valgrind is not installed (Debian package valgrind)"; exit 77; }
skip_if_sanitized callgrind
build_tools_prog ""
for p in prog-ld prog-cc; do
	got=$(MPIPREDICT_RUNS=runs-$p valgrind -q --tool=callgrind --trace-children=yes \
		--callgrind-out-file=cg-$p.%p ./$p 2>cg-$p.err) || fail "$p under callgrind exits $?: $(cat cg-$p.err)"
	grep -q "UME\|cannot run" cg-$p.err && fail "$p: callgrind failed to load the program: $(cat cg-$p.err)"
	[ "$got" = "sum 9" ] || fail "$p under callgrind: expected 'sum 9', got '$got'"
	check_row runs-$p $p "$p under callgrind"
	# The singleton also profiles OpenMPI's orted: one profile must be the
	# program's (a re-exec would make two), the wrapper called in it.
	n=$(grep -l "^cmd: *\./$p\$" cg-$p.[0-9]* | wc -l)
	[ "$n" = 1 ] || fail "$p: expected one profile of ./$p (one process, no re-exec), got $n"
	prof=$(grep -l "^cmd: *\./$p\$" cg-$p.[0-9]*)
	grep -qE '^c?ob=.*libmpipredict' "$prof" || fail "$p: expected calls into libmpipredict in the profile"
	grep -qE '^c?fn=.*MPI_Allreduce' "$prof" || fail "$p: expected MPI_Allreduce in the profile"
done
exit 0
