/*
 * plan.h: what the visitor decided for one file, before any text is
 * written: the counters (loop bodies, then- and else-branches) and MPI call
 * sites it will create, in slot order, the edits that implement them, and
 * the `file:line: not instrumented: why` notes for what it left alone.
 * codegen.c turns a plan into declarations and the features.tsv rows.
 */
#ifndef MPP_INSTRUMENT_PLAN_H
#define MPP_INSTRUMENT_PLAN_H

#include "instrument/edits.h"
#include "instrument/lean.h"

/* MPP_CASE: a `case` or `default` label of a switch, counted each time
 * control passes it (jumped to, or falling through from the case above). */
enum mpp_counter_kind { MPP_LOOP, MPP_THEN, MPP_ELSE, MPP_CASE };

struct mpp_counter_info {
	enum mpp_counter_kind kind;
	unsigned line, col; /* of the loop or if keyword (its macro, if any) */
	const char *stmt;   /* "for", "while", "do", "if" or "case" (static) */
	char *func;         /* enclosing function (owned) */
};

struct mpp_site_info {
	unsigned line, col; /* of the callee's name */
	const char *mpi;    /* the MPI function (static, from the table) */
	char *func;         /* enclosing function (owned) */
};

struct mpp_plan {
	struct mpp_counter_info *counters;
	size_t ncounters, capcounters;
	struct mpp_site_info *sites;
	size_t nsites, capsites;
	char **notes; /* "file:line: not instrumented: why" (owned) */
	size_t nnotes, capnotes;
	struct mpp_edits edits;
	/* Counters the runtime computes instead of the program counting
	 * them (visit.c, flow conservation): triples (e, body, then), slot e
	 * = slot body - slot then, in this order (a body may be an earlier
	 * triple's e). */
	size_t *derived;
	size_t nderived, capderived; /* triples; capacity in slots */
	/* The file part of feature names (see mpp_feature_file in
	 * rewrite.h); codegen uses it for the names it writes. */
	const char *name_file;
	/* The unit is C++ (visit.c decides from the file name): the prologue
	 * declares the runtime's symbols extern "C". */
	int cxx;
	/* A C unit defining a function `inline` without `static`: such a
	 * function may not use an identifier of internal linkage (C11
	 * 6.7.4p3, a GCC warning), so codegen gives the counter and site
	 * arrays and the tag function external, hidden, weak names. */
	int ext_inline;
	/* A lean build (lean.h): only the counters it names are planted;
	 * NULL counts everything. Not owned. */
	const struct mpp_lean *lean;
	/* The text the unit's build id covers when it is not the body:
	 * the body without the paths of header copies (borrowed). */
	const char *id_text;
	size_t id_len;
};

void mpp_plan_free(struct mpp_plan *p);

#endif
