#!/usr/bin/env bash
# Differential test with csmith: random C programs, instrumented and
# original, must print the same checksum. 50 programs (seeds 1..50, so the
# set is the same every run); MPP_LONG=1 (make check-long) runs 300. A
# program whose original does not finish within 5 s is dropped, not
# counted. A rewriter that inserts nothing must fail too: every compared
# program must have counters in its manifest, and most (a program may run
# none of its few loops and branches) must count something. Prints how
# many were compared.
n=50
[ "${MPP_LONG:-0}" = 1 ] && n=300
LABEL=csmith CSMITH_LANG= CCX=gcc STD= EXT=c
. "$MPP_SRC/tests/instrument/csmith.sh"
