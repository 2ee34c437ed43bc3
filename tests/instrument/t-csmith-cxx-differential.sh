#!/usr/bin/env bash
# Differential test with csmith in C++ mode (--lang-cpp --cpp11; Debian has
# no generator of idiomatic C++, so no templates or lambdas here, but C++
# parsing, references, and hosts wrapped in try/catch around calls that may
# throw): random programs, instrumented and original, must
# print the same checksum. The seeds are fixed, so the set is the same
# every run. A
# program whose original does not finish within 5 s is dropped, not
# counted. A rewriter that inserts nothing must fail too: every compared
# program must have counters in its manifest, and most (a program may run
# none of its few loops and branches) must count something. 30 programs
# (seeds 1..30), 200 in make check-long. Prints how
# many were compared.
n=30
[ "${MPP_LONG:-0}" = 1 ] && n=200
LABEL="csmith C++" CSMITH_LANG="--lang-cpp --cpp11" CCX=g++ STD=-std=gnu++11 EXT=cpp
. "$MPP_SRC/tests/instrument/csmith.sh"
