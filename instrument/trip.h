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
 * direction agreeing with OP), alone or joined by commas to such steps of
 * other local integers, none of them B's (`ij++, jOff++`); the init may
 * declare other integers beside v (`int jOff = A2, ij = 0`) or assign
 * them in a comma expression (`jOff = A2, ij = 0`); B built only of integer
 * literals, enumerators and integer variables (no call, no memory access
 * but a variable's own); when a variable of B has static storage (a
 * global), BODY holds no call and no store through an lvalue that may hold
 * an integer (a floating or pointer lvalue, or a named variable, cannot:
 * C11 6.5p7); neither v nor a variable of B assigned, incremented or
 * decremented in BODY nor its address taken anywhere in the function; and BODY
 * leaves only by its end or `continue`: no break of its own, goto, return,
 * label, asm goto, nor a call that may not return or may return twice. Then the
 * loop runs exactly TRIP(v, B) times from the v that the init gives, and that
 * is what the counter receives, in one addition placed in the init.
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

/* The same count for a loop that is the whole body of `outer`, or the
 * whole body of a loop that is outer's whole body, and so on (up to four
 * loops inside outer), each a loop mpp_trip_plan also takes, added once
 * at outer's entry instead: outer's count times each count inside down
 * to the loop's, when every loop inside outer starts at literals or
 * enumerators, outer and the loops between step their variables alone
 * and no bound reads the variable of a loop around it in the chain (so
 * every pass of outer runs the loop equally often). miniAMR's sweeps,
 * `for (i ...) for (j = 1; j <= y_block_size; j++) for (k = 1; k <=
 * z_block_size; k++)`, enter their k loop 36-144 times per pass of the
 * block loop. Same returns and *pos, *text as mpp_trip_plan (*pos in
 * outer's init). derive_trip (visit.c) takes the outermost such loop. */
int mpp_trip_nest(const struct mpp_tu *t, const struct mpp_source *src,
		  CXCursor loop, CXCursor outer, CXCursor func,
		  const char *counter, const char *tmp, size_t *pos,
		  char **text);

/* 1 when a loop that mpp_trip_plan takes should get its count at entry
 * in a host's local too, because the compiler does not fold the host's
 * per-iteration increment: when it starts and ends at integer literals or
 * at the variables of the for loops around it (`outer`, its ancestors in
 * any order), one of them at least such a variable, its count is an affine
 * function of their induction variables, which the compiler folds into
 * their own arithmetic (XSBench's pick_mat: `for (j = i; j > 0; j--)`
 * inside `for (i = 0; i < 12; i++)`, unrolled whole, where a count in the
 * body kept the nest from folding), not a compare and select on a loaded
 * value at every entry (is's `for (m = hist[v]; m > 0; m--)`, mostly run
 * once); and when its bound reads a variable of static storage (miniAMR's
 * `k <= z_block_size`: gcc -O3 kept the increment and the count from the
 * loop variable cost 9 instructions per entry). 0 otherwise. */
int mpp_trip_host_entry(const struct mpp_tu *t, CXCursor loop,
			const CXCursor *outer, size_t n);

/* A loop that mpp_trip_plan takes whose start and bound are integer
 * constants (literals, enumerators, expressions of them, in [0, 2^31))
 * and whose variable has at least 32 bits runs the same number of times
 * at every entry: 0 and that number in *trip (at most MPP_TRIP_CONST_MAX,
 * what a derived count's scale can hold, mpp_abi.h), 1 otherwise.
 * CoMD's `for (m = 0; m < 3; m++)` after the cutoff test (issue 34). */
#define MPP_TRIP_CONST_MAX 0x1fffffffUL
int mpp_trip_const(const struct mpp_tu *t, const struct mpp_source *src,
		   CXCursor loop, CXCursor func, unsigned long *trip);

/* Counts derived from the loop variable (issue 14), for a loop whose
 * counter a host keeps in a local: a for loop `for (v = A; COND; STEP)`
 * or `for (T v = A; ...)` with STEP as above (either direction, whatever
 * COND is), v a local integer variable (signed, or unsigned of 64 bits)
 * that neither COND nor BODY changes, whose address is never taken, and
 * that no declaration in BODY shadows; BODY may leave by break, return
 * and goto but holds no label, asm, nor a call that may not return or
 * may return twice. Then the body ran (v - v0) / C times (|...| going
 * down) when COND fails, one more when the body leaves: the local
 * subtracts v at entry, adds it back at every way out, and the flush
 * divides by C. Fills *iv and returns 0; 1 when the loop does not
 * qualify; -1 when out of memory. iv->var is malloc'd. */
#define MPP_IV_BREAKS 16
struct mpp_iv {
	char *var;
	int up, decl;
	unsigned long step;
	size_t init_end, cond_begin, cond_end, body_begin, body_end;
	CXCursor breaks[MPP_IV_BREAKS]; /* the loop's own break statements */
	unsigned nbreaks;
};
/* A test `v OP B` whose bound B is built of literals and locals only is
 * left to the compiler (it counts such a loop itself), except when v
 * starts at the literal 0 and a local of B is declared inside one of the
 * loops `outer[0..nouter)` that contains this one (a row's length read in
 * the row loop): the count is then v's value at the exit, one addition
 * per entry, where the compiler's own count costs a comparison and two
 * more. Callers pass nouter 0 for a loop that may leave other than by
 * its test. */
int mpp_trip_iv(const struct mpp_tu *t, const struct mpp_source *src,
		CXCursor loop, CXCursor func, const CXCursor *outer,
		size_t nouter, struct mpp_iv *iv);

#endif
