#!/usr/bin/env bash
# mpipredict-instrument's command line, its refusals and its manifest:
# usage errors exit 1 naming the option; a missing file or one that does
# not parse cleanly exits 2 with clang's diagnostics and writes nothing
# (not even the good files given with it); features.tsv has the header,
# one row per counter and two per call site, with function and detail;
# -p BUILD_DIR takes -I/-D from compile_commands.json. mpipredict-cc
# compiles a file clang rejects unchanged, with a note, and
# MPIPREDICT_DISABLE=1 leaves the build untouched.
. "$MPP_SRC/tests/instrument/lib.sh"

"$INS" >/dev/null 2>err.txt; rc=$?
[ $rc = 1 ] || fail "no file: expected exit 1, got $rc"
"$INS" --bogus x.c >/dev/null 2>err.txt; rc=$?
[ $rc = 1 ] && grep -q -- --bogus err.txt || fail "--bogus: expected exit 1 naming it, got $rc: $(cat err.txt)"
"$INS" -o out nosuch.c 2>err.txt; rc=$?
[ $rc = 2 ] && grep -q nosuch.c err.txt || fail "missing file: expected exit 2 naming it, got $rc: $(cat err.txt)"

printf 'int good(int n)\n{\n\tint s = 0;\n\twhile (n--)\n\t\ts++;\n\treturn s;\n}\n' >good.c
printf 'int bad(void)\n{\n\treturn undeclared_thing;\n}\n' >bad.c
"$INS" -o out good.c bad.c 2>err.txt; rc=$?
[ $rc = 2 ] || fail "bad.c: expected exit 2, got $rc"
grep -q "bad.c:3:.*undeclared_thing" err.txt || fail "bad.c: expected clang's diagnostic, got: $(cat err.txt)"
grep -q "bad.c: does not parse cleanly" err.txt || fail "bad.c: expected a refusal naming it, got: $(cat err.txt)"
[ -e out ] && fail "bad.c: expected nothing written, got: $(ls -R out)"

# The manifest of the golden MPI input, checked against its source by hand.
cp "$MPP_SRC/tests/instrument/golden/mpi_calls.c" .
"$INS" -o out --app demo mpi_calls.c 2>/dev/null || fail "mpi_calls.c: exit $?"
tab=$(printf '\t')
cat >want.tsv <<TSV
# app: demo
name${tab}kind${tab}file${tab}line${tab}col${tab}function${tab}detail
then:mpi_calls.c:50:2${tab}then${tab}mpi_calls.c${tab}50${tab}2${tab}main${tab}if
then:mpi_calls.c:55:2${tab}then${tab}mpi_calls.c${tab}55${tab}2${tab}main${tab}if
loop:mpi_calls.c:57:2${tab}loop${tab}mpi_calls.c${tab}57${tab}2${tab}main${tab}for
loop:mpi_calls.c:63:2${tab}loop${tab}mpi_calls.c${tab}63${tab}2${tab}main${tab}while
call:mpi_calls.c:44:9:MPI_Barrier${tab}call${tab}mpi_calls.c${tab}44${tab}9${tab}finish${tab}MPI_Barrier
bytes:mpi_calls.c:44:9:MPI_Barrier${tab}bytes${tab}mpi_calls.c${tab}44${tab}9${tab}finish${tab}MPI_Barrier
call:mpi_calls.c:50:6:MPI_Send${tab}call${tab}mpi_calls.c${tab}50${tab}6${tab}main${tab}MPI_Send
bytes:mpi_calls.c:50:6:MPI_Send${tab}bytes${tab}mpi_calls.c${tab}50${tab}6${tab}main${tab}MPI_Send
call:mpi_calls.c:52:6:MPI_Barrier${tab}call${tab}mpi_calls.c${tab}52${tab}6${tab}main${tab}MPI_Barrier
bytes:mpi_calls.c:52:6:MPI_Barrier${tab}bytes${tab}mpi_calls.c${tab}52${tab}6${tab}main${tab}MPI_Barrier
call:mpi_calls.c:52:28:MPI_Send${tab}call${tab}mpi_calls.c${tab}52${tab}28${tab}main${tab}MPI_Send
bytes:mpi_calls.c:52:28:MPI_Send${tab}bytes${tab}mpi_calls.c${tab}52${tab}28${tab}main${tab}MPI_Send
call:mpi_calls.c:55:15:MPI_Allreduce${tab}call${tab}mpi_calls.c${tab}55${tab}15${tab}main${tab}MPI_Allreduce
bytes:mpi_calls.c:55:15:MPI_Allreduce${tab}bytes${tab}mpi_calls.c${tab}55${tab}15${tab}main${tab}MPI_Allreduce
call:mpi_calls.c:58:9:MPI_Send${tab}call${tab}mpi_calls.c${tab}58${tab}9${tab}main${tab}MPI_Send
bytes:mpi_calls.c:58:9:MPI_Send${tab}bytes${tab}mpi_calls.c${tab}58${tab}9${tab}main${tab}MPI_Send
call:mpi_calls.c:59:29:MPI_Barrier${tab}call${tab}mpi_calls.c${tab}59${tab}29${tab}main${tab}MPI_Barrier
bytes:mpi_calls.c:59:29:MPI_Barrier${tab}bytes${tab}mpi_calls.c${tab}59${tab}29${tab}main${tab}MPI_Barrier
call:mpi_calls.c:63:9:MPI_Barrier${tab}call${tab}mpi_calls.c${tab}63${tab}9${tab}main${tab}MPI_Barrier
bytes:mpi_calls.c:63:9:MPI_Barrier${tab}bytes${tab}mpi_calls.c${tab}63${tab}9${tab}main${tab}MPI_Barrier
TSV
expect_same "features.tsv" want.tsv out/features.tsv

# -p: flags from compile_commands.json, relative to its directory.
mkdir -p proj/src proj/inc
printf '#define LIMIT 4\n' >proj/inc/cfg.h
printf '#include "cfg.h"\nint f(void)\n{\n\tint s = 0;\n#if MODE == 3\n\tfor (int i = 0; i < LIMIT; i++)\n\t\ts++;\n#endif\n\treturn s;\n}\n' >proj/src/a.c
cat >proj/compile_commands.json <<JSON
[{"directory": "$PWD/proj", "file": "src/a.c",
  "command": "gcc -Iinc -DMODE=3 -fno-tree-vectorize -c src/a.c -o a.o"}]
JSON
"$INS" -o outp proj/src/a.c 2>err.txt && fail "without -p: expected a refusal (cfg.h not found), got exit 0"
"$INS" -o outp -p proj proj/src/a.c 2>err.txt || fail "-p proj: exit $?: $(cat err.txt)"
# Feature names are relative to the project's root (proj: it holds the
# build file), whatever directory the command ran in.
grep -q "^loop:src/a.c:6:2${tab}" outp/features.tsv || fail "-p: expected the loop under MODE == 3, got: $(cat outp/features.tsv)"

# mpipredict-cc: gcc's nested functions are not C to clang.
printf '#include <stdio.h>\nint main(void)\n{\n\tint k = 2;\n\tint add(int x) { return x + k; }\n\tprintf("%%d\\n", add(3));\n\treturn 0;\n}\n' >nested.c
MPIPREDICT_LIBDIR=/nonexistent "$MCC" gcc -c nested.c -o nested.o 2>err.txt || fail "nested.c: expected it compiled unchanged, got exit $?"
grep -q "nested.c: not instrumented: clang cannot parse it" err.txt || fail "nested.c: expected a note, got: $(cat err.txt)"
nm nested.o | grep -q __mpp_ && fail "nested.c: expected an uninstrumented object"

MPIPREDICT_DISABLE=1 "$MCC" gcc good.c -shared -o good.so 2>err.txt || fail "MPIPREDICT_DISABLE=1: exit $?: $(cat err.txt)"
nm good.so | grep -q __mpp_ && fail "MPIPREDICT_DISABLE=1: expected an uninstrumented build"
MPIPREDICT_LIBDIR=/nonexistent "$MCC" gcc -c good.c -o good.o || fail "good.c: exit $?"
nm good.o | grep -q __mpp_register || fail "good.c: expected an instrumented object"
echo ok
