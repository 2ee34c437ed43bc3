/*
 * trip.h: trip counts of canonical for loops, computed once at the loop's
 * entry instead of counted on every iteration (issue 14: the hot path
 * should cost about an induction variable, and here it costs nothing per
 * iteration). Not for: choosing counters or hosts (visit.c).
 *
 * A loop qualifies when it reads
 *     for (v = A; v OP B; STEP) BODY     or     for (T v = A; ...)
 * with v an integer local variable or parameter, OP one of < <= > >=,
 * STEP ++v, v++, --v, v--, v += C or v -= C (C an integer literal > 0, the
 * direction agreeing with OP); B built only of integer literals,
 * enumerators and local integer variables (no call, no memory access);
 * neither v nor a variable of B assigned, incremented or decremented in
 * BODY nor its address taken anywhere in the function; and BODY leaves
 * only by its end or `continue`: no break of its own, goto, return, label,
 * asm goto, nor a call that may not return or may return twice. Then the
 * loop runs exactly TRIP(v, B) times from the v that the init gives, and
 * that is what the counter receives, in one addition placed in the init.
 */
#ifndef MPP_INSTRUMENT_TRIP_H
#define MPP_INSTRUMENT_TRIP_H

#include <clang-c/Index.h>
#include <stddef.h>

#include "instrument/source.h"
#include "instrument/tu.h"

/* If `loop` (a for statement of function `func`) qualifies, returns 0 and
 * sets *pos to the offset where `*text` (malloc'd) must be inserted: it
 * adds the trip count to `counter` (an lvalue text such as
 * "__mpp_c_<id>[3]"); `tmp` names the unused variable a declaration init
 * needs. Returns 1 when it does not qualify, -1 when out of memory. */
int mpp_trip_plan(const struct mpp_tu *t, const struct mpp_source *src,
		  CXCursor loop, CXCursor func, const char *counter,
		  const char *tmp, size_t *pos, char **text);

#endif
