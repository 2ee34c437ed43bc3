/*
 * visit.c: the AST walk (see visit.h).
 *
 * Every node's children are listed once, into one stack shared by the whole
 * walk (a node's children sit above its parent's and are popped when it is
 * done), so the walk is linear in the size of the AST. Positions are byte
 * offsets: the expansion offset of a token (where its macro invocation
 * starts, if any) and its file offset (where it is spelled, which is inside
 * the invocation for macro arguments). A position is safe to insert at when
 * it lies in the main file and not strictly inside a macro invocation or
 * definition.
 *
 * Counters in loops count into locals. A global counter that is
 * incremented in a hot loop is loaded and stored every iteration (stores
 * through the user's pointers may alias it); a local cannot alias. So the
 * outermost loop that may be wrapped whole (see struct frame) and holds at
 * most HOST_LOCALS counters, or else the innermost such loops, becomes a
 * host: `{__extension__ unsigned long long __mpp_lK = 0, ...; LOOP
 * __mpp_c_ID[K] += __mpp_lK; ...}` (the add written as a relaxed atomic
 * store, host_text says why), and every counter made inside it (its
 * own, those of the loops and branches within) counts into its local; in
 * C++ the loop is also the body of a `try` whose `catch (...)` flushes and
 * rethrows (host_text; codegen.c's cxx_eh). Every way out reaches a flush: the
 * loop's end and `break` the one after the loop, a `return`, a `goto` (its
 * label is outside, none may be inside) and a statement that calls exit(),
 * MPI_Finalize() or another function that does not return get one of their own,
 * `{flush; return x;}`. Counts stay exact; what cannot be proven so keeps plain
 * global counters.
 */
#include "instrument/visit.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collector/mpp_abi.h"
#include "instrument/codegen.h"
#include "instrument/trip.h"

#define MPP_MPI(name, ret, kind, params, args, acct) #name,
static const char *mpi_names[] = {
#include "collector/mpi_table.def"
};
#undef MPP_MPI
#define NMPI (sizeof(mpi_names) / sizeof(mpi_names[0]))

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The table's names, sorted once for binary search. */
static const char **sorted_mpi_names(void)
{
	static const char *sorted[NMPI];
	static int done;
	if (!done) {
		memcpy(sorted, mpi_names, sizeof(sorted));
		qsort(sorted, NMPI, sizeof(*sorted), cmp_str);
		done = 1;
	}
	return sorted;
}

/* The table's own copy of `name`, or NULL. */
static const char *mpi_name(const char *name)
{
	const char **hit = bsearch(&name, sorted_mpi_names(), NMPI,
				   sizeof(*mpi_names), cmp_str);
	return hit ? *hit : NULL;
}

int mpp_is_mpi_site(const char *name)
{
	return mpi_name(name) != NULL;
}

/* A set of 64-bit keys (open addressing), to keep names unique. */
struct keyset {
	uint64_t *v; /* 0 = empty slot; keys are stored + 1 */
	size_t n, cap;
};

/* Adds key; returns 1 if added, 0 if already there, -1 out of memory. */
static int keyset_add(struct keyset *s, uint64_t key)
{
	if (2 * (s->n + 1) > s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		uint64_t *v = calloc(cap, sizeof(*v));
		if (!v)
			return -1;
		for (size_t i = 0; i < s->cap; i++) {
			if (!s->v[i])
				continue;
			size_t j =
			    (s->v[i] * 0x9E3779B97F4A7C15ull) & (cap - 1);
			while (v[j])
				j = (j + 1) & (cap - 1);
			v[j] = s->v[i];
		}
		free(s->v);
		s->v = v;
		s->cap = cap;
	}
	uint64_t k = key + 1;
	size_t j = (k * 0x9E3779B97F4A7C15ull) & (s->cap - 1);
	while (s->v[j]) {
		if (s->v[j] == k)
			return 0;
		j = (j + 1) & (s->cap - 1);
	}
	s->v[j] = k;
	s->n++;
	return 1;
}

/* A loop being walked. It can host its counters and those inside it when
 * `candidate`: its keyword is plain text of the file, no pragma or macro
 * stands right before it (a pragma must stay right before its loop; a
 * macro might hold `_Pragma`) and it is not part of a collapsed OpenMP
 * nest; and `clean`: nothing inside it can leave it or enter it without
 * passing a flush: no label (named, or a `case`/`default` of a switch
 * outside it), no computed goto or `asm goto`, no return, goto or call of
 * a function that does not return except as a statement that can be
 * wrapped, no setjmp() (the locals would be indeterminate after a
 * longjmp back), no nested function, no call of an MPI routine or of a
 * function of another file (calls_other_file); and no pragma inside it (an
 * OpenMP region with default(none) would have to name the locals). */
struct frame {
	size_t kw;       /* the loop keyword */
	size_t counters; /* the first counter slot made inside it */
	size_t leaves;   /* the first leave made inside it */
	size_t hosts;    /* hosts chosen before it was entered */
	unsigned depth;
	unsigned switches; /* switch statements open inside it */
	int clean, candidate;
	/* A loop of constant trip count at a place of known count (struct
	 * chain): its count, if nothing inside it counts, is `from` times
	 * `trip` (end_frame). */
	size_t from;
	unsigned long trip;
};

/* A statement that leaves a host (return, goto, exit() ...): the edits
 * `{` + flush before it and `}` after it, filled in (or emptied) once the
 * function is walked. `reset`: the locals are zeroed after the flush
 * (the statement may return: MPI_Finalize()). */
struct leave {
	size_t open, close; /* edit indices */
	int reset;
};

/* An if statement at keyword kw run exactly once per execution of the
 * loop body counted by slot `body`: a direct child of the body's braces
 * with nothing before it that can jump (mark_entered). */
struct entered {
	size_t kw, body;
	int cond; /* body is an else-if's count, kept in its condition */
};

/* Flow conservation: the else counter `e` of such an if is entries -
 * then, `body` - `then`; a host holding all three computes it at its
 * flushes instead of counting it. */
struct derive {
	size_t e, body, then;
	int cond; /* as struct entered's */
};

/* Counts the runtime derives through more than one step (mpp_abi.h,
 * version 5), found by mark_entered in a block run `from` times (a slot,
 * or a scratch count: MPP_DERIVE_SCRATCH): `if (c) continue;` (or break)
 * at kw, after which the block runs `scratch` = from - then times (trip
 * 0; `defined` once its then counter is known), or a for loop at kw of
 * constant trip count, run from * trip times when nothing inside it
 * counts. */
struct chain {
	size_t kw, from, scratch;
	unsigned long trip;
	int defined;
};

/* A loop chosen to host: counter slots [c0, c1), leaves [l0, l1). */
struct host {
	size_t kw, end;
	size_t c0, c1, l0, l1;
	unsigned depth;
};

/* A canonical for loop's count added at its entry (derive_trip): counter
 * slot k, the edit of its per-iteration increment, the edit of the
 * addition in its init, whether a host takes the count at entry too
 * (mpp_trip_host_entry). finish_hosts keeps one of the two. */
struct trip {
	size_t k, body, init;
	int at_entry;
	size_t outer_kw; /* added at the entry of the loop around, which
			  * starts here (mpp_trip_nest); 0: at its own */
};

/* A loop's count derived from its variable (derive_iv, trip.h): counter
 * slot k, the body's extent, the edits planned (init, condition, breaks),
 * kept by finish_hosts only where a host holds the counter. */
struct ivrec {
	size_t k;
	char *var;
	int up;
	unsigned long step;
	size_t body_b, body_e;
	size_t ed[3 + 2 * MPP_IV_BREAKS];
	unsigned ned;
};

struct ctx {
	const struct mpp_tu *t;
	const struct mpp_source *src;
	const char *id;
	const char *display;
	char *line_name; /* display as a C string literal, for #line */
	struct mpp_plan *plan;
	char *func;  /* the function being walked */
	CXCursor fn; /* its cursor */
	CXCursor *stack;
	size_t nstack, capstack;
	struct keyset used;
	struct frame *frames;
	size_t nframes, capframes;
	size_t *inc_edit; /* counter slot -> the edit holding its increment */
	size_t capinc;
	struct leave *leaves;
	size_t nleaves, capleaves;
	struct host *hosts;
	size_t nhosts, caphosts;
	struct entered *entered; /* ifs run once per iteration of a loop */
	size_t nentered, capentered;
	struct derive *derives;
	size_t nderives, capderives;
	long *derived; /* counter slot -> its derive, or -1 (finish_hosts) */
	size_t capderived;
	struct trip *trips;
	size_t ntrips, captrips;
	struct ivrec *ivs;
	size_t nivs, capivs;
	long *iv_of; /* counter slot -> its ivrec, or -1 (finish_hosts) */
	size_t capiv_of;
	struct chain *chains;
	size_t nchains, capchains;
	size_t nscratch; /* scratch counts named in the unit */
	size_t *rt;      /* slots the runtime derives through a chain */
	size_t nrt, caprt;
	int cxx; /* a C++ unit: exceptions, lambdas, if-init, range-for */
	int oom;
};

/* Makes room for one more element in *v (n used of *cap). */
static int grow(struct ctx *x, void **v, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return 0;
	size_t c = *cap ? *cap * 2 : 64;
	void *nv = realloc(*v, c * size);
	if (!nv) {
		x->oom = 1;
		return -1;
	}
	*v = nv;
	*cap = c;
	return 0;
}

static enum CXChildVisitResult push_child(CXCursor c, CXCursor parent,
					  CXClientData data)
{
	(void)parent;
	struct ctx *x = data;
	if (x->nstack == x->capstack) {
		size_t cap = x->capstack ? x->capstack * 2 : 1024;
		CXCursor *v = realloc(x->stack, cap * sizeof(*v));
		if (!v) {
			x->oom = 1;
			return CXChildVisit_Break;
		}
		x->stack = v;
		x->capstack = cap;
	}
	x->stack[x->nstack++] = c;
	return CXChildVisit_Continue;
}

/* Pushes c's children; returns how many. */
static size_t push_children(struct ctx *x, CXCursor c)
{
	size_t at = x->nstack;
	clang_visitChildren(c, push_child, x);
	return x->nstack - at;
}

static int in_main(const struct ctx *x, CXFile f)
{
	return f && clang_File_isEqual(f, x->t->file);
}

/* Expansion offset of a location in the main file; -1 elsewhere. */
static int exp_off(const struct ctx *x, CXSourceLocation l, size_t *off)
{
	CXFile f;
	unsigned o;
	clang_getExpansionLocation(l, &f, NULL, NULL, &o);
	if (!in_main(x, f))
		return -1;
	*off = o;
	return 0;
}

/* File (spelling) offset of a location in the main file; -1 elsewhere. */
static int file_off(const struct ctx *x, CXSourceLocation l, size_t *off)
{
	CXFile f;
	unsigned o;
	clang_getFileLocation(l, &f, NULL, NULL, &o);
	if (!in_main(x, f))
		return -1;
	*off = o;
	return 0;
}

/* Where a statement starts, if it starts in plain text of the main file
 * (not inside a macro argument). */
static int clean_start(const struct ctx *x, CXCursor c, size_t *off)
{
	CXSourceLocation l = clang_getRangeStart(clang_getCursorExtent(c));
	size_t e, f;
	if (exp_off(x, l, &e) < 0 || file_off(x, l, &f) < 0 || e != f ||
	    mpp_tu_macro_inside(x->t, e) >= 0)
		return -1;
	*off = e;
	return 0;
}

static int end_off(const struct ctx *x, CXCursor c, size_t *off)
{
	return file_off(x, clang_getRangeEnd(clang_getCursorExtent(c)), off);
}

static void add_note(struct ctx *x, size_t off, const char *fmt, ...)
{
	struct mpp_plan *p = x->plan;
	if (p->nnotes == p->capnotes) {
		size_t cap = p->capnotes ? p->capnotes * 2 : 16;
		char **v = realloc(p->notes, cap * sizeof(*v));
		if (!v) {
			x->oom = 1;
			return;
		}
		p->notes = v;
		p->capnotes = cap;
	}
	unsigned line, col;
	mpp_source_linecol(x->src, off, &line, &col);
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	char *s;
	if (asprintf(&s, "%s:%u: not instrumented: %s", x->display, line, why) <
	    0) {
		x->oom = 1;
		return;
	}
	p->notes[p->nnotes++] = s;
}

/* Name of the macro invoked at off (for notes). */
static void macro_name(const struct ctx *x, size_t off, char *buf, size_t len)
{
	size_t n = 0;
	const char *t = x->src->text;
	while (off + n < x->src->len && n + 1 < len &&
	       (t[off + n] == '_' || (t[off + n] >= 'a' && t[off + n] <= 'z') ||
		(t[off + n] >= 'A' && t[off + n] <= 'Z') ||
		(t[off + n] >= '0' && t[off + n] <= '9')))
		n++;
	memcpy(buf, t + off, n);
	buf[n] = 0;
	if (!n)
		snprintf(buf, len, "?");
}

static void add_edit(struct ctx *x, size_t off, enum mpp_edit_side side,
		     unsigned depth, const char *text)
{
	if (mpp_edits_add(&x->plan->edits, off, side, depth, text) < 0)
		x->oom = 1;
}

/* Adds the edit that increments counter k, remembering which it is: a
 * host rewrites it to count into a local. */
static void add_inc_edit(struct ctx *x, long k, size_t off, unsigned depth,
			 const char *text)
{
	if (grow(x, (void **)&x->inc_edit, (size_t)k, &x->capinc,
		 sizeof(*x->inc_edit)) < 0)
		return;
	x->inc_edit[k] = x->plan->edits.n;
	add_edit(x, off, MPP_EDIT_OPEN, depth, text);
}

/* Offset just past the end of statement s, including its `;`; -1 if it
 * cannot be found with certainty. */
static int stmt_end(struct ctx *x, CXCursor s, size_t *end)
{
	enum CXCursorKind k = clang_getCursorKind(s);
	size_t e;
	switch (k) {
	case CXCursor_CompoundStmt:
		if (end_off(x, s, &e) < 0 || e == 0 ||
		    x->src->text[e - 1] != '}')
			return -1;
		*end = e;
		return 0;
	case CXCursor_IfStmt:
	case CXCursor_ForStmt:
	case CXCursor_WhileStmt:
	case CXCursor_SwitchStmt:
	case CXCursor_LabelStmt:
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
	case CXCursor_UnexposedStmt: {
		size_t at = x->nstack, n = push_children(x, s);
		int r = -1;
		if (n > 0) {
			CXCursor last = x->stack[at + n - 1];
			x->nstack = at;
			r = stmt_end(x, last, end);
		}
		x->nstack = at;
		if (n > 0 || k != CXCursor_UnexposedStmt)
			return r;
		break;
	}
	case CXCursor_DeclStmt:
	case CXCursor_NullStmt:
		if (end_off(x, s, &e) < 0)
			return -1;
		if (e > 0 && x->src->text[e - 1] == ';') {
			*end = e;
			return 0;
		}
		break;
	default:
		break;
	}
	/* An expression statement, do, return, break, continue, goto, asm:
	 * the extent stops before the `;`, which must be the next code token
	 * and written in the file (not the tail of a macro). */
	if (end_off(x, s, &e) < 0)
		return -1;
	size_t p = mpp_source_next_code(x->src, e);
	if (p >= x->src->len || x->src->text[p] != ';' ||
	    mpp_tu_macro_inside(x->t, p) >= 0)
		return -1;
	*end = p + 1;
	return 0;
}

/* Claims a unique name for a counter of `kind` at keyword offset kw and
 * appends it to the plan; returns its slot or -1 (note added). */
static long new_counter(struct ctx *x, enum mpp_counter_kind kind, size_t kw,
			const char *stmt)
{
	int r = keyset_add(&x->used, ((uint64_t)kw << 3) | kind);
	if (r < 0) {
		x->oom = 1;
		return -1;
	}
	if (r == 0) {
		add_note(x, kw, "a second %s from the same macro invocation",
			 stmt);
		return -1;
	}
	struct mpp_plan *p = x->plan;
	if (p->ncounters == p->capcounters) {
		size_t cap = p->capcounters ? p->capcounters * 2 : 64;
		struct mpp_counter_info *v =
		    realloc(p->counters, cap * sizeof(*v));
		if (!v) {
			x->oom = 1;
			return -1;
		}
		p->counters = v;
		p->capcounters = cap;
	}
	struct mpp_counter_info *c = &p->counters[p->ncounters];
	c->kind = kind;
	c->stmt = stmt;
	mpp_source_linecol(x->src, kw, &c->line, &c->col);
	if (p->lean) {
		/* A lean build plants only the counters the model uses. */
		char name[4096];
		snprintf(name, sizeof(name), "%s:%s:%u:%u",
			 kind == MPP_LOOP   ? "loop"
			 : kind == MPP_THEN ? "then"
			 : kind == MPP_CASE ? "case"
					    : "else",
			 p->name_file ? p->name_file : x->display, c->line,
			 c->col);
		if (!mpp_lean_keeps(p->lean, name))
			return -1;
	}
	c->func = strdup(x->func ? x->func : "");
	if (!c->func) {
		x->oom = 1;
		return -1;
	}
	return (long)p->ncounters++;
}

static const char *kind_word(enum mpp_counter_kind k)
{
	return k == MPP_LOOP   ? "loop body"
	       : k == MPP_THEN ? "then-branch"
	       : k == MPP_ELSE ? "else-branch"
			       : "case label";
}

/* Where the counter goes in a { } body: after `{` and after the block's
 * leading declarations (C89 wants declarations first). -1 if the braces or
 * a leading declaration come from a macro. */
static int block_insert_point(struct ctx *x, CXCursor body, size_t *pos)
{
	size_t lb;
	if (clean_start(x, body, &lb) < 0 || x->src->text[lb] != '{')
		return -1;
	if (x->cxx) {
		/* No C89 rule; and a leading declaration that throws must
		 * not keep the entry from being counted. */
		*pos = lb + 1;
		return 0;
	}
	size_t p = lb + 1, at = x->nstack, n = push_children(x, body);
	int ok = 0;
	for (size_t i = 0; i < n; i++) {
		CXCursor d = x->stack[at + i];
		if (clang_getCursorKind(d) != CXCursor_DeclStmt)
			break;
		size_t e;
		if (end_off(x, d, &e) < 0 || e <= p ||
		    mpp_tu_macro_inside(x->t, e) >= 0) {
			ok = -1;
			break;
		}
		p = e;
	}
	x->nstack = at;
	*pos = p;
	return ok;
}

/* What the notes of bodies inside macros add: edits go only into text
 * outside macro invocations (an edit inside one would change every
 * expansion, or the text a macro stringizes). */
#define HOW_TO_COUNT                                                           \
	" (to count it, write the loop or if in the file outside the macro's " \
	"arguments, or move it into a function the macro calls)"

/* Counts executions of `body`, the body of a loop or a branch of an if
 * whose keyword is at kw (expansion offset). `limit`: the body's edits
 * must end at or before it (the start of the next statement). Returns
 * the counter's slot, or -1 when not counted (a note says why). */
static long count_body(struct ctx *x, size_t kw, CXCursor body,
		       enum mpp_counter_kind kind, const char *stmt,
		       unsigned depth, size_t limit)
{
	char buf[160], mac[64];
	size_t s, e;
	long mi = mpp_tu_expansion_at(x->t, kw);
	/* A body inside a system macro (assert's if): nothing to note. */
	int quiet = mi >= 0 && x->t->macros[mi].system;
	if (clang_getCursorKind(body) == CXCursor_CompoundStmt) {
		if (block_insert_point(x, body, &s) < 0 || s <= kw) {
			if (quiet)
				return -1;
			macro_name(x, kw, mac, sizeof(mac));
			add_note(x, kw,
				 "%s of %s: its braces or first "
				 "declarations come from macro %s%s",
				 kind_word(kind), stmt, mac, HOW_TO_COUNT);
			return -1;
		}
		long k = new_counter(x, kind, kw, stmt);
		if (k < 0)
			return -1;
		snprintf(buf, sizeof(buf), "__mpp_c_%s[%ld]++;", x->id, k);
		add_inc_edit(x, k, s, depth, buf);
		return k;
	}
	if (clean_start(x, body, &s) < 0 || s <= kw) {
		if (quiet)
			return -1;
		macro_name(x, kw, mac, sizeof(mac));
		add_note(x, kw, "%s of %s inside macro %s%s", kind_word(kind),
			 stmt, mac, HOW_TO_COUNT);
		return -1;
	}
	if (stmt_end(x, body, &e) < 0 || mpp_tu_macro_inside(x->t, e) >= 0) {
		add_note(x, s,
			 "%s of %s: cannot find where it ends outside "
			 "a macro",
			 kind_word(kind), stmt);
		return -1;
	}
	if (e > limit) {
		add_note(x, s,
			 "%s of %s is a macro that expands to several "
			 "statements",
			 kind_word(kind), stmt);
		return -1;
	}
	long k = new_counter(x, kind, kw, stmt);
	if (k < 0)
		return -1;
	size_t open = mpp_source_directives_before(x->src, s);
	if (open != s || x->src->text[s] == '#') {
		/* `#pragma omp for` and friends must stay right before
		 * their loop: open the block before the directive lines and
		 * restore the line number after the inserted newline. */
		unsigned line, col;
		mpp_source_linecol(x->src, open, &line, &col);
		snprintf(buf, sizeof(buf), "{__mpp_c_%s[%ld]++;\n#line %u %s\n",
			 x->id, k, line, x->line_name);
	} else {
		snprintf(buf, sizeof(buf), "{__mpp_c_%s[%ld]++; ", x->id, k);
	}
	add_inc_edit(x, k, open, depth, buf);
	add_edit(x, e, MPP_EDIT_CLOSE, depth, "}");
	return k;
}

static enum CXChildVisitResult first_child(CXCursor c, CXCursor parent,
					   void *data)
{
	(void)parent;
	*(CXCursor *)data = c;
	return CXChildVisit_Break;
}

/* 1 for a `do` whose keyword at kw comes from a macro (the text there is
 * not `do`) and whose condition `cond` is the literal 0. */
static int macro_do_once(const struct ctx *x, size_t kw, CXCursor cond)
{
	const char *t = x->src->text + kw;
	if (kw + 2 <= x->src->len && t[0] == 'd' && t[1] == 'o' &&
	    (kw + 2 == x->src->len ||
	     !(isalnum((unsigned char)t[2]) || t[2] == '_')))
		return 0;
	while (clang_getCursorKind(cond) == CXCursor_ParenExpr ||
	       clang_getCursorKind(cond) == CXCursor_UnexposedExpr) {
		CXCursor only = clang_getNullCursor();
		clang_visitChildren(cond, first_child, &only);
		if (clang_Cursor_isNull(only))
			return 0;
		cond = only;
	}
	if (clang_getCursorKind(cond) != CXCursor_IntegerLiteral)
		return 0;
	CXEvalResult r = clang_Cursor_Evaluate(cond);
	int zero = r && clang_EvalResult_getKind(r) == CXEval_Int &&
		   clang_EvalResult_getAsLongLong(r) == 0;
	if (r)
		clang_EvalResult_dispose(r);
	return zero;
}

/* A `case` or `default` label at kw whose statement is `sub`: its
 * counter goes right before that statement, `case 2: __mpp_c[k]++; ...`
 * (after the colon: a jump to the label and a fall-through from above
 * both pass it; `case 1: case 2:` gives each label its own). */
static void count_case(struct ctx *x, size_t kw, CXCursor sub, unsigned depth)
{
	size_t s;
	char buf[96];
	if (clean_start(x, sub, &s) < 0 || s <= kw ||
	    mpp_source_directives_before(x->src, s) != s ||
	    x->src->text[s] == '#') {
		add_note(x, kw,
			 "case label: its statement comes from a macro or "
			 "follows a directive line");
		return;
	}
	long k = new_counter(x, MPP_CASE, kw, "case");
	if (k < 0)
		return;
	/* Between two labels the increment is a statement that falls
	 * through: say so, or -Wimplicit-fallthrough (in -Wextra) warns. */
	enum CXCursorKind sk = clang_getCursorKind(sub);
	snprintf(buf, sizeof(buf), "__mpp_c_%s[%ld]++; %s", x->id, k,
		 sk == CXCursor_CaseStmt || sk == CXCursor_DefaultStmt
		     ? "__attribute__((__fallthrough__)); "
		     : "");
	add_inc_edit(x, k, s, depth, buf);
}

/* `else if (c)`: count the else-branch through the condition,
 * `else if ((counter++, c))`, so that long chains do not nest blocks. */
static long count_else_if(struct ctx *x, size_t kw, CXCursor inner,
			  unsigned depth)
{
	size_t ikw, cs, ce;
	size_t at = x->nstack, n = push_children(x, inner);
	int ok = n >= 2 &&
		 exp_off(x, clang_getCursorLocation(inner), &ikw) == 0 &&
		 mpp_source_is_word(x->src, ikw, "if") &&
		 clean_start(x, x->stack[at], &cs) == 0 && cs > ikw &&
		 end_off(x, x->stack[at], &ce) == 0 && ce > cs &&
		 mpp_tu_macro_inside(x->t, ce) < 0;
	x->nstack = at;
	if (!ok) {
		add_note(x, kw, "else-branch of if: its if comes from a macro");
		return -1;
	}
	long k = new_counter(x, MPP_ELSE, kw, "if");
	if (k < 0)
		return -1;
	char buf[96];
	snprintf(buf, sizeof(buf), "(__mpp_c_%s[%ld]++, ", x->id, k);
	add_inc_edit(x, k, cs, depth, buf);
	add_edit(x, ce, MPP_EDIT_CLOSE, depth, ")");
	return k;
}

/* Tags a call of an MPI function: `MPI_X(args)` becomes
 * `(__mpp_tag_<id>(&__mpp_s_<id>[k]), MPI_X)(args)`; see codegen.c for
 * why the store is in a function. */
/* C++ templates: a call with dependent arguments is not resolved until
 * instantiation; its callee is an OverloadedDeclRef under the first
 * child, whose declarations are the candidates: the MPI function when
 * its only candidate is the C function. Null cursor otherwise. */
static CXCursor dependent_callee(struct ctx *x, CXCursor call)
{
	CXCursor c = call, r = clang_getNullCursor();
	size_t at = x->nstack;
	for (int d = 0; d < 4; d++) {
		size_t n = push_children(x, c);
		if (n == 0)
			break;
		c = x->stack[x->nstack - n];
		x->nstack -= n;
		if (clang_getCursorKind(c) == CXCursor_OverloadedDeclRef) {
			if (clang_getNumOverloadedDecls(c) == 1)
				r = clang_getOverloadedDecl(c, 0);
			break;
		}
	}
	x->nstack = at;
	return r;
}

/* Tags an MPI call site (its call wrapped to name it first); 1 if the
 * callee is an MPI routine, tagged or not (a note says why not). */
static int tag_call(struct ctx *x, CXCursor call, unsigned depth)
{
	CXCursor ref = clang_getCursorReferenced(call);
	if (x->cxx && clang_Cursor_isNull(ref))
		ref = dependent_callee(x, call);
	if (clang_Cursor_isNull(ref) ||
	    clang_getCursorKind(ref) != CXCursor_FunctionDecl)
		return 0;
	CXString sp = clang_getCursorSpelling(ref);
	const char *mpi = mpi_name(clang_getCString(sp));
	clang_disposeString(sp);
	if (!mpi)
		return 0;
	/* The callee's name: the DeclRefExpr under casts and parentheses. */
	CXCursor c = call;
	size_t at = x->nstack;
	do {
		size_t n = push_children(x, c);
		if (n == 0) {
			x->nstack = at;
			return 1;
		}
		c = x->stack[x->nstack - n];
		x->nstack -= n;
	} while (clang_getCursorKind(c) != CXCursor_DeclRefExpr);
	size_t f, e;
	CXSourceLocation l = clang_getCursorLocation(c);
	if (exp_off(x, l, &e) < 0 || file_off(x, l, &f) < 0)
		return 1;
	long m = mpp_tu_macro_inside(x->t, f);
	if (!mpp_source_is_word(x->src, f, mpi) ||
	    (m >= 0 && x->t->macros[m].is_definition)) {
		char mac[64];
		macro_name(x, e, mac, sizeof(mac));
		add_note(x, e, "call of %s written inside macro %s", mpi, mac);
		return 1;
	}
	if (m >= 0 && x->t->macros[m].stringizes) {
		char mac[64];
		macro_name(x, e, mac, sizeof(mac));
		add_note(x, e,
			 "call of %s in an argument of macro %s, which "
			 "stringizes an argument (its text must stay the "
			 "original's)",
			 mpi, mac);
		return 1;
	}
	int r = keyset_add(&x->used, ((uint64_t)f << 3) | 7);
	if (r <= 0) {
		/* A macro that uses its argument twice: one tag serves both. */
		x->oom |= r < 0;
		return 1;
	}
	struct mpp_plan *p = x->plan;
	if (p->nsites == p->capsites) {
		size_t cap = p->capsites ? p->capsites * 2 : 64;
		struct mpp_site_info *v = realloc(p->sites, cap * sizeof(*v));
		if (!v) {
			x->oom = 1;
			return 1;
		}
		p->sites = v;
		p->capsites = cap;
	}
	struct mpp_site_info *s = &p->sites[p->nsites];
	s->mpi = mpi;
	mpp_source_linecol(x->src, f, &s->line, &s->col);
	s->func = strdup(x->func ? x->func : "");
	if (!s->func) {
		x->oom = 1;
		return 1;
	}
	char buf[96];
	snprintf(buf, sizeof(buf), "(__mpp_tag_%s(&__mpp_s_%s[%zu]), ", x->id,
		 x->id, p->nsites);
	p->nsites++;
	add_edit(x, f, MPP_EDIT_OPEN, depth, buf);
	add_edit(x, f + strlen(mpi), MPP_EDIT_CLOSE, depth, ")");
	return 1;
}

static size_t min_size(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* Start offset of a statement for limits; `dflt` if it is elsewhere. */
static size_t start_or(struct ctx *x, CXCursor c, size_t dflt)
{
	size_t o;
	if (exp_off(x, clang_getRangeStart(clang_getCursorExtent(c)), &o) < 0)
		return dflt;
	return o;
}

/* How many loops below the one at kw must stay perfectly nested: N - 1
 * when a `#pragma omp ... collapse(N)` (or OpenACC's) sits right before
 * it. A counter between two collapsed loops does not compile. */
static unsigned collapse_levels(const struct ctx *x, size_t kw)
{
	size_t open = mpp_source_directives_before(x->src, kw);
	if (open >= kw)
		return 0;
	const char *t = x->src->text;
	const char *p = memmem(t + open, kw - open, "collapse", 8);
	if (!p)
		return 0;
	p += 8;
	while (*p == ' ' || *p == '\t' || *p == '(')
		p++;
	long levels = strtol(p, NULL, 10);
	return levels > 1 && levels < 64 ? (unsigned)levels - 1 : 0;
}

/* True if pragma range i opens an OpenMP or OpenACC region with a data
 * environment of its own (parallel, target, teams, task, taskloop,
 * kernels, serial): locals of a host around it would be shared between
 * its threads and rejected by default(none). Other pragmas (simd, for,
 * GCC ivdep or unroll, clang loop ...) change nothing for a host around
 * them. A pragma that a macro invocation asks for counts as a region:
 * its text is not at hand. */
static int region_pragma(const struct ctx *x, size_t i)
{
	static const char *const region[] = {"parallel", "target",   "teams",
					     "task",     "taskloop", "kernels",
					     "serial"};
	const struct mpp_range *r = &x->t->pragmas[i];
	const char *t = x->src->text;
	size_t p = r->begin, e = r->end;
	if (t[p] == '#') {
		/* `#pragma` ends its range; the words run to the line's end
		 * (continued lines included). */
		e = p;
		while (e < x->src->len &&
		       (t[e] != '\n' || (e > 0 && t[e - 1] == '\\') ||
			(e > 1 && t[e - 1] == '\r' && t[e - 2] == '\\')))
			e++;
		p = r->end;
	} else if (e - p >= 7 && strncmp(t + p, "_Pragma", 7) == 0) {
		p += 7;
	} else {
		return 1;
	}
	int first = 1, omp = 0;
	while (p < e) {
		while (p < e && !((t[p] >= 'a' && t[p] <= 'z') ||
				  (t[p] >= 'A' && t[p] <= 'Z') || t[p] == '_'))
			p++;
		size_t w = p;
		while (p < e && ((t[p] >= 'a' && t[p] <= 'z') ||
				 (t[p] >= 'A' && t[p] <= 'Z') || t[p] == '_' ||
				 (t[p] >= '0' && t[p] <= '9')))
			p++;
		if (p == w)
			break;
		if (first) {
			omp = (p - w == 3 && (strncmp(t + w, "omp", 3) == 0 ||
					      strncmp(t + w, "acc", 3) == 0));
			if (!omp)
				return 0;
			first = 0;
			continue;
		}
		for (size_t k = 0; k < sizeof(region) / sizeof(*region); k++)
			if (strlen(region[k]) == p - w &&
			    strncmp(t + w, region[k], p - w) == 0)
				return 1;
	}
	return 0;
}

/* True if a pragma that opens a region (region_pragma) begins in
 * [begin, end). */
static int region_pragma_within(const struct ctx *x, size_t begin, size_t end)
{
	for (long i = mpp_tu_pragma_before(x->t, end);
	     i >= 0 && x->t->pragmas[i].begin >= begin; i--)
		if (region_pragma(x, (size_t)i))
			return 1;
	return 0;
}

static void set_text(struct ctx *x, size_t edit, char *text)
{
	if (!text) {
		x->oom = 1;
		return;
	}
	free(x->plan->edits.v[edit].text);
	x->plan->edits.v[edit].text = text;
}

/* A canonical for loop (trip.h) can get its count added once, in its
 * init, instead of counting every iteration. Both forms are planned here;
 * finish_hosts keeps the addition only where the counter stays in memory
 * (no host holds it: a load and a store per iteration saved). A host's
 * local increment is cheaper: GCC and clang at -O1 and above replace a
 * register induction in a loop of computable count by its final value,
 * added only when the loop runs, while the trip expression costs 3-4
 * instructions on every entry: is's counting-sort loop, entered 2^20
 * times for 0.2 iterations each, went from 1.006 to 1.140 with it. */
static void derive_trip(struct ctx *x, CXCursor loop, long k, unsigned depth)
{
	char counter[64], tmp[32], *text = NULL;
	size_t pos, outer_kw = 0;
	if (x->cxx)
		return; /* any call may throw out of the loop */
	snprintf(counter, sizeof(counter), "__mpp_c_%s[%ld]", x->id, k);
	snprintf(tmp, sizeof(tmp), "__mpp_t%ld", k);
	/* The whole body of a loop around it, or of a loop that is the whole
	 * body of one ...: its count added at the outermost such loop, once
	 * per entry (mpp_trip_nest). */
	int r = 1;
	for (size_t i = x->nstack; i-- > 0;) {
		CXCursor o = x->stack[i];
		char *t = NULL;
		size_t p;
		if (clang_getCursorKind(o) != CXCursor_ForStmt ||
		    clang_equalCursors(o, loop))
			continue;
		int ri = mpp_trip_nest(x->t, x->src, loop, o, x->fn, counter,
				       tmp, &p, &t);
		if (ri < 0) {
			r = ri;
			break;
		}
		if (ri == 0) {
			free(text);
			text = t;
			pos = p;
			r = 0;
			clang_getFileLocation(
			    clang_getRangeStart(clang_getCursorExtent(o)), NULL,
			    NULL, NULL, (unsigned *)&outer_kw);
		}
	}
	if (r == 1)
		r = mpp_trip_plan(x->t, x->src, loop, x->fn, counter, tmp, &pos,
				  &text);
	if (r != 0) {
		x->oom |= r < 0;
		return;
	}
	if (!grow(x, (void **)&x->trips, x->ntrips, &x->captrips,
		  sizeof(*x->trips))) {
		x->trips[x->ntrips++] = (struct trip){
		    (size_t)k, x->inc_edit[k], x->plan->edits.n,
		    mpp_trip_host_entry(x->t, loop, x->stack, x->nstack),
		    outer_kw};
		add_edit(x, pos, MPP_EDIT_CLOSE, depth, text);
	}
	free(text);
}

/* What find_jump looks for: a statement that jumps or a call that does
 * not return; in C++ also anything that may throw (conservatively: any
 * call, constructor or operator of a class, new, throw, dynamic_cast,
 * typeid), which leaves as a jump does. */
struct jump {
	int found, cxx;
};

static enum CXChildVisitResult find_jump(CXCursor c, CXCursor parent,
					 CXClientData data);
static int in_template(const struct ctx *x);

/* A for loop left by break, return or goto, or whose bound the compiler
 * cannot compute, costs an increment per iteration; where its variable
 * tells the count (trip.h, mpp_trip_iv) the local takes v out at entry
 * and back at every way out instead: nothing per iteration. */
static void derive_iv(struct ctx *x, CXCursor loop, long k, unsigned depth)
{
	struct mpp_iv iv;
	/* In C++ only a loop nothing in can throw (find_jump): an exception
	 * out of its body would reach the host's catch with v still
	 * subtracted. A loop that leaves other than by its test is not
	 * derived for a bound set per entry (trip.h): the exits kernel of
	 * bench-overhead went 1.0181 -> 1.0955 with it. */
	struct jump j = {0, x->cxx};
	clang_visitChildren(loop, find_jump, &j);
	if (x->cxx && (j.found || in_template(x)))
		return;
	int r = mpp_trip_iv(x->t, x->src, loop, x->fn, x->stack,
			    j.found ? 0 : x->nstack, &iv);
	if (r != 0) {
		x->oom |= r < 0;
		return;
	}
	size_t bs[MPP_IV_BREAKS], be[MPP_IV_BREAKS];
	for (unsigned i = 0; i < iv.nbreaks; i++)
		if (clean_start(x, iv.breaks[i], &bs[i]) < 0 ||
		    stmt_end(x, iv.breaks[i], &be[i]) < 0 ||
		    mpp_tu_macro_inside(x->t, be[i]) >= 0) {
			free(iv.var);
			return;
		}
	if (grow(x, (void **)&x->ivs, x->nivs, &x->capivs, sizeof(*x->ivs)) <
	    0) {
		free(iv.var);
		return;
	}
	struct ivrec *v = &x->ivs[x->nivs++];
	*v = (struct ivrec){(size_t)k,     iv.var,      iv.up, iv.step,
			    iv.body_begin, iv.body_end, {0},   0};
	char *t = NULL;
	const char *in = iv.up ? "-=" : "+=", *out = iv.up ? "+=" : "-=";
	int n =
	    iv.decl
		? asprintf(&t,
			   ", __mpp_v%ld __attribute__((__unused__)) "
			   "= (__mpp_l%ld %s __extension__ (unsigned long "
			   "long)(%s), "
			   "0)",
			   k, k, in, iv.var)
		: asprintf(
		      &t,
		      ", __mpp_l%ld %s __extension__ (unsigned long long)(%s)",
		      k, in, iv.var);
	if (n < 0) {
		x->oom = 1;
		return;
	}
	v->ed[v->ned++] = x->plan->edits.n;
	add_edit(x, iv.init_end, MPP_EDIT_CLOSE, depth, t);
	free(t);
	v->ed[v->ned++] = x->plan->edits.n;
	add_edit(x, iv.cond_begin, MPP_EDIT_OPEN, depth, "(");
	if (asprintf(&t,
		     ") || (__mpp_l%ld %s __extension__ (unsigned long "
		     "long)(%s), 0)",
		     k, out, iv.var) < 0) {
		x->oom = 1;
		return;
	}
	v->ed[v->ned++] = x->plan->edits.n;
	add_edit(x, iv.cond_end, MPP_EDIT_CLOSE, depth, t);
	free(t);
	for (unsigned i = 0; i < iv.nbreaks; i++) {
		/* The body ran once more than v tells. */
		n = iv.up ? asprintf(&t,
				     "{__mpp_l%ld += __extension__ ((unsigned "
				     "long long)(%s) "
				     "+ %luULL); ",
				     k, iv.var, iv.step)
			  : asprintf(&t,
				     "{__mpp_l%ld += __extension__ (%luULL - "
				     "(unsigned "
				     "long long)(%s)); ",
				     k, iv.step, iv.var);
		if (n < 0) {
			x->oom = 1;
			return;
		}
		v->ed[v->ned++] = x->plan->edits.n;
		add_edit(x, bs[i], MPP_EDIT_OPEN, 1000, t);
		free(t);
		v->ed[v->ned++] = x->plan->edits.n;
		add_edit(x, be[i], MPP_EDIT_CLOSE, 1000, "}");
	}
}

static int leading_word(CXTranslationUnit tu, CXSourceRange r, unsigned n,
			const char *word);
static int if_has_init(const struct ctx *x, CXCursor ifs, CXCursor second);

static enum CXChildVisitResult find_jump(CXCursor c, CXCursor parent,
					 CXClientData data)
{
	(void)parent;
	struct jump *j = data;
	switch (clang_getCursorKind(c)) {
	case CXCursor_BreakStmt:
	case CXCursor_ContinueStmt:
	case CXCursor_ReturnStmt:
	case CXCursor_GotoStmt:
	case CXCursor_IndirectGotoStmt:
	case CXCursor_LabelStmt:
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
	case CXCursor_AsmStmt:
		j->found = 1;
		break;
	case CXCursor_CallExpr:
		if (j->cxx ||
		    mpp_call_effect(clang_Cursor_getTranslationUnit(c), c))
			j->found = 1;
		break;
	case CXCursor_CXXNewExpr:
	case CXCursor_CXXThrowExpr:
	case CXCursor_CXXDynamicCastExpr:
	case CXCursor_CXXTypeidExpr:
		j->found |= j->cxx;
		break;
	default:
		break;
	}
	return j->found ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* C++: whether the function being walked is a template or a member of
 * one: there an operator on a dependent type may become a call that
 * throws, which the walk cannot see. */
static int in_template(const struct ctx *x)
{
	for (CXCursor p = x->fn;
	     !clang_Cursor_isNull(p) &&
	     !clang_isTranslationUnit(clang_getCursorKind(p));
	     p = clang_getCursorSemanticParent(p)) {
		enum CXCursorKind k = clang_getCursorKind(p);
		if (k == CXCursor_FunctionTemplate ||
		    k == CXCursor_ClassTemplate ||
		    k == CXCursor_ClassTemplatePartialSpecialization)
			return 1;
	}
	return 0;
}

/* Adds the triple (e, body, third) to the unit's derived counts. */
static void add_triple(struct ctx *x, size_t e, size_t body, size_t third)
{
	struct mpp_plan *p = x->plan;
	while (p->capderived < 3 * p->nderived + 3)
		if (grow(x, (void **)&p->derived, p->capderived, &p->capderived,
			 sizeof(*p->derived)) < 0)
			return;
	size_t *t = &p->derived[3 * p->nderived++];
	t[0] = e;
	t[1] = body;
	t[2] = third;
}

/* Whether counter slot k is derived by the runtime through a chain. */
static int is_rt(const struct ctx *x, size_t k)
{
	for (size_t i = 0; i < x->nrt; i++)
		if (x->rt[i] == k)
			return 1;
	return 0;
}

/* Counter slot k derived by the runtime as (body, third): no increment,
 * no local in a host. */
static void derive_rt(struct ctx *x, size_t k, size_t body, size_t third)
{
	if (grow(x, (void **)&x->rt, x->nrt, &x->caprt, sizeof(*x->rt)) < 0)
		return;
	x->rt[x->nrt++] = k;
	add_triple(x, k, body, third);
}

/* A place's count that the runtime will know: a counter slot, or a
 * scratch count whose triple is written (its skip's then is counted). */
static int known_count(const struct ctx *x, size_t from)
{
	if (!(from & MPP_DERIVE_SCRATCH))
		return 1;
	for (size_t i = 0; i < x->nchains; i++)
		if (x->chains[i].scratch == from)
			return x->chains[i].defined;
	return 0;
}

/* The chain recorded for the statement at kw with trip count `trip` > 0
 * (a loop) or 0 (a skip), or NULL. */
static struct chain *chain_at(struct ctx *x, size_t kw, int loop)
{
	for (size_t i = x->nchains; i-- > 0;)
		if (x->chains[i].kw == kw && (x->chains[i].trip > 0) == loop)
			return &x->chains[i];
	return NULL;
}

/* `if (c) continue;` or `if (c) break;`: no else, a branch that is the
 * jump alone (or in braces), a condition that cannot jump nor (C++)
 * throw. The statements after it in its block run the block's count less
 * its then count. */
static int skip_if(struct ctx *x, CXCursor st)
{
	size_t at = x->nstack, n = push_children(x, st);
	int ok =
	    n == 2 && clang_isExpression(clang_getCursorKind(x->stack[at])) &&
	    !leading_word(x->t->tu, clang_getCursorExtent(st), 2, "constexpr");
	if (ok) {
		CXCursor b = x->stack[at + 1];
		if (clang_getCursorKind(b) == CXCursor_CompoundStmt) {
			size_t in = x->nstack;
			ok = push_children(x, b) == 1;
			b = x->stack[in];
		}
		enum CXCursorKind bk = clang_getCursorKind(b);
		ok = ok &&
		     (bk == CXCursor_ContinueStmt || bk == CXCursor_BreakStmt);
	}
	if (ok) {
		struct jump j = {0, x->cxx};
		find_jump(x->stack[at], st, &j);
		if (!j.found)
			clang_visitChildren(x->stack[at], find_jump, &j);
		ok = !j.found;
	}
	x->nstack = at;
	return ok;
}

/* Records the if statements of a loop body or of a branch (braces, or
 * one if statement) that
 * every pass through it reaches and decides: those before which no
 * statement of the body can jump, nor (C++) throw, with a condition that
 * cannot throw either (an exception there would leave the pass counted
 * and neither branch: the else count derived from them would be one too
 * many). C++ only outside templates, and only plain `if (cond)`. */
static void mark_entered(struct ctx *x, CXCursor body, long slot)
{
	enum CXCursorKind bk = clang_getCursorKind(body);
	if ((bk != CXCursor_CompoundStmt && bk != CXCursor_IfStmt) ||
	    (x->cxx && in_template(x)))
		return;
	size_t at = x->nstack, n = 1;
	/* A body that is one if statement (`for (...) if (c) a; else b;`)
	 * is a list of one. */
	if (bk == CXCursor_CompoundStmt)
		n = push_children(x, body);
	else if (grow(x, (void **)&x->stack, x->nstack, &x->capstack,
		      sizeof(*x->stack)) == 0)
		x->stack[x->nstack++] = body;
	else
		return;
	size_t from = (size_t)slot; /* how often st runs */
	for (size_t i = 0; i < n && !x->oom; i++) {
		CXCursor st = x->stack[at + i];
		enum CXCursorKind sk = clang_getCursorKind(st);
		size_t kw;
		int have_kw = exp_off(x, clang_getCursorLocation(st), &kw) == 0;
		unsigned long trip;
		struct jump j = {0, x->cxx};
		if (sk == CXCursor_ForStmt && have_kw && !x->cxx &&
		    mpp_trip_const(x->t, x->src, st, x->fn, &trip) == 0 &&
		    trip > 0 &&
		    !grow(x, (void **)&x->chains, x->nchains, &x->capchains,
			  sizeof(*x->chains)))
			x->chains[x->nchains++] =
			    (struct chain){kw, from, 0, trip, 0};
		if (sk == CXCursor_IfStmt && have_kw) {
			int ok = 1;
			if (x->cxx) {
				size_t c0 = x->nstack,
				       nc = push_children(x, st);
				CXCursor cond = x->stack[c0];
				ok = (nc == 2 || nc == 3) &&
				     clang_isExpression(
					 clang_getCursorKind(cond)) &&
				     !if_has_init(x, st, x->stack[c0 + 1]) &&
				     !leading_word(x->t->tu,
						   clang_getCursorExtent(st), 2,
						   "constexpr");
				if (ok) {
					find_jump(cond, st, &j);
					if (!j.found)
						clang_visitChildren(
						    cond, find_jump, &j);
					ok = !j.found;
				}
				x->nstack = c0;
			}
			if (ok && !grow(x, (void **)&x->entered, x->nentered,
					&x->capentered, sizeof(*x->entered)))
				x->entered[x->nentered++] =
				    (struct entered){kw, from, 0};
		}
		find_jump(st, body, &j);
		if (!j.found)
			clang_visitChildren(st, find_jump, &j);
		if (!j.found)
			continue;
		if (sk != CXCursor_IfStmt || !have_kw || !skip_if(x, st) ||
		    grow(x, (void **)&x->chains, x->nchains, &x->capchains,
			 sizeof(*x->chains)))
			break;
		x->chains[x->nchains++] = (struct chain){
		    kw, from, x->nscratch++ | MPP_DERIVE_SCRATCH, 0, 0};
		from = x->chains[x->nchains - 1].scratch;
	}
	x->nstack = at;
}

/* The slot (a loop body, a branch) an if at kw runs once per pass of, or
 * -1. */
static long entered_with(const struct ctx *x, size_t kw, int *cond)
{
	for (size_t i = x->nentered; i-- > 0;)
		if (x->entered[i].kw == kw) {
			*cond = x->entered[i].cond;
			return (long)x->entered[i].body;
		}
	return -1;
}

/* Marks the innermost loop being walked as unable to host. */
static void unclean(struct ctx *x)
{
	if (x->nframes)
		x->frames[x->nframes - 1].clean = 0;
}

/* Whether a loop whose keyword is at kw may be wrapped (see struct frame).
 * Not when a pragma or a macro stands right before it (the pragma must
 * stay right before its loop); the loops around it still may host unless
 * the pragma opens a region (region_pragma, checked in end_frame): a
 * `#pragma omp simd` or an `#if` block before an inner loop once kept the
 * whole nest's counters in memory (+38 % instructions on a stencil). */
static int loop_guarded(const struct ctx *x, size_t kw);
static int macro_loop_head(const struct ctx *x, CXCursor loop, long m);
static int loop_can_host(struct ctx *x, CXCursor loop, size_t kw)
{
	size_t s;
	long m = mpp_tu_expansion_at(x->t, kw);
	if (m >= 0) /* a macro might declare or open more than a loop */
		return macro_loop_head(x, loop, m) && !loop_guarded(x, kw);
	if (clean_start(x, loop, &s) < 0 || s != kw)
		return 0;
	return !loop_guarded(x, kw);
}

static enum CXChildVisitResult last_child(CXCursor c, CXCursor parent,
					  CXClientData data)
{
	(void)parent;
	*(CXCursor *)data = c;
	return CXChildVisit_Continue;
}

static int token_is(CXTranslationUnit tu, CXToken t, const char *w)
{
	CXString sp = clang_getTokenSpelling(tu, t);
	int r = !strcmp(clang_getCString(sp), w);
	clang_disposeString(sp);
	return r;
}

/* True if the loop's keyword comes from the expansion m of a macro whose
 * replacement is exactly a loop head, `for (...)` or `while (...)`
 * (ITERATE_CELLS(c, n) { ... }), of the file's own (not a system one),
 * holding no pragma, with the body after the invocation in the file: the
 * host's braces then go around the invocation and the body, which is
 * that one statement. */
static int macro_loop_head(const struct ctx *x, CXCursor loop, long m)
{
	const struct mpp_macro *mm = &x->t->macros[m];
	CXTranslationUnit tu = x->t->tu;
	CXCursor body = clang_getNullCursor();
	size_t b;
	if (mm->is_definition || mm->system || mm->stringizes ||
	    mpp_tu_pragma_within(x->t, mm->begin, mm->end))
		return 0;
	/* the body: the loop's last child, plain text after the macro */
	clang_visitChildren(loop, last_child, &body);
	if (clang_Cursor_isNull(body) || clean_start(x, body, &b) < 0 ||
	    b < mm->end)
		return 0;
	/* the definition: NAME, (params) if function-like, replacement */
	CXCursor e = clang_getCursor(
	    tu,
	    clang_getLocationForOffset(tu, x->t->file, (unsigned)mm->begin));
	CXCursor d = clang_getCursorReferenced(e);
	if (clang_getCursorKind(e) != CXCursor_MacroExpansion ||
	    clang_getCursorKind(d) != CXCursor_MacroDefinition)
		return 0;
	CXToken *tk = NULL;
	unsigned n = 0, i = 1, j, depth = 0;
	clang_tokenize(tu, clang_getCursorExtent(d), &tk, &n);
	if (clang_Cursor_isMacroFunctionLike(d))
		while (i < n && !token_is(tu, tk[i++], ")"))
			;
	/* the replacement: `for` or `while`, then `(` to its `)`, last */
	int ok = i + 2 < n &&
		 (token_is(tu, tk[i], "for") || token_is(tu, tk[i], "while")) &&
		 token_is(tu, tk[i + 1], "(");
	for (j = i + 1; ok && j < n; j++) {
		depth += token_is(tu, tk[j], "(");
		depth -= token_is(tu, tk[j], ")");
		if (depth == 0)
			break;
	}
	ok = ok && j == n - 1;
	clang_disposeTokens(tu, tk, n);
	return ok;
}

/* True if a pragma or a macro (which may hold one) stands right before
 * the loop keyword at kw: the loop must stay as it is written there (an
 * OpenMP loop's init must stay `var = lb`). */
static int loop_guarded(const struct ctx *x, size_t kw)
{
	const struct mpp_tu *t = x->t;
	size_t d = mpp_source_directives_before(x->src, kw);
	long p = mpp_tu_pragma_before(t, kw);
	long m = mpp_tu_expansion_before(t, kw);
	/* A macro expanded in a directive line (`#if LOOPGEN` right before
	 * the loop) expands to no code. */
	while (m >= 0 && mpp_source_in_directive(x->src, t->macros[m].begin))
		m = m > 0 ? mpp_tu_expansion_before(t, t->macros[m].begin) : -1;
	if ((d < kw && mpp_tu_pragma_within(t, d, kw)) ||
	    (p >= 0 && t->pragmas[p].end <= kw &&
	     mpp_source_next_code(x->src, t->pragmas[p].end) == kw) ||
	    (m >= 0 && mpp_source_next_code(x->src, t->macros[m].end) == kw))
		return 1;
	return 0;
}

/* True if the declaration d is written with `_Noreturn` (or `noreturn`
 * from <stdnoreturn.h>, or C2x's `[[noreturn]]`) before its name: that
 * one is not part of the function's type. */
static int noreturn_specifier(CXTranslationUnit tu, CXCursor d)
{
	CXSourceRange r =
	    clang_getRange(clang_getRangeStart(clang_getCursorExtent(d)),
			   clang_getCursorLocation(d));
	CXToken *tk = NULL;
	unsigned n = 0;
	int found = 0;
	clang_tokenize(tu, r, &tk, &n);
	for (unsigned i = 0; i < n && !found; i++) {
		CXString sp = clang_getTokenSpelling(tu, tk[i]);
		const char *w = clang_getCString(sp);
		found =
		    strcmp(w, "_Noreturn") == 0 || strcmp(w, "noreturn") == 0;
		clang_disposeString(sp);
	}
	clang_disposeTokens(tu, tk, n);
	return found;
}

/* True if the call ends the process by SIGABRT (abort, a failed assert):
 * the run's counts are then the crash dump's (collector/runtime.c), which
 * misses a host's locals as it does on any crash signal. So `assert(...)`
 * in a loop, whose failure call inside a system macro can get no flush
 * before it, leaves the loop a host: without it miniAMR-like sweeps with
 * an assert per cell counted in memory (+10 % instructions on
 * bench-overhead's macros kernel). */
static int aborts(CXCursor call)
{
	static const char *const names[] = {"abort", "__assert_fail",
					    "__assert_perror_fail",
					    "__assert_rtn", "__assert"};
	CXString sp = clang_getCursorSpelling(clang_getCursorReferenced(call));
	int r = 0;
	for (size_t i = 0; i < sizeof(names) / sizeof(*names) && !r; i++)
		r = strcmp(clang_getCString(sp), names[i]) == 0;
	clang_disposeString(sp);
	return r;
}

/* What a call does to a host: 0 nothing, 1 it may not return (or ends the
 * counting: MPI_Finalize), so the locals are flushed before it, 2 it may
 * return twice (setjmp), which no host may hold. */
int mpp_call_effect(CXTranslationUnit tu, CXCursor call)
{
	static const char *const leaving[] = {
	    "exit",         "_exit",        "_Exit",     "quick_exit",
	    "abort",        "longjmp",      "_longjmp",  "siglongjmp",
	    "pthread_exit", "execv",        "execve",    "execvp",
	    "execvpe",      "execl",        "execlp",    "execle",
	    "fexecve",      "MPI_Finalize", "MPI_Abort", "__builtin_longjmp",
	    "__longjmp_chk"};
	static const char *const twice[] = {
	    "setjmp",     "_setjmp",          "__sigsetjmp",
	    "sigsetjmp",  "__builtin_setjmp", "vfork",
	    "getcontext", "swapcontext",      "savectx"};
	CXCursor ref = clang_getCursorReferenced(call);
	if (clang_Cursor_isNull(ref) ||
	    clang_getCursorKind(ref) != CXCursor_FunctionDecl)
		return 0;
	CXString sp = clang_getCursorSpelling(ref);
	const char *name = clang_getCString(sp);
	int r = 0;
	for (size_t i = 0; i < sizeof(twice) / sizeof(*twice) && !r; i++)
		if (strcmp(name, twice[i]) == 0)
			r = 2;
	for (size_t i = 0; i < sizeof(leaving) / sizeof(*leaving) && !r; i++)
		if (strcmp(name, leaving[i]) == 0)
			r = 1;
	clang_disposeString(sp);
	if (!r) {
		/* `__attribute__((noreturn))` shows in the function's type. */
		CXString ts = clang_getTypeSpelling(clang_getCursorType(ref));
		if (strstr(clang_getCString(ts), "noreturn"))
			r = 1;
		clang_disposeString(ts);
	}
	if (!r && noreturn_specifier(tu, ref))
		r = 1;
	return r;
}

/* Whether a call goes to a function of another file: no body in this
 * unit, and no system header declares it. A loop making such a call (or
 * an MPI call) pays a call per iteration, so its counts in memory cost
 * nothing measurable, while a host would hold them in registers until the
 * loop ends: a job's time-step loop in main would show no progress while
 * the job runs (issue 37). */
static int calls_other_file(CXCursor call)
{
	CXCursor ref = clang_getCursorReferenced(call);
	if (clang_Cursor_isNull(ref) ||
	    clang_getCursorKind(ref) != CXCursor_FunctionDecl ||
	    clang_Location_isInSystemHeader(clang_getCursorLocation(ref)))
		return 0;
	return clang_Cursor_isNull(clang_getCursorDefinition(ref));
}

/* True if an asm statement is `asm goto` (it may jump anywhere). */
static int is_asm_goto(const struct ctx *x, CXCursor c)
{
	CXToken *tk = NULL;
	unsigned n = 0;
	int found = 0;
	CXTranslationUnit tu = x->t->tu;
	clang_tokenize(tu, clang_getCursorExtent(c), &tk, &n);
	for (unsigned i = 0; i < n && !found; i++) {
		CXString sp = clang_getTokenSpelling(tu, tk[i]);
		const char *w = clang_getCString(sp);
		found = strcmp(w, "goto") == 0;
		if (strcmp(w, "(") == 0)
			i = n; /* past the qualifiers */
		clang_disposeString(sp);
	}
	clang_disposeTokens(tu, tk, n);
	return found;
}

/* Statement c leaves any host around it: plans `{flush c}` for it, or
 * marks the loop unclean if c cannot be wrapped. */
static void add_leave(struct ctx *x, CXCursor c, unsigned depth, size_t limit,
		      int reset)
{
	size_t s, e;
	if (clean_start(x, c, &s) < 0 || stmt_end(x, c, &e) < 0 || e > limit ||
	    mpp_tu_macro_inside(x->t, e) >= 0) {
		unclean(x);
		return;
	}
	if (grow(x, (void **)&x->leaves, x->nleaves, &x->capleaves,
		 sizeof(*x->leaves)) < 0)
		return;
	struct leave *l = &x->leaves[x->nleaves++];
	l->open = x->plan->edits.n;
	l->close = l->open + 1;
	l->reset = reset;
	add_edit(x, s, MPP_EDIT_OPEN, depth, "");
	add_edit(x, e, MPP_EDIT_CLOSE, depth, "");
}

/* The texts a host adds: `which` 'd' its wrapper's opening with the
 * declarations, 'e' its wrapper's end with the flush, 'l' the opening of a
 * leave with the flush (zeroing the locals if `reset`). NULL when out of
 * memory. */
static char *host_text(const struct ctx *x, const struct host *h, int which,
		       int reset, size_t at)
{
	/* Bounds: a flush (below) is under 256 characters with k and the
	 * id's 16 digits under 24 characters each; a derived loop's flush
	 * adds its variable's name and two numbers. */
	size_t cap = 96 + (h->c1 - h->c0) * 320, n = 0;
	for (size_t k = h->c0; k < h->c1; k++)
		if (x->iv_of[k] >= 0)
			cap += strlen(x->ivs[x->iv_of[k]].var) + 128;
	char *t = malloc(cap);
	if (!t)
		return NULL;
#define PUT(...) (n += (size_t)snprintf(t + n, cap - n, __VA_ARGS__))
	if (which == 'd') {
		int any = 0;
		PUT("{");
		for (size_t k = h->c0; k < h->c1; k++) {
			if (x->derived[k] >= 0 || is_rt(x, k))
				continue;
			PUT("%s__mpp_l%zu = 0",
			    any ? ", " : "__extension__ unsigned long long ",
			    k);
			any = 1;
		}
		if (any)
			PUT("; ");
		if (x->cxx)
			PUT("__MPP_TRY {");
	} else {
		/* C++: an exception out of the loop adds the counts on its
		 * way, the same flush in the catch (pass 0). */
		for (int pass = which == 'e' && x->cxx ? 0 : 1; pass < 2;
		     pass++) {
			PUT(pass == 0      ? "} __MPP_CATCH { "
			    : which == 'e' ? " "
					   : "{");
			for (size_t k = h->c0; k < h->c1; k++) {
				if (is_rt(x, k))
					continue;
				const struct derive *d =
				    x->derived[k] >= 0
					? &x->derives[x->derived[k]]
					: NULL;
				const struct ivrec *v =
				    x->iv_of[k] >= 0 ? &x->ivs[x->iv_of[k]]
						     : NULL;
				/* A way out of the function (which 'l': a
				 * return, a goto, a call that does not return)
				 * adds the sum and then tells the compiler the
				 * slot is read there (an empty asm with the
				 * slot as a "+m" operand): once the function is
				 * inlined into a call-free nest, a compiler
				 * otherwise keeps the slot in a register until
				 * the nest ends (store motion), and a running
				 * job's progress thread reads 0 meanwhile
				 * (issue 37: prime). The asm costs no
				 * instruction and, unlike a relaxed atomic
				 * store (GCC takes one as a clobber of all
				 * memory), lets the caller keep its own
				 * variables in registers: prime 1.0333 ->
				 * 1.0207 (bench-overhead). The loop's own end
				 * keeps a plain `+=`. */
				PUT("__mpp_c_%s[%zu] += ", x->id, k);
				if (which == 'l')
					PUT("(");
				if (d)
					PUT("__mpp_l%zu - __mpp_l%zu", d->body,
					    d->then);
				else if (v && at >= v->body_b &&
					 at < v->body_e && v->up)
					/* Leaving from inside the body: it ran
					 * once more than v tells. */
					PUT("__extension__ ((__mpp_l%zu + "
					    "(unsigned long long)(%s) + "
					    "%luULL) / "
					    "%luULL)",
					    k, v->var, v->step, v->step);
				else if (v && at >= v->body_b && at < v->body_e)
					PUT("__extension__ ((__mpp_l%zu + "
					    "%luULL - "
					    "(unsigned long long)(%s)) / "
					    "%luULL)",
					    k, v->step, v->var, v->step);
				else if (v)
					PUT("__mpp_l%zu / __extension__ %luULL",
					    k, v->step);
				else
					PUT("__mpp_l%zu", k);
				if (which == 'l')
					PUT("); __asm__ __volatile__(\"\" : "
					    "\"+m\"(__mpp_c_%s[%zu])); ",
					    x->id, k);
				else
					PUT("; ");
			}
			if (pass == 0)
				PUT("__MPP_RETHROW }");
		}
		for (size_t k = h->c0; reset && k < h->c1; k++)
			if (x->derived[k] < 0 && !is_rt(x, k))
				PUT("__mpp_l%zu = 0; ", k);
		if (which == 'e')
			PUT("}");
	}
#undef PUT
	return t;
}

/* Removes counter k's increment from its edit (a derived counter):
 * `__mpp_c_ID[k]++; ` or the `__mpp_c_ID[k]++, ` of an else-if test. */
static void drop_increment(struct ctx *x, size_t k)
{
	char pat[64], *text;
	snprintf(pat, sizeof(pat), "__mpp_c_%s[%zu]++", x->id, k);
	const char *old = x->plan->edits.v[x->inc_edit[k]].text,
		   *at = strstr(old, pat);
	if (!at)
		return;
	const char *rest = at + strlen(pat);
	if (*rest == ';' || *rest == ',')
		rest++;
	if (*rest == ' ')
		rest++;
	if (asprintf(&text, "%.*s%s", (int)(at - old), old, rest) < 0)
		text = NULL;
	size_t close = x->inc_edit[k] + 1;
	if (text && strcmp(text, "(") == 0 && close < x->plan->edits.n &&
	    strcmp(x->plan->edits.v[close].text, ")") == 0) {
		/* An else-if's `((test))` would warn (-Wparentheses-equality):
		 * both parentheses go. */
		text[0] = 0;
		set_text(x, close, strdup(""));
	}
	set_text(x, x->inc_edit[k], text);
}

/* Turns the increment of counter k to its local: `__mpp_c_ID[k]` in its
 * edit becomes `__mpp_lk`. */
static void use_local(struct ctx *x, size_t k)
{
	char pat[64], *text;
	snprintf(pat, sizeof(pat), "__mpp_c_%s[%zu]", x->id, k);
	const char *old = x->plan->edits.v[x->inc_edit[k]].text,
		   *at = strstr(old, pat);
	if (!at)
		return;
	if (asprintf(&text, "%.*s__mpp_l%zu%s", (int)(at - old), old, k,
		     at + strlen(pat)) < 0)
		text = NULL;
	set_text(x, x->inc_edit[k], text);
}

/* Writes the chosen hosts of the function just walked into the edits:
 * the wrappers, the increments turned to locals, the flushes before the
 * statements that leave; empties the leaves no host holds. */
static void finish_hosts(struct ctx *x)
{
	size_t nl = 0, nc = x->plan->ncounters;
	/* grow() doubles once; the table needs room for every slot. */
	while (x->capderived <= nc)
		if (grow(x, (void **)&x->derived, x->capderived, &x->capderived,
			 sizeof(*x->derived)) < 0)
			return;
	while (x->capiv_of <= nc)
		if (grow(x, (void **)&x->iv_of, x->capiv_of, &x->capiv_of,
			 sizeof(*x->iv_of)) < 0)
			return;
	for (size_t k = 0; k < nc; k++)
		x->derived[k] = x->iv_of[k] = -1;
	for (size_t i = 0; i < x->nrt; i++)
		drop_increment(x, x->rt[i]);
	/* A hosted loop keeps its local increment unless the compiler does
	 * not fold it (mpp_trip_host_entry): then the local gets the count
	 * at entry too, and no count from its variable. */
	for (size_t j = 0; j < x->ntrips && !x->oom; j++) {
		const struct trip *tr = &x->trips[j];
		int hosted = 0, outside = 0;
		if (is_rt(x, tr->k)) {
			set_text(x, tr->init, strdup(""));
			continue;
		}
		for (size_t i = 0; i < x->nhosts; i++)
			if (tr->k >= x->hosts[i].c0 && tr->k < x->hosts[i].c1) {
				hosted = 1;
				/* the local is declared where its host starts
				 */
				outside = tr->outer_kw &&
					  x->hosts[i].kw > tr->outer_kw;
			}
		if (hosted && (!tr->at_entry || outside)) {
			set_text(x, tr->init, strdup(""));
		} else {
			drop_increment(x, tr->k);
			x->inc_edit[tr->k] = tr->init;
			x->iv_of[tr->k] = -2; /* counted: no count from v */
		}
	}
	for (size_t i = 0; i < x->nhosts; i++) {
		const struct host *h = &x->hosts[i];
		for (size_t j = 0; j < x->nderives; j++) {
			const struct derive *d = &x->derives[j];
			if (d->e >= h->c0 && d->e < h->c1 && d->body >= h->c0 &&
			    d->body < h->c1 && d->then >= h->c0 &&
			    d->then < h->c1 && x->derived[d->body] < 0 &&
			    !is_rt(x, d->body) && x->derived[d->then] < 0 &&
			    x->derived[d->e] < 0) {
				x->derived[d->e] = (long)j;
				drop_increment(x, d->e);
			}
		}
	}
	/* The other derivations where no host holds any of the three: the
	 * runtime computes the else count from the two in memory (plan
	 * derived, in visiting order, so that a body derived itself comes
	 * first). */
	for (size_t j = 0; j < x->nderives && !x->oom; j++) {
		const struct derive *d = &x->derives[j];
		int hosted = 0;
		for (size_t i = 0; i < x->nhosts; i++) {
			const struct host *h = &x->hosts[i];
			hosted |= (d->e >= h->c0 && d->e < h->c1) ||
				  (d->body >= h->c0 && d->body < h->c1) ||
				  (d->then >= h->c0 && d->then < h->c1);
		}
		struct mpp_plan *p = x->plan;
		if (hosted || x->derived[d->e] >= 0 ||
		    x->derived[d->then] >= 0 ||
		    grow(x, (void **)&p->derived, 3 * p->nderived,
			 &p->capderived, sizeof(*p->derived)) ||
		    grow(x, (void **)&p->derived, 3 * p->nderived + 2,
			 &p->capderived, sizeof(*p->derived)))
			continue;
		size_t *t = &p->derived[3 * p->nderived];
		if (d->cond && x->derived[d->body] < 0 && !is_rt(x, d->body)) {
			/* An else-if counted in its condition, `if ((c++,
			 * test))`, whose own count nothing gives: the sum of
			 * its then and else instead, counted in their blocks
			 * (the increment in the test kept gcc from inlining
			 * XSBench's lookup where one in a block did not). */
			x->derived[d->body] = (long)j;
			drop_increment(x, d->body);
			t[0] = d->body;
			t[1] = d->then;
			t[2] = d->e | MPP_DERIVE_SUM;
		} else {
			x->derived[d->e] = (long)j;
			drop_increment(x, d->e);
			t[0] = d->e;
			t[1] = d->body;
			t[2] = d->then;
		}
		p->nderived++;
	}
	/* Counts from the loop variable where a host holds the counter and
	 * no else count is derived from it (that reads the local as a count
	 * at every flush); elsewhere the increment stays. */
	for (size_t j = 0; j < x->nivs && !x->oom; j++) {
		struct ivrec *v = &x->ivs[j];
		int hosted = 0, body_of_derive = 0;
		for (size_t i = 0; i < x->nhosts; i++)
			hosted |=
			    v->k >= x->hosts[i].c0 && v->k < x->hosts[i].c1;
		for (size_t e = 0; e < nc; e++)
			body_of_derive |=
			    x->derived[e] >= 0 &&
			    x->derives[x->derived[e]].body == v->k;
		if (hosted && !body_of_derive && x->iv_of[v->k] != -2 &&
		    !is_rt(x, v->k)) {
			drop_increment(x, v->k);
			x->iv_of[v->k] = (long)j;
		} else {
			for (unsigned i = 0; i < v->ned; i++)
				set_text(x, v->ed[i], strdup(""));
		}
	}
	for (size_t i = 0; i < x->nhosts && !x->oom; i++) {
		const struct host *h = &x->hosts[i];
		for (size_t k = h->c0; k < h->c1; k++)
			use_local(x, k);
		for (; nl < h->l0; nl++) {
			set_text(x, x->leaves[nl].open, strdup(""));
			set_text(x, x->leaves[nl].close, strdup(""));
		}
		for (; nl < h->l1; nl++) {
			const struct leave *l = &x->leaves[nl];
			set_text(x, l->open,
				 host_text(x, h, 'l', l->reset || x->cxx,
					   x->plan->edits.v[l->open].off));
			set_text(x, l->close, strdup("}"));
		}
		char *d = host_text(x, h, 'd', 0, SIZE_MAX),
		     *e = host_text(x, h, 'e', 0, SIZE_MAX);
		if (d && e) {
			add_edit(x, h->kw, MPP_EDIT_OPEN, h->depth, d);
			add_edit(x, h->end, MPP_EDIT_CLOSE, h->depth, e);
		} else {
			x->oom = 1;
		}
		free(d);
		free(e);
	}
	for (; nl < x->nleaves; nl++) {
		set_text(x, x->leaves[nl].open, strdup(""));
		set_text(x, x->leaves[nl].close, strdup(""));
	}
	for (size_t j = 0; j < x->nivs; j++)
		free(x->ivs[j].var);
	x->nhosts = x->nleaves = x->nentered = x->nderives = x->ntrips = 0;
	x->nivs = x->nchains = x->nrt = 0;
}

/* Done walking loop c (its frame on top): chooses it as a host if it can
 * be one, replacing the hosts chosen inside it, unless that would give it
 * more than HOST_LOCALS locals: is's main loop hosting 16 had them live
 * across every inner loop and call, spilled to the stack (+2.3 M stores,
 * +7 % time), while hosting every innermost loop instead cost a flush per
 * execution of a loop that mostly runs once (+3.7 M instructions). A few
 * locals fit in registers beside the user's values. */
#define HOST_LOCALS 6
static void end_frame(struct ctx *x, CXCursor c, size_t limit)
{
	struct frame f = x->frames[--x->nframes];
	size_t end, own = 0; /* counters inside that the program counts */
	/* A loop of constant trip count with nothing counted inside: the
	 * runtime derives its count (struct chain). */
	if (f.trip && x->plan->ncounters == f.counters + 1)
		derive_rt(x, f.counters, f.from, MPP_DERIVE_SCALE | f.trip);
	for (size_t k = f.counters; k < x->plan->ncounters; k++)
		own += !is_rt(x, k);
	if (f.clean && f.candidate &&
	    (x->nhosts == f.hosts || own <= HOST_LOCALS) && own > 0 &&
	    stmt_end(x, c, &end) == 0 && end <= limit &&
	    mpp_tu_macro_inside(x->t, end) < 0 &&
	    !region_pragma_within(x, f.kw, end)) {
		x->nhosts = f.hosts;
		if (grow(x, (void **)&x->hosts, x->nhosts, &x->caphosts,
			 sizeof(*x->hosts)) < 0)
			return;
		x->hosts[x->nhosts++] = (struct host){
		    f.kw,     end,        f.counters, x->plan->ncounters,
		    f.leaves, x->nleaves, f.depth - 1};
	}
	if (!f.clean)
		unclean(x);
}

/* The first `n` tokens of c's extent hold `word` (`if constexpr`,
 * `constexpr int f()`...). */
static int leading_word(CXTranslationUnit tu, CXSourceRange r, unsigned n,
			const char *word)
{
	CXToken *tk = NULL;
	unsigned nt = 0;
	int found = 0;
	clang_tokenize(tu, r, &tk, &nt);
	for (unsigned i = 0; i < nt && i < n && !found; i++) {
		CXString sp = clang_getTokenSpelling(tu, tk[i]);
		found = strcmp(clang_getCString(sp), word) == 0;
		clang_disposeString(sp);
	}
	clang_disposeTokens(tu, tk, nt);
	return found;
}

/* C++17 `if (init; cond)`: a `;` at the top level of the parentheses
 * between the keyword of `ifs` and the start of its child `second` (the
 * child after the first one that is not the condition variable: the
 * condition when there is an init-statement, else the then-branch). */
static int if_has_init(const struct ctx *x, CXCursor ifs, CXCursor second)
{
	CXTranslationUnit tu = x->t->tu;
	CXSourceRange r =
	    clang_getRange(clang_getRangeStart(clang_getCursorExtent(ifs)),
			   clang_getRangeStart(clang_getCursorExtent(second)));
	CXToken *tk = NULL;
	unsigned nt = 0;
	int depth = 0, found = 0;
	clang_tokenize(tu, r, &tk, &nt);
	for (unsigned i = 0; i < nt && !found; i++) {
		if (clang_getTokenKind(tk[i]) != CXToken_Punctuation)
			continue;
		CXString sp = clang_getTokenSpelling(tu, tk[i]);
		const char *w = clang_getCString(sp);
		if (!strcmp(w, "(") || !strcmp(w, "{") || !strcmp(w, "["))
			depth++;
		else if (!strcmp(w, ")") || !strcmp(w, "}") || !strcmp(w, "]"))
			depth--;
		else if (!strcmp(w, ";") && depth == 1)
			found = 1;
		clang_disposeString(sp);
	}
	clang_disposeTokens(tu, tk, nt);
	return found;
}

/* Whether an `else if` can count through its condition: in C++ not when
 * it is `if constexpr`, declares a variable or has an init-statement. */
static int else_if_plain(struct ctx *x, CXCursor inner)
{
	if (!x->cxx)
		return 1;
	size_t at = x->nstack, n = push_children(x, inner);
	int ok = n >= 2 &&
		 clang_isExpression(clang_getCursorKind(x->stack[at])) &&
		 !if_has_init(x, inner, x->stack[at + 1]) &&
		 !leading_word(x->t->tu, clang_getCursorExtent(inner), 2,
			       "constexpr");
	x->nstack = at;
	return ok;
}

/* `nest`: how many more loop levels, this one included, belong to a
 * collapsed nest whose bodies must not be touched; `bare`: c is the body
 * of such a loop and must stay exactly as it is; `is_stmt`: c is a
 * statement (not part of an expression). Depths go in steps of 2 so that
 * a host's wrapper (depth - 1) nests between its loop's edits and those
 * of the statement around it. */
static void walk(struct ctx *x, CXCursor c, unsigned depth, size_t limit,
		 unsigned nest, int bare, int is_stmt)
{
	if (x->oom)
		return;
	enum CXCursorKind k = clang_getCursorKind(c);
	size_t at = x->nstack, n = push_children(x, c);
	size_t kw = 0, then_limit = limit, body = n;
	unsigned inner = 0;
	int have_kw = exp_off(x, clang_getCursorLocation(c), &kw) == 0;
	int framed = 0;
	long in_switch = -1;
	unsigned levels = 0, if_base = 0;

	switch (k) {
	case CXCursor_ForStmt:
	case CXCursor_CXXForRangeStmt:
	case CXCursor_WhileStmt:
	case CXCursor_DoStmt: {
		const char *stmt = k == CXCursor_WhileStmt ? "while"
				   : k == CXCursor_DoStmt  ? "do"
							   : "for";
		if (n == 0 || !have_kw)
			break;
		body = k == CXCursor_DoStmt ? at : at + n - 1;
		levels = collapse_levels(x, kw);
		if (nest > levels)
			levels = nest;
		int cand = levels == 0 && !bare && loop_can_host(x, c, kw);
		if (grow(x, (void **)&x->frames, x->nframes, &x->capframes,
			 sizeof(*x->frames)) < 0)
			break;
		x->frames[x->nframes++] =
		    (struct frame){kw,         x->plan->ncounters,
				   x->nleaves, x->nhosts,
				   depth,      0,
				   1,          cand,
				   0,          0};
		framed = 1;
		if (levels > 0) {
			add_note(x, kw,
				 "loop body of %s in a collapsed loop "
				 "nest, which must stay perfectly nested",
				 stmt);
			inner = levels - 1;
		} else {
			/* `do { ... } while (0)` from a macro (the statement
			 * idiom of function-like macros) runs its body once
			 * per pass: nothing to count, nothing to note. */
			long slot =
			    k == CXCursor_DoStmt &&
				    macro_do_once(x, kw, x->stack[at + n - 1])
				? -1
				: count_body(x, kw, x->stack[body], MPP_LOOP,
					     stmt, depth, limit);
			if (slot >= 0)
				mark_entered(x, x->stack[body], slot);
			struct chain *ch = slot >= 0 && k == CXCursor_ForStmt
					       ? chain_at(x, kw, 1)
					       : NULL;
			if (ch && known_count(x, ch->from)) {
				x->frames[x->nframes - 1].from = ch->from;
				x->frames[x->nframes - 1].trip = ch->trip;
			}
			if (slot >= 0 && k == CXCursor_ForStmt && !bare &&
			    !loop_guarded(x, kw)) {
				derive_trip(x, c, slot, depth);
				derive_iv(x, c, slot, depth);
			}
		}
		body -= at;
		break;
	}
	case CXCursor_IfStmt:
		if (n < 2 || !have_kw)
			break;
		/* C++: a condition variable (`if (T v = e)`) comes first, as
		 * a VarDecl, then a C++17 init-statement (`if (init; cond)`),
		 * then the condition: then-branch and else after them. */
		if (x->cxx) {
			if_base = clang_getCursorKind(x->stack[at]) ==
				  CXCursor_VarDecl;
			if (n > if_base + 1 &&
			    if_has_init(x, c, x->stack[at + if_base + 1]))
				if_base++;
		}
		if (n < 2 + if_base)
			break;
		if (n >= 3 + if_base)
			then_limit = min_size(
			    limit,
			    start_or(x, x->stack[at + 2 + if_base], limit));
		{
			long kt = count_body(x, kw, x->stack[at + 1 + if_base],
					     MPP_THEN, "if", depth, then_limit),
			     ke = -1;
			/* The ifs a branch runs once per pass: their else
			 * counts are derived from the branch's (XSBench's
			 * lookup of 8 ifs, 16 counters outside any loop,
			 * grew past gcc's inlining limit). */
			if (kt >= 0)
				mark_entered(x, x->stack[at + 1 + if_base], kt);
			if (n >= 3 + if_base) {
				CXCursor els = x->stack[at + 2 + if_base];
				size_t ekw;
				if (clang_getCursorKind(els) ==
					CXCursor_IfStmt &&
				    else_if_plain(x, els)) {
					ke = count_else_if(x, kw, els, depth);
					/* An else-if runs once per else. */
					if (ke >= 0 && !x->cxx &&
					    exp_off(
						x, clang_getCursorLocation(els),
						&ekw) == 0 &&
					    !grow(x, (void **)&x->entered,
						  x->nentered, &x->capentered,
						  sizeof(*x->entered)))
						x->entered[x->nentered++] =
						    (struct entered){
							ekw, (size_t)ke, 1};
				} else {
					ke = count_body(x, kw, els, MPP_ELSE,
							"if", depth, limit);
					if (ke >= 0)
						mark_entered(x, els, ke);
				}
			}
			int cond = 0;
			long kb = entered_with(x, kw, &cond);
			/* A skip (mark_entered): the count after it is known
			 * once its then is counted. */
			struct chain *ch = chain_at(x, kw, 0);
			if (ch && kt >= 0 && known_count(x, ch->from)) {
				add_triple(x, ch->scratch, ch->from,
					   (size_t)kt);
				ch->defined = 1;
			}
			if (kb >= 0 && ((size_t)kb & MPP_DERIVE_SCRATCH)) {
				if (kt >= 0 && ke >= 0 &&
				    known_count(x, (size_t)kb))
					derive_rt(x, (size_t)ke, (size_t)kb,
						  (size_t)kt);
			} else if (kt >= 0 && ke >= 0 && kb >= 0 &&
				   !grow(x, (void **)&x->derives, x->nderives,
					 &x->capderives, sizeof(*x->derives)))
				x->derives[x->nderives++] = (struct derive){
				    (size_t)ke, (size_t)kb, (size_t)kt, cond};
		}
		break;
	case CXCursor_CallExpr: {
		int mpi = tag_call(x, c, depth);
		if (x->nframes) {
			int eff = aborts(c) ? 0 : mpp_call_effect(x->t->tu, c);
			if (eff == 1 && is_stmt)
				add_leave(x, c, depth - 1, limit, 1);
			else if (eff || mpi || calls_other_file(c))
				unclean(x);
		}
		break;
	}
	case CXCursor_ReturnStmt:
	case CXCursor_GotoStmt:
		if (x->nframes)
			add_leave(x, c, depth - 1, limit, 0);
		break;
	case CXCursor_SwitchStmt:
		if (x->nframes) {
			in_switch = (long)x->nframes - 1;
			x->frames[in_switch].switches++;
		}
		break;
	case CXCursor_CaseStmt:
	case CXCursor_DefaultStmt:
		if (x->nframes && x->frames[x->nframes - 1].switches == 0)
			unclean(x);
		/* The labelled statement is the last child (after the value,
		 * and a GNU range's end). */
		if (n >= 1 && have_kw)
			count_case(x, kw, x->stack[at + n - 1], depth);
		break;
	case CXCursor_AsmStmt:
		if (x->nframes && is_asm_goto(x, c))
			unclean(x);
		break;
	case CXCursor_LabelStmt:
	case CXCursor_IndirectGotoStmt:
	case CXCursor_FunctionDecl:
	case CXCursor_BlockExpr:
	case CXCursor_LambdaExpr:
	case CXCursor_CXXMethod:
	case CXCursor_Constructor:
	case CXCursor_Destructor:
	case CXCursor_ConversionFunction:
	case CXCursor_FunctionTemplate:
		/* A nested function: its returns leave it, not the loop. */
		unclean(x);
		break;
	default:
		break;
	}

	size_t rbrace = limit;
	if (k == CXCursor_CompoundStmt) {
		size_t e;
		if (end_off(x, c, &e) == 0 && e > 0)
			rbrace = e - 1;
	}
	int is_loop = k == CXCursor_ForStmt || k == CXCursor_WhileStmt ||
		      k == CXCursor_DoStmt || k == CXCursor_CXXForRangeStmt;
	for (size_t i = 0; i < n && !x->oom; i++) {
		size_t lim = limit;
		if (k == CXCursor_CompoundStmt)
			lim = i + 1 < n
				  ? start_or(x, x->stack[at + i + 1], rbrace)
				  : rbrace;
		else if (k == CXCursor_IfStmt && i == 1 + if_base)
			lim = then_limit;
		unsigned child_nest = i == body                    ? inner
				      : k == CXCursor_CompoundStmt ? nest
								   : 0;
		int child_bare = is_loop && i == body && levels > 0;
		int child_stmt =
		    k == CXCursor_CompoundStmt || (is_loop && i == body) ||
		    (k == CXCursor_IfStmt && i >= 1 + if_base) ||
		    ((k == CXCursor_LabelStmt || k == CXCursor_CaseStmt ||
		      k == CXCursor_DefaultStmt) &&
		     i + 1 == n);
		walk(x, x->stack[at + i], depth + 2, lim, child_nest,
		     child_bare, child_stmt);
	}
	if (in_switch >= 0 && (size_t)in_switch < x->nframes)
		x->frames[in_switch].switches--;
	if (framed && !x->oom)
		end_frame(x, c, limit);
	x->nstack = at;
}

/* A function definition to walk: C functions, and in C++ member functions
 * (also those defined in class bodies), constructors, destructors,
 * conversion functions and templates (walked once, as written: counters
 * belong to source locations, shared by every instantiation). */
static int is_function(enum CXCursorKind k)
{
	return k == CXCursor_FunctionDecl || k == CXCursor_CXXMethod ||
	       k == CXCursor_Constructor || k == CXCursor_Destructor ||
	       k == CXCursor_ConversionFunction ||
	       k == CXCursor_FunctionTemplate;
}

/* Declarations whose members may hold function definitions. */
static int is_container(enum CXCursorKind k)
{
	return k == CXCursor_Namespace || k == CXCursor_LinkageSpec ||
	       k == CXCursor_ClassDecl || k == CXCursor_StructDecl ||
	       k == CXCursor_UnionDecl || k == CXCursor_ClassTemplate ||
	       k == CXCursor_ClassTemplatePartialSpecialization;
}

/* `constexpr` or `consteval` before the body: a counter would make the
 * function unusable in constant expressions, so it is left alone. */
static int is_constexpr(const struct ctx *x, CXCursor fn)
{
	CXSourceRange r =
	    clang_getRange(clang_getRangeStart(clang_getCursorExtent(fn)),
			   clang_getCursorLocation(fn));
	return leading_word(x->t->tu, r, 64, "constexpr") ||
	       leading_word(x->t->tu, r, 64, "consteval");
}

static enum CXChildVisitResult top_level(CXCursor c, CXCursor parent,
					 CXClientData data)
{
	(void)parent;
	struct ctx *x = data;
	enum CXCursorKind k = clang_getCursorKind(c);
	size_t off;
	/* Only containers written in this file hold its functions (a
	 * header's walk need not list std's namespaces). */
	if (x->cxx && is_container(k))
		return k == CXCursor_LinkageSpec ||
			       exp_off(x, clang_getCursorLocation(c), &off) == 0
			   ? CXChildVisit_Recurse
			   : CXChildVisit_Continue;
	if (!is_function(k) || !clang_isCursorDefinition(c))
		return CXChildVisit_Continue;
	if (exp_off(x, clang_getCursorLocation(c), &off) < 0)
		return CXChildVisit_Continue;
	if (x->cxx && is_constexpr(x, c)) {
		CXString s = clang_getCursorSpelling(c);
		add_note(x, off, "constexpr function %s", clang_getCString(s));
		clang_disposeString(s);
		return CXChildVisit_Continue;
	}
	CXString s = clang_getCursorSpelling(c);
	x->func = strdup(clang_getCString(s));
	clang_disposeString(s);
	if (!x->func) {
		x->oom = 1;
		return CXChildVisit_Break;
	}
	x->fn = c;
	walk(x, c, 2, x->src->len, 0, 0, 0);
	finish_hosts(x);
	free(x->func);
	x->func = NULL;
	return x->oom ? CXChildVisit_Break : CXChildVisit_Continue;
}

/* C++ units by their file name, as compilers decide. */
static int cxx_name(const char *path)
{
	static const char *const ext[] = {".cc", ".cpp", ".cxx", ".c++",
					  ".C",  ".cp",  ".CPP", ".hpp",
					  ".hh", ".hxx", ".H",   ".ii"};
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof(ext) / sizeof(*ext); i++) {
		size_t m = strlen(ext[i]);
		if (n > m && strcmp(path + n - m, ext[i]) == 0)
			return 1;
	}
	return 0;
}

int mpp_visit(const struct mpp_tu *t, const struct mpp_source *src,
	      const char *id, const char *display, struct mpp_plan *plan)
{
	struct ctx x = {
	    .t = t, .src = src, .id = id, .display = display, .plan = plan};
	x.line_name = mpp_quote_c(display);
	if (!x.line_name)
		return -1;
	CXString fname = clang_getFileName(t->file);
	/* A header is walked in its unit's language (plan->cxx preset). */
	x.cxx = plan->cxx = plan->cxx || cxx_name(clang_getCString(fname));
	clang_disposeString(fname);
	clang_visitChildren(clang_getTranslationUnitCursor(t->tu), top_level,
			    &x);
	free(x.line_name);
	free(x.stack);
	free(x.used.v);
	free(x.frames);
	free(x.inc_edit);
	free(x.leaves);
	free(x.hosts);
	free(x.entered);
	free(x.derives);
	free(x.trips);
	free(x.ivs);
	free(x.iv_of);
	free(x.derived);
	free(x.chains);
	free(x.rt);
	return x.oom ? -1 : 0;
}
