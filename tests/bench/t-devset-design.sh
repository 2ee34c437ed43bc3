#!/usr/bin/env bash
# The development set's recipes (tests/bench/devset/*.sh) keep the contract
# accuracy.sh relies on: a size parameter that every setting shows as
# regress/params.h names it (read by accuracy.py's reader, the one the
# tables use), 5-8 sizes in the trained range (one run of each, a session,
# is enough to train on) and 1-2 past it, all larger; bench-remaining's
# devset_long_design 6-8 rising sizes;
# and SRC=DIR refuses a folder that is missing or holds none of the codes
# with one line, exit 1. No third-party code is needed: nothing is built.
fail=0
bad() {
	echo "$*"
	fail=1
}
n=0
for r in "$MPP_SRC"/tests/bench/devset/*.sh; do
	code=$(basename "$r" .sh)
	n=$((n + 1))
	# The accuracy design, a line "--", then bench-remaining's sizes.
	out=$(bash -c '. "$1" && type devset_build >/dev/null &&
		printf "%s\n" "$DEVSET_SIZE" && devset_design && echo -- &&
		devset_long_design' _ "$r") ||
		{ bad "$code: the recipe does not source or lacks devset_build/devset_design/devset_long_design"; continue; }
	printf '%s\n' "$out" | MPP_SRC=$MPP_SRC python3 -c '
import os, sys
sys.path.insert(0, os.environ["MPP_SRC"] + "/tests/bench")
import accuracy
code = sys.argv[1]
lines = sys.stdin.read().splitlines()
size, cut = lines[0], lines.index("--")
def sizes(design, roles, what):
    got = {r: [] for r in roles}
    for d in design:
        f = d.split("\t")
        if len(f) != 3 or f[0] not in roles:
            sys.exit("%s: %snot %s<TAB>PARAMS<TAB>ARGS: %r" % (code, what, "/".join(roles), d))
        # What the row will show: the arguments, then the declared parameters.
        p = accuracy.params_of((f[2] + " " + f[1]).strip(), 1)
        if size not in p:
            sys.exit("%s: %s%r does not show %s" % (code, what, d, size))
        got[f[0]].append(p[size])
    return got
g = sizes(lines[1:cut], ("train", "held"), "")
train, held = g["train"], g["held"]
if not 5 <= len(train) <= 8 or not 1 <= len(held) <= 2:
    sys.exit("%s: %d sizes in range, %d past it" % (code, len(train), len(held)))
if min(held) <= max(train):
    sys.exit("%s: held-out sizes %s not past the trained %s" % (code, held, train))
# bench-remaining: train rows only, 6-8 rising sizes (its jobs are the
# 2nd and 3rd largest).
long = sizes(lines[cut + 1:], ("train",), "devset_long_design: ")["train"]
if not 6 <= len(long) <= 8 or long != sorted(set(long)):
    sys.exit("%s: devset_long_design: expected 6-8 rising sizes, got %s" % (code, long))
' "$code" || bad "$code: design refused (line above)"
done
[ "$n" -ge 4 ] || bad "expected at least 4 recipes, found $n"

# The compiler a recipe builds with (issue 34: bench-overhead builds each
# code plain too): the wrapper by default, DEVSET_CC/DEVSET_CXX when set,
# and nothing else on make's command line. A stand-in make records its
# arguments; the checkouts are the few files the recipes touch.
mkdir -p fake co/XSBench/openmp-threading co/miniFE/ref/src co/PENNANT/test/sedov co/hpcg \
	co/CoMD/src-mpi co/miniAMR/ref
: >co/CoMD/src-mpi/Makefile.vanilla
printf '#!/bin/sh\nprintf "%%s\\n" "$@" >>"$MAKE_ARGS"\n' >fake/make
printf '#!/bin/sh\nexit 0\n' >co/hpcg/configure
chmod +x fake/make co/hpcg/configure
printf 'meshparams 45 45 1.125 1.125\ndtinit 1e-4\n' >co/PENNANT/test/sedov/sedov.pnt
for r in "$MPP_SRC"/tests/bench/devset/*.sh; do
	code=$(basename "$r" .sh)
	[ -d "co/$code" ] || { bad "$code: no stand-in checkout in this test (add one)"; continue; }
	for v in wrapper plain; do
		rm -rf "w-$code-$v"
		mkdir "w-$code-$v"
		(. "$r" && export PATH=$PWD/fake:$PATH MAKE_ARGS=$PWD/make-$code-$v &&
			if [ $v = plain ]; then export DEVSET_CC=mpicc DEVSET_CXX=mpicxx; fi &&
			devset_build "$PWD/co/$code" "$PWD/w-$code-$v") >"build-$code-$v.log" 2>&1 ||
			{ bad "$code ($v): devset_build fails with a stand-in make: $(tail -3 "build-$code-$v.log")"; continue; }
		if [ $v = plain ]; then want='^(CC=mpicc|CXX=mpicxx)$'; else want='^(CC=mpipredict-mpicc|CXX=mpipredict-mpicxx)$'; fi
		got=$(grep -E '^(CC|CXX)=' "make-$code-$v" 2>/dev/null)
		[ -n "$got" ] && ! printf '%s\n' "$got" | grep -vqE "$want" ||
			bad "$code ($v): expected make's CC/CXX to match $want, got: $(echo $got)"
	done
done

# SRC=DIR mistakes: one line naming the folder, exit 1.
build=$(realpath --relative-to="$MPP_SRC" "$MPP_BUILD")
mkdir empty
for src in "$PWD/nonexistent" "$PWD/empty"; do
	BUILD=$build SRC=$src MPP_BENCH_OUT=$PWD/out \
		"$MPP_SRC/tests/bench/accuracy.sh" >stdout 2>stderr
	rc=$?
	if [ -x "$MPP_BUILD/tests/bench/loglog" ]; then
		[ "$rc" = 1 ] || bad "SRC=$src: exit $rc, expected 1"
		[ "$(wc -l <stderr)" = 1 ] && grep -q "SRC=$src" stderr ||
			bad "SRC=$src: expected one line naming it, got: $(cat stderr)"
	fi
done
[ ! -e out ] || bad "a refused SRC left an output folder"
exit $fail
