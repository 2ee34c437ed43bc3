/*
 * visit.h: the AST walk that finds what to count in one parsed file (every
 * for/while/do body, every then- and else-branch, every call of an MPI
 * function listed in collector/mpi_table.def) and plans the edits for it.
 *
 * It only decides; it writes no text. Anything it cannot change safely
 * (a loop written inside a macro body, a body that ends inside a macro, a
 * macro expanding to several statements, ...) is left alone with a note.
 */
#ifndef MPP_INSTRUMENT_VISIT_H
#define MPP_INSTRUMENT_VISIT_H

#include "instrument/plan.h"
#include "instrument/source.h"
#include "instrument/tu.h"

/* `id` is the file's unique identifier suffix (see codegen.h), `display`
 * the file name used in notes and in `#line`. Returns 0, or -1 when out of
 * memory (the plan is then incomplete and must be freed). */
int mpp_visit(const struct mpp_tu *t, const struct mpp_source *src,
	      const char *id, const char *display, struct mpp_plan *plan);

/* What a call does to code around it: 0 nothing known, 1 it may not
 * return (exit, abort, longjmp, _Noreturn ...) or ends the counting
 * (MPI_Finalize, MPI_Abort), 2 it may return twice (setjmp, vfork). */
int mpp_call_effect(CXTranslationUnit tu, CXCursor call);

/* True if calls of `name` are MPI call sites (it is in the table). */
int mpp_is_mpi_site(const char *name);

#endif
