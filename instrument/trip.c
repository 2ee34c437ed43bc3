/*
 * trip.c: trip counts of canonical for loops (see trip.h). Everything is
 * decided on the AST; the text inserted copies only the loop variable's
 * name and the bound's own source text, which the checks have shown to be
 * plain text of the file, free of calls and memory accesses.
 */
#include "instrument/trip.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instrument/visit.h"

/* The variables the loop's count depends on: the loop variable and those
 * of the bound. */
#define MAX_WATCH 16
struct watch {
	CXCursor v[MAX_WATCH];
	unsigned n;
	int bad;
	int globals; /* a variable of static storage among them */
};

struct kids {
	CXCursor c[4];
	unsigned n;
};

static enum CXChildVisitResult add_kid(CXCursor c, CXCursor parent,
				       CXClientData data)
{
	(void)parent;
	struct kids *k = data;
	if (k->n < 4)
		k->c[k->n] = c;
	k->n++;
	return CXChildVisit_Continue;
}

static unsigned kids_of(CXCursor c, struct kids *k)
{
	k->n = 0;
	clang_visitChildren(c, add_kid, k);
	return k->n;
}

/* c without implicit conversions and parentheses around it. */
static CXCursor bare(CXCursor c)
{
	struct kids k;
	while ((clang_getCursorKind(c) == CXCursor_UnexposedExpr ||
		clang_getCursorKind(c) == CXCursor_ParenExpr) &&
	       kids_of(c, &k) == 1)
		c = k.c[0];
	return c;
}

/* Offset of a location that is plain text of the main file (spelled where
 * it expands, outside any macro invocation); -1 otherwise. */
static int plain_off(const struct mpp_tu *t, CXSourceLocation l, size_t *off)
{
	CXFile fe, ff;
	unsigned oe, of;
	clang_getExpansionLocation(l, &fe, NULL, NULL, &oe);
	clang_getFileLocation(l, &ff, NULL, NULL, &of);
	if (!fe || !ff || !clang_File_isEqual(fe, t->file) ||
	    !clang_File_isEqual(ff, t->file) || oe != of ||
	    mpp_tu_macro_inside(t, oe) >= 0)
		return -1;
	*off = oe;
	return 0;
}

static int int_type(CXType ty)
{
	CXType c = clang_getCanonicalType(ty);
	if (clang_isVolatileQualifiedType(ty) ||
	    clang_isVolatileQualifiedType(c))
		return 0;
	switch (c.kind) {
	case CXType_Char_U:
	case CXType_UChar:
	case CXType_UShort:
	case CXType_UInt:
	case CXType_ULong:
	case CXType_ULongLong:
	case CXType_Char_S:
	case CXType_SChar:
	case CXType_Short:
	case CXType_Int:
	case CXType_Long:
	case CXType_LongLong:
		return 1;
	default:
		return 0;
	}
}

/* The declaration of a local, non-static, non-volatile integer variable
 * or parameter that ref (a DeclRefExpr) names; a null cursor otherwise. */
static CXCursor local_int(CXCursor ref)
{
	CXCursor d = clang_getCursorReferenced(ref);
	enum CXCursorKind k = clang_getCursorKind(d);
	if (clang_getCursorKind(ref) != CXCursor_DeclRefExpr ||
	    (k != CXCursor_VarDecl && k != CXCursor_ParmDecl))
		return clang_getNullCursor();
	enum CX_StorageClass sc = clang_Cursor_getStorageClass(d);
	if ((sc != CX_SC_None && sc != CX_SC_Auto && sc != CX_SC_Register) ||
	    (k == CXCursor_VarDecl &&
	     clang_getCursorKind(clang_getCursorSemanticParent(d)) !=
		 CXCursor_FunctionDecl) ||
	    !int_type(clang_getCursorType(d)))
		return clang_getNullCursor();
	return d;
}

/* The declaration of an integer variable of static storage (a global, a
 * static local) that ref (a DeclRefExpr) names; a null cursor otherwise.
 * Unlike a local, a call or a store through an integer lvalue may change
 * it: a loop whose bound reads one must hold neither (scan_one). */
static CXCursor static_int(CXCursor ref)
{
	CXCursor d = clang_getCursorReferenced(ref);
	if (clang_getCursorKind(ref) != CXCursor_DeclRefExpr ||
	    clang_getCursorKind(d) != CXCursor_VarDecl ||
	    !clang_Cursor_hasVarDeclGlobalStorage(d) ||
	    !int_type(clang_getCursorType(d)))
		return clang_getNullCursor();
	return d;
}

/* Declarations compared as their first one: a global declared `extern`
 * in a header and defined in the file is one variable. */
static int watched(const struct watch *w, CXCursor d)
{
	d = clang_getCanonicalCursor(d);
	for (unsigned i = 0; i < w->n; i++)
		if (clang_equalCursors(clang_getCanonicalCursor(w->v[i]), d))
			return 1;
	return 0;
}

/* True if a store through an lvalue of type ty cannot change an integer
 * object (C11 6.5p7): a floating or pointer lvalue. */
static int int_free(CXType ty)
{
	switch (clang_getCanonicalType(ty).kind) {
	case CXType_Float:
	case CXType_Double:
	case CXType_LongDouble:
	case CXType_Pointer:
		return 1;
	default:
		return 0;
	}
}

/* The operator token of c: the first punctuation token at or after
 * offset `after` (a binary operator: after its left operand); `last`: the
 * extent's last token instead (a postfix operator). */
static int op_token(const struct mpp_tu *t, CXCursor c, size_t after, int last,
		    char *op, size_t len)
{
	CXToken *tk = NULL;
	unsigned n = 0;
	int found = 0;
	clang_tokenize(t->tu, clang_getCursorExtent(c), &tk, &n);
	for (unsigned i = 0; i < n && !found; i++) {
		unsigned j = last ? n - 1 - i : i, o;
		if (clang_getTokenKind(tk[j]) != CXToken_Punctuation)
			continue;
		clang_getFileLocation(clang_getTokenLocation(t->tu, tk[j]),
				      NULL, NULL, NULL, &o);
		if (!last && o < after)
			continue;
		CXString sp = clang_getTokenSpelling(t->tu, tk[j]);
		snprintf(op, len, "%s", clang_getCString(sp));
		clang_disposeString(sp);
		found = 1;
	}
	clang_disposeTokens(t->tu, tk, n);
	return found ? 0 : -1;
}

/* The operator of a binary expression with children k. */
static int binary_op(const struct mpp_tu *t, CXCursor c, const struct kids *k,
		     char *op, size_t len)
{
	unsigned e;
	clang_getFileLocation(clang_getRangeEnd(clang_getCursorExtent(k->c[0])),
			      NULL, NULL, NULL, &e);
	return op_token(t, c, e, 0, op, len);
}

/* A unary expression's operator; *prefix set. */
static int unary_op(const struct mpp_tu *t, CXCursor c, char *op, size_t len,
		    int *prefix)
{
	CXToken *tk = NULL;
	unsigned n = 0;
	clang_tokenize(t->tu, clang_getCursorExtent(c), &tk, &n);
	*prefix = n > 0 && clang_getTokenKind(tk[0]) == CXToken_Punctuation;
	clang_disposeTokens(t->tu, tk, n);
	return op_token(t, c, 0, !*prefix, op, len);
}

/* True if c is built of integer literals, enumerators and integer
 * variables (locals, or of static storage: w->globals) with arithmetic
 * only; the variables go to w. */
static int pure(const struct mpp_tu *t, CXCursor c, struct watch *w)
{
	struct kids k;
	char op[8];
	int prefix;
	kids_of(c, &k);
	switch (clang_getCursorKind(c)) {
	case CXCursor_IntegerLiteral:
	case CXCursor_CharacterLiteral:
		return 1;
	case CXCursor_DeclRefExpr: {
		CXCursor r = clang_getCursorReferenced(c);
		if (clang_getCursorKind(r) == CXCursor_EnumConstantDecl)
			return 1;
		CXCursor d = local_int(c);
		if (clang_Cursor_isNull(d) &&
		    !clang_Cursor_isNull(d = static_int(c)))
			w->globals = 1;
		if (clang_Cursor_isNull(d) || w->n == MAX_WATCH)
			return 0;
		if (!watched(w, d))
			w->v[w->n++] = d;
		return 1;
	}
	case CXCursor_ParenExpr:
	case CXCursor_UnexposedExpr:
	case CXCursor_CStyleCastExpr:
		if (k.n == 0 || k.n > 2)
			return 0;
		/* A cast's first child may be its type. */
		return pure(t, k.c[k.n - 1], w) &&
		       int_type(clang_getCursorType(c));
	case CXCursor_UnaryOperator:
		return k.n == 1 &&
		       unary_op(t, c, op, sizeof(op), &prefix) == 0 && prefix &&
		       (!strcmp(op, "-") || !strcmp(op, "+") ||
			!strcmp(op, "~")) &&
		       pure(t, k.c[0], w);
	case CXCursor_BinaryOperator: {
		static const char *const ok[] = {"+",  "-",  "*", "/", "%",
						 "<<", ">>", "&", "|", "^"};
		if (k.n != 2 || binary_op(t, c, &k, op, sizeof(op)) < 0)
			return 0;
		for (size_t i = 0; i < sizeof(ok) / sizeof(*ok); i++)
			if (!strcmp(op, ok[i]))
				return pure(t, k.c[0], w) && pure(t, k.c[1], w);
		return 0;
	}
	default:
		return 0;
	}
}

struct scan {
	const struct mpp_tu *t;
	struct watch *w;
	int in_loop;   /* a break here ends a loop or switch inside the body */
	int addr_only; /* look for `&var` only (the whole function) */
	/* mpp_trip_iv: return and goto may leave, the loop's own breaks are
	 * collected, a declaration named `shadow` is refused. */
	int exits_ok;
	const char *shadow;
	struct mpp_iv *iv;
};

static enum CXChildVisitResult scan_one(CXCursor c, CXCursor parent,
					CXClientData data);

/* True if c may change a variable of static storage that no lvalue names
 * in c: any call, and a store through an lvalue that may hold an integer
 * (not a named variable, whose object is its own, nor a floating or
 * pointer lvalue). */
static int may_change_static(const struct mpp_tu *t, CXCursor c,
			     enum CXCursorKind kind)
{
	struct kids k;
	char op[8];
	int prefix;
	if (kind == CXCursor_CallExpr)
		return 1;
	if ((kind != CXCursor_UnaryOperator &&
	     kind != CXCursor_BinaryOperator &&
	     kind != CXCursor_CompoundAssignOperator) ||
	    kids_of(c, &k) < 1)
		return 0;
	CXCursor lhs = bare(k.c[0]);
	if (clang_getCursorKind(lhs) == CXCursor_DeclRefExpr ||
	    int_free(clang_getCursorType(lhs)))
		return 0;
	if (kind == CXCursor_CompoundAssignOperator)
		return 1;
	if (kind == CXCursor_BinaryOperator)
		return k.n == 2 && (binary_op(t, c, &k, op, sizeof(op)) < 0 ||
				    !strcmp(op, "="));
	return unary_op(t, c, op, sizeof(op), &prefix) < 0 ||
	       !strcmp(op, "++") || !strcmp(op, "--");
}

static void scan(struct scan *s, CXCursor c)
{
	clang_visitChildren(c, scan_one, s);
}

/* Marks w bad when c may change a watched variable or leave the body. */
static enum CXChildVisitResult scan_one(CXCursor c, CXCursor parent,
					CXClientData data)
{
	(void)parent;
	struct scan *s = data;
	struct kids k;
	char op[8];
	int prefix;
	enum CXCursorKind kind = clang_getCursorKind(c);
	if (s->w->bad)
		return CXChildVisit_Break;
	switch (kind) {
	case CXCursor_UnaryOperator:
		if (kids_of(c, &k) == 1 &&
		    clang_getCursorKind(bare(k.c[0])) == CXCursor_DeclRefExpr &&
		    watched(s->w, clang_getCursorReferenced(bare(k.c[0]))) &&
		    unary_op(s->t, c, op, sizeof(op), &prefix) == 0 &&
		    (!strcmp(op, "&") ||
		     (!s->addr_only &&
		      (!strcmp(op, "++") || !strcmp(op, "--")))))
			s->w->bad = 1;
		break;
	case CXCursor_BinaryOperator:
	case CXCursor_CompoundAssignOperator:
		if (s->addr_only)
			break;
		if (kids_of(c, &k) == 2 &&
		    clang_getCursorKind(bare(k.c[0])) == CXCursor_DeclRefExpr &&
		    watched(s->w, clang_getCursorReferenced(bare(k.c[0]))) &&
		    (kind == CXCursor_CompoundAssignOperator ||
		     (binary_op(s->t, c, &k, op, sizeof(op)) == 0 &&
		      !strcmp(op, "="))))
			s->w->bad = 1;
		break;
	default:
		break;
	}
	if (s->w->globals && !s->addr_only && may_change_static(s->t, c, kind))
		s->w->bad = 1;
	if (!s->addr_only && s->exits_ok) {
		switch (kind) {
		case CXCursor_BreakStmt:
			if (s->in_loop)
				break;
			if (s->iv->nbreaks == MPP_IV_BREAKS)
				s->w->bad = 1;
			else
				s->iv->breaks[s->iv->nbreaks++] = c;
			return CXChildVisit_Continue;
		case CXCursor_GotoStmt:
		case CXCursor_ReturnStmt:
			return CXChildVisit_Recurse;
		case CXCursor_VarDecl: {
			CXString sp = clang_getCursorSpelling(c);
			if (!strcmp(clang_getCString(sp), s->shadow))
				s->w->bad = 1;
			clang_disposeString(sp);
			break;
		}
		default:
			break;
		}
	}
	if (!s->addr_only) {
		switch (kind) {
		case CXCursor_BreakStmt:
			if (!s->in_loop)
				s->w->bad = 1;
			break;
		case CXCursor_GotoStmt:
		case CXCursor_IndirectGotoStmt:
		case CXCursor_ReturnStmt:
		case CXCursor_LabelStmt:
		case CXCursor_AsmStmt:
		case CXCursor_BlockExpr:
		case CXCursor_FunctionDecl:
			s->w->bad = 1;
			break;
		case CXCursor_CallExpr:
			if (mpp_call_effect(s->t->tu, c))
				s->w->bad = 1;
			break;
		case CXCursor_ForStmt:
		case CXCursor_WhileStmt:
		case CXCursor_DoStmt:
		case CXCursor_SwitchStmt: {
			int was = s->in_loop;
			s->in_loop = 1;
			scan(s, c);
			s->in_loop = was;
			return s->w->bad ? CXChildVisit_Break
					 : CXChildVisit_Continue;
		}
		default:
			break;
		}
	}
	return s->w->bad ? CXChildVisit_Break : CXChildVisit_Recurse;
}

/* The source text of c, if it is plain text of the file. */
static char *text_of(const struct mpp_tu *t, const struct mpp_source *src,
		     CXCursor c)
{
	CXSourceRange r = clang_getCursorExtent(c);
	size_t b, e;
	if (plain_off(t, clang_getRangeStart(r), &b) < 0 ||
	    plain_off(t, clang_getRangeEnd(r), &e) < 0 || e <= b ||
	    e > src->len)
		return NULL;
	return strndup(src->text + b, e - b);
}

/* A for loop's init, `v = A` or `T v = A` (one declarator of an automatic
 * integer with an initializer): 0 with the loop variable in *var and the
 * cursor where the init ends in *endc, or 1 for any other shape. */
static int loop_init(const struct mpp_tu *t, CXCursor init, CXCursor *var,
		     CXCursor *endc)
{
	struct kids k;
	char op[8];
	if (clang_getCursorKind(init) == CXCursor_DeclStmt) {
		if (kids_of(init, &k) != 1 ||
		    clang_getCursorKind(k.c[0]) != CXCursor_VarDecl)
			return 1;
		*var = *endc = k.c[0];
		enum CX_StorageClass sc = clang_Cursor_getStorageClass(*var);
		if ((sc != CX_SC_None && sc != CX_SC_Auto &&
		     sc != CX_SC_Register) ||
		    !int_type(clang_getCursorType(*var)) ||
		    kids_of(*var, &k) == 0)
			return 1; /* no initializer */
		return 0;
	}
	if (clang_getCursorKind(init) != CXCursor_BinaryOperator ||
	    kids_of(init, &k) != 2 ||
	    binary_op(t, init, &k, op, sizeof(op)) < 0 || strcmp(op, "="))
		return 1;
	*var = local_int(bare(k.c[0]));
	*endc = init;
	return clang_Cursor_isNull(*var);
}

/* The init of a loop over v (the variable its test compares): a
 * declaration of local integers, v's with an initializer (`int j = 0, i =
 * 0`), or assignments joined by commas, one of them v's (`i = 0, j = n`).
 * *endc: where the init ends (the count is added after it, v set). */
static int loop_init_of(const struct mpp_tu *t, CXCursor init, CXCursor v,
			CXCursor *endc)
{
	struct kids k;
	char op[8];
	if (clang_getCursorKind(init) == CXCursor_DeclStmt) {
		unsigned n = kids_of(init, &k), found = 0;
		if (n == 0 || n > 4)
			return 1;
		for (unsigned i = 0; i < n; i++) {
			struct kids ik;
			CXCursor d = k.c[i];
			enum CX_StorageClass sc =
			    clang_Cursor_getStorageClass(d);
			if (clang_getCursorKind(d) != CXCursor_VarDecl ||
			    (sc != CX_SC_None && sc != CX_SC_Auto &&
			     sc != CX_SC_Register) ||
			    !int_type(clang_getCursorType(d)))
				return 1;
			if (clang_equalCursors(d, v))
				found = kids_of(d, &ik) > 0; /* initialised */
		}
		*endc = k.c[n - 1];
		return !found;
	}
	if (clang_getCursorKind(init) != CXCursor_BinaryOperator ||
	    kids_of(init, &k) != 2 ||
	    binary_op(t, init, &k, op, sizeof(op)) < 0)
		return 1;
	*endc = init;
	if (!strcmp(op, ",")) {
		CXCursor e;
		return loop_init_of(t, bare(k.c[0]), v, &e) &&
		       loop_init_of(t, bare(k.c[1]), v, &e);
	}
	return strcmp(op, "=") ||
	       !clang_equalCursors(local_int(bare(k.c[0])), v);
}

/* A step of the loop: `++x`, `x++`, `--x`, `x--`, `x += C` or `x -= C` of
 * a local integer x (C an integer literal in 1..999999). Returns x (null:
 * another expression) with *up its direction and *c its stride. */
static CXCursor step_of(const struct mpp_tu *t, const struct mpp_source *src,
			CXCursor inc, int *up, unsigned long *c)
{
	struct kids ik;
	char step[8];
	int prefix;
	CXCursor null = clang_getNullCursor(), x;
	*c = 1;
	if (clang_getCursorKind(inc) == CXCursor_UnaryOperator) {
		if (kids_of(inc, &ik) != 1 ||
		    unary_op(t, inc, step, sizeof(step), &prefix) < 0 ||
		    (strcmp(step, "++") && strcmp(step, "--")))
			return null;
		*up = step[0] == '+';
		return local_int(bare(ik.c[0]));
	}
	if (clang_getCursorKind(inc) != CXCursor_CompoundAssignOperator ||
	    kids_of(inc, &ik) != 2 ||
	    clang_getCursorKind(bare(ik.c[1])) != CXCursor_IntegerLiteral ||
	    binary_op(t, inc, &ik, step, sizeof(step)) < 0 ||
	    (strcmp(step, "+=") && strcmp(step, "-=")))
		return null;
	x = local_int(bare(ik.c[0]));
	char *lit = text_of(t, src, bare(ik.c[1]));
	char *e = NULL;
	*c = lit ? strtoul(lit, &e, 0) : 0;
	int ok =
	    lit && *c > 0 && *c < 1000000 && strspn(e, "uUlL") == strlen(e);
	free(lit);
	*up = step[0] == '+';
	return ok ? x : null;
}

/* STEP: v's step, alone or joined by commas to steps of other local
 * integers none of which is watched (v, B's variables): `ij++, jOff++`.
 * Returns 0 with *up and *c v's direction and stride, 1 otherwise. */
static int loop_step(const struct mpp_tu *t, const struct mpp_source *src,
		     CXCursor inc, CXCursor v, const struct watch *w, int *up,
		     unsigned long *c, unsigned *nv)
{
	struct kids k;
	char op[8];
	if (clang_getCursorKind(inc) == CXCursor_BinaryOperator &&
	    kids_of(inc, &k) == 2 &&
	    binary_op(t, inc, &k, op, sizeof(op)) == 0 && !strcmp(op, ","))
		return loop_step(t, src, bare(k.c[0]), v, w, up, c, nv) ||
		       loop_step(t, src, bare(k.c[1]), v, w, up, c, nv);
	int u = 0;
	unsigned long s = 1;
	CXCursor x = step_of(t, src, inc, &u, &s);
	if (clang_Cursor_isNull(x))
		return 1;
	if (clang_equalCursors(x, v)) {
		*up = u;
		*c = s;
		(*nv)++;
		return 0;
	}
	for (unsigned i = 0; i < w->n; i++)
		if (clang_equalCursors(x, w->v[i]))
			return 1;
	return 0;
}

/* What mpp_trip_plan finds in a loop that qualifies. */
struct canon {
	CXCursor var, bound, endc; /* v, B, where the init ends */
	char op[8];
	int up, decl;
	unsigned long c; /* v's stride */
	struct watch w;  /* v and B's variables */
};

/* 0 when `loop` qualifies (trip.h), filling *q; 1 otherwise. */
static int canonical(const struct mpp_tu *t, const struct mpp_source *src,
		     CXCursor loop, CXCursor func, struct canon *q)
{
	struct kids parts, k;
	struct watch *w = &q->w;
	memset(q, 0, sizeof(*q));
	q->c = 1;
	if (kids_of(loop, &parts) != 4)
		return 1;
	CXCursor init = parts.c[0], cond = parts.c[1], inc = parts.c[2];
	q->decl = clang_getCursorKind(init) == CXCursor_DeclStmt;

	/* cond: `v OP B`. */
	if (clang_getCursorKind(cond) != CXCursor_BinaryOperator ||
	    kids_of(cond, &k) != 2 ||
	    clang_Cursor_isNull(q->var = local_int(bare(k.c[0]))) ||
	    binary_op(t, cond, &k, q->op, sizeof(q->op)) < 0)
		return 1;
	if (!strcmp(q->op, "<") || !strcmp(q->op, "<="))
		q->up = 1;
	else if (strcmp(q->op, ">") && strcmp(q->op, ">="))
		return 1;
	if (loop_init_of(t, init, q->var, &q->endc))
		return 1;
	w->v[w->n++] = q->var;
	q->bound = k.c[1];
	if (!pure(t, q->bound, w))
		return 1;

	/* STEP: v's, in the direction of OP, once. */
	int sup = q->up;
	unsigned nv = 0;
	if (loop_step(t, src, inc, q->var, w, &sup, &q->c, &nv) || nv != 1 ||
	    sup != q->up)
		return 1;

	/* The body and the function: nothing changes v or B's variables,
	 * nothing leaves the body early, no address of them is taken. */
	struct scan s = {t, w, 0, 0, 0, "", NULL};
	if (scan_one(parts.c[3], loop, &s) == CXChildVisit_Recurse)
		scan(&s, parts.c[3]);
	s.addr_only = 1;
	if (!w->bad)
		scan(&s, func);
	return w->bad;
}

/* TRIP of q from the start value `from` (text): the count from there
 * (usual arithmetic conversions as in the loop's own test; the difference
 * taken modulo 2^64, exact for any integer types). NULL: no memory. */
static char *trip_text(const struct canon *q, const char *from,
		       const char *btext)
{
	char *diff = NULL, *trip = NULL;
	if (asprintf(&diff,
		     "(unsigned long long)(%s) - (unsigned long long)(%s)",
		     q->up ? btext : from, q->up ? from : btext) < 0)
		return NULL;
	int n = strlen(q->op) == 2
		    ? asprintf(&trip, "((%s) %s (%s) ? (%s) / %lu + 1 : 0)",
			       from, q->op, btext, diff, q->c)
		    : asprintf(&trip, "((%s) %s (%s) ? (%s + %lu) / %lu : 0)",
			       from, q->op, btext, diff, q->c - 1, q->c);
	free(diff);
	return n < 0 ? NULL : trip;
}

/* The text that adds `count` to `counter` at the end of an init (of a
 * declaration: an unused declarator `tmp`). NULL: no memory. */
static char *add_text(int decl, const char *counter, const char *tmp,
		      const char *count)
{
	char *text = NULL;
	int n =
	    decl ? asprintf(&text,
			    ", %s __attribute__((__unused__)) = "
			    "(%s += __extension__ %s, 0)",
			    tmp, counter, count)
		 : asprintf(&text, ", %s += __extension__ %s", counter, count);
	return n < 0 ? NULL : text;
}

int mpp_trip_plan(const struct mpp_tu *t, const struct mpp_source *src,
		  CXCursor loop, CXCursor func, const char *counter,
		  const char *tmp, size_t *pos, char **text)
{
	struct canon q;
	size_t end;
	*text = NULL;
	if (canonical(t, src, loop, func, &q) ||
	    plain_off(t, clang_getRangeEnd(clang_getCursorExtent(q.endc)),
		      &end) != 0)
		return 1;
	char *btext = text_of(t, src, q.bound);
	if (!btext)
		return 1;
	CXString vs = clang_getCursorSpelling(q.var);
	char *trip = trip_text(&q, clang_getCString(vs), btext);
	clang_disposeString(vs);
	free(btext);
	*text = trip ? add_text(q.decl, counter, tmp, trip) : NULL;
	free(trip);
	if (!*text)
		return -1;
	*pos = end;
	return 0;
}

/* The for loop that is the whole body of loop `o` (alone or alone in
 * braces); a null cursor otherwise. */
static CXCursor whole_body_loop(CXCursor o)
{
	struct kids parts, k;
	if (clang_getCursorKind(o) != CXCursor_ForStmt ||
	    kids_of(o, &parts) != 4)
		return clang_getNullCursor();
	CXCursor body = parts.c[3];
	if (clang_getCursorKind(body) == CXCursor_CompoundStmt &&
	    kids_of(body, &k) == 1)
		body = k.c[0];
	return clang_getCursorKind(body) == CXCursor_ForStmt
		   ? body
		   : clang_getNullCursor();
}

/* The value a loop's init gives its variable: the declaration's
 * initializer or the assignment's right side; a null cursor otherwise. */
static CXCursor init_value(const struct mpp_tu *t, CXCursor loop)
{
	struct kids parts, k;
	CXCursor var, endc;
	if (kids_of(loop, &parts) != 4 || loop_init(t, parts.c[0], &var, &endc))
		return clang_getNullCursor();
	if (clang_getCursorKind(parts.c[0]) == CXCursor_DeclStmt) {
		unsigned n = kids_of(var, &k);
		return n >= 1 && n <= 4 ? bare(k.c[n - 1])
					: clang_getNullCursor();
	}
	kids_of(parts.c[0], &k);
	return bare(k.c[1]);
}

int mpp_trip_nest(const struct mpp_tu *t, const struct mpp_source *src,
		  CXCursor loop, CXCursor outer, CXCursor func,
		  const char *counter, const char *tmp, size_t *pos,
		  char **text)
{
	enum { CHAIN = 4 };
	struct kids parts;
	struct canon o, q;
	CXCursor chain[CHAIN], vars[CHAIN + 1];
	size_t nch = 0, nv = 0, end;
	char *prod = NULL;
	int up, r = -1;
	unsigned long c;
	*text = NULL;
	/* outer's body is a loop whose body is ... the loop */
	for (CXCursor cur = outer;;) {
		CXCursor b = whole_body_loop(cur);
		if (clang_Cursor_isNull(b) || nch == CHAIN)
			return 1;
		chain[nch++] = b;
		if (clang_equalCursors(b, loop))
			break;
		cur = b;
	}
	if (canonical(t, src, outer, func, &o) ||
	    plain_off(t, clang_getRangeEnd(clang_getCursorExtent(o.endc)),
		      &end) != 0)
		return 1;
	/* outer steps its variable alone */
	kids_of(outer, &parts);
	if (!clang_equalCursors(step_of(t, src, parts.c[2], &up, &c), o.var))
		return 1;
	vars[nv++] = o.var;
	char *ob = text_of(t, src, o.bound);
	CXString os = clang_getCursorSpelling(o.var);
	prod = ob ? trip_text(&o, clang_getCString(os), ob) : NULL;
	clang_disposeString(os);
	free(ob);
	if (!prod)
		return ob ? -1 : 1;
	/* each loop inside: starts at literals and enumerators, steps its
	 * variable alone (but the innermost, whose count this is), and its
	 * bound reads no variable of a loop around it within the chain, so
	 * that every pass runs the loops inside equally often */
	for (size_t i = 0; i < nch; i++) {
		struct watch a = {.n = 0};
		CXCursor from;
		char *qb = NULL, *qf = NULL, *qs = NULL, *qt = NULL, *both;
		if (canonical(t, src, chain[i], func, &q) ||
		    clang_Cursor_isNull(from = init_value(t, chain[i])) ||
		    !pure(t, from, &a) || a.n) {
			r = 1;
			goto out;
		}
		kids_of(chain[i], &parts);
		if (i + 1 < nch &&
		    !clang_equalCursors(step_of(t, src, parts.c[2], &up, &c),
					q.var)) {
			r = 1;
			goto out;
		}
		for (unsigned w = 1; w < q.w.n; w++)
			for (size_t v = 0; v < nv; v++)
				if (clang_equalCursors(q.w.v[w], vars[v])) {
					r = 1;
					goto out;
				}
		vars[nv++] = q.var;
		CXString ts = clang_getTypeSpelling(clang_getCursorType(q.var));
		qb = text_of(t, src, q.bound);
		qf = text_of(t, src, from);
		if (!qb || !qf)
			r = 1; /* not plain text of the file */
		else if (asprintf(&qs, "(%s)(%s)", clang_getCString(ts), qf) >=
			 0)
			qt = trip_text(&q, qs, qb);
		clang_disposeString(ts);
		both = NULL;
		if (qt && asprintf(&both, "(%s * %s)", prod, qt) < 0)
			both = NULL;
		free(qb);
		free(qf);
		free(qs);
		free(qt);
		if (!both)
			goto out; /* r: 1, or -1 (no memory) */
		free(prod);
		prod = both;
	}
	if ((*text = add_text(o.decl, counter, tmp, prod))) {
		*pos = end;
		r = 0;
	}
out:
	free(prod);
	return r;
}

/* 1 when e is the variable of one of the for loops `outer`, 2 when it is
 * an integer literal, 0 otherwise. */
static int literal_or_outer_iv(const struct mpp_tu *t, CXCursor e,
			       const CXCursor *outer, size_t n)
{
	if (clang_getCursorKind(e) == CXCursor_IntegerLiteral)
		return 2;
	if (clang_getCursorKind(e) != CXCursor_DeclRefExpr)
		return 0;
	CXCursor v = clang_getCursorReferenced(e);
	for (size_t i = 0; i < n; i++) {
		struct kids parts;
		CXCursor ov, endc;
		if (clang_getCursorKind(outer[i]) == CXCursor_ForStmt &&
		    kids_of(outer[i], &parts) == 4 &&
		    loop_init(t, parts.c[0], &ov, &endc) == 0 &&
		    clang_equalCursors(ov, v))
			return 1;
	}
	return 0;
}

int mpp_trip_host_entry(const struct mpp_tu *t, CXCursor loop,
			const CXCursor *outer, size_t n)
{
	struct kids parts, k;
	struct watch w = {.n = 0};
	CXCursor a = init_value(t, loop);
	if (clang_Cursor_isNull(a) || kids_of(loop, &parts) != 4 ||
	    kids_of(parts.c[1], &k) != 2)
		return 0;
	if (pure(t, bare(k.c[1]), &w) && w.globals)
		return 1;
	/* Both literals: the compiler turns a count in the body into the
	 * constant itself. */
	int ka = literal_or_outer_iv(t, a, outer, n),
	    kb = literal_or_outer_iv(t, bare(k.c[1]), outer, n);
	return ka && kb && (ka == 1 || kb == 1);
}

static int small_constant(const struct mpp_tu *t, CXCursor e, long long *v);

/* True when a variable of w is declared inside one of the loops
 * outer[0..n) that contains `loop` (each entry of loop may see another
 * value of it). */
static int set_per_entry(const struct mpp_tu *t, const struct watch *w,
			 CXCursor loop, const CXCursor *outer, size_t n)
{
	size_t at;
	if (plain_off(t, clang_getCursorLocation(loop), &at))
		return 0;
	for (size_t i = 0; i < n; i++) {
		enum CXCursorKind k = clang_getCursorKind(outer[i]);
		CXSourceRange r = clang_getCursorExtent(outer[i]);
		size_t b, e;
		if ((k != CXCursor_ForStmt && k != CXCursor_WhileStmt &&
		     k != CXCursor_DoStmt) ||
		    plain_off(t, clang_getRangeStart(r), &b) ||
		    plain_off(t, clang_getRangeEnd(r), &e) || at <= b ||
		    at >= e)
			continue;
		for (unsigned j = 0; j < w->n; j++) {
			size_t d;
			if (plain_off(t, clang_getCursorLocation(w->v[j]),
				      &d) == 0 &&
			    d > b && d < at)
				return 1;
		}
	}
	return 0;
}

int mpp_trip_iv(const struct mpp_tu *t, const struct mpp_source *src,
		CXCursor loop, CXCursor func, const CXCursor *outer,
		size_t nouter, struct mpp_iv *iv)
{
	struct kids parts, k;
	struct watch w = {.n = 0};
	char op[8];
	memset(iv, 0, sizeof(*iv));
	iv->step = 1;
	if (kids_of(loop, &parts) != 4)
		return 1; /* no init, condition or step */
	CXCursor init = parts.c[0], cond = parts.c[1], inc = parts.c[2];
	CXCursor var, endc;
	int decl = clang_getCursorKind(init) == CXCursor_DeclStmt;
	if (loop_init(t, init, &var, &endc))
		return 1;
	/* Exactness: a signed v cannot wrap (undefined behaviour), and an
	 * unsigned one of 64 bits runs fewer than 2^64 steps; a narrower
	 * unsigned one might wrap in a loop left by break. */
	CXType vt = clang_getCanonicalType(clang_getCursorType(var));
	long long vsize = clang_Type_getSizeOf(vt);
	int is_unsigned = vt.kind == CXType_UInt || vt.kind == CXType_ULong ||
			  vt.kind == CXType_ULongLong ||
			  vt.kind == CXType_UShort || vt.kind == CXType_UChar ||
			  vt.kind == CXType_Char_U;
	if (vsize < 4 || (is_unsigned && vsize < 8))
		return 1;
	/* A test `v OP B` of a bound of literals and locals: the compiler
	 * counts such a loop itself and adds a register increment's final
	 * value at the exits, which costs less than v's two additions per
	 * entry (measured: is +14 %, the break/return/goto nest +7.5 %
	 * with them). Only loops whose test it cannot count are derived;
	 * a bound of globals it did not count in miniAMR's nests; and a
	 * loop from 0 to a bound set per entry (mpp_trip_iv in trip.h). */
	struct watch bw = {.n = 0};
	long long a0;
	int from0 = small_constant(t, init_value(t, loop), &a0) == 0 && a0 == 0;
	if (clang_getCursorKind(cond) == CXCursor_BinaryOperator &&
	    kids_of(cond, &k) == 2 &&
	    clang_getCursorKind(bare(k.c[0])) == CXCursor_DeclRefExpr &&
	    clang_equalCursors(clang_getCursorReferenced(bare(k.c[0])), var) &&
	    binary_op(t, cond, &k, op, sizeof(op)) == 0 &&
	    (!strcmp(op, "<") || !strcmp(op, "<=") || !strcmp(op, ">") ||
	     !strcmp(op, ">=") || !strcmp(op, "!=")) &&
	    pure(t, k.c[1], &bw) && !bw.globals &&
	    !(from0 && set_per_entry(t, &bw, loop, outer, nouter)))
		return 1;
	w.v[w.n++] = var;

	/* STEP: ++v, v++, --v, v--, v += C, v -= C. */
	int up = 0;
	if (!clang_equalCursors(step_of(t, src, inc, &up, &iv->step), var))
		return 1;
	iv->up = up;

	/* Nothing in the condition or the body changes v or may return
	 * twice or not at all; the body may leave by break, return or goto
	 * but holds no label; nothing takes v's address. */
	CXString vs = clang_getCursorSpelling(var);
	struct scan s = {t, &w, 0, 0, 0, clang_getCString(vs), iv};
	if (scan_one(cond, loop, &s) == CXChildVisit_Recurse)
		scan(&s, cond);
	s.exits_ok = 1;
	if (!w.bad && scan_one(parts.c[3], loop, &s) == CXChildVisit_Recurse)
		scan(&s, parts.c[3]);
	s.addr_only = 1;
	s.exits_ok = 0;
	if (!w.bad)
		scan(&s, func);
	int r = 1;
	CXSourceRange cr = clang_getCursorExtent(cond),
		      br = clang_getCursorExtent(parts.c[3]);
	if (!w.bad &&
	    plain_off(t, clang_getRangeEnd(clang_getCursorExtent(endc)),
		      &iv->init_end) == 0 &&
	    plain_off(t, clang_getRangeStart(cr), &iv->cond_begin) == 0 &&
	    plain_off(t, clang_getRangeEnd(cr), &iv->cond_end) == 0 &&
	    plain_off(t, clang_getRangeStart(br), &iv->body_begin) == 0 &&
	    plain_off(t, clang_getRangeEnd(br), &iv->body_end) == 0) {
		iv->decl = decl;
		iv->var = strdup(clang_getCString(vs));
		r = iv->var ? 0 : -1;
	}
	clang_disposeString(vs);
	return r;
}

/* An integer constant of e: a literal, an enumerator or an expression of
 * them (no variable), in [0, 2^31). 0 and *v when it is one, 1 otherwise. */
static int small_constant(const struct mpp_tu *t, CXCursor e, long long *v)
{
	struct watch w = {.n = 0};
	if (!pure(t, e, &w) || w.n)
		return 1;
	CXEvalResult r = clang_Cursor_Evaluate(e);
	int ok = r && clang_EvalResult_getKind(r) == CXEval_Int;
	if (ok) {
		*v = clang_EvalResult_getAsLongLong(r);
		ok = *v >= 0 && *v < 0x80000000LL;
	}
	if (r)
		clang_EvalResult_dispose(r);
	return !ok;
}

int mpp_trip_const(const struct mpp_tu *t, const struct mpp_source *src,
		   CXCursor loop, CXCursor func, unsigned long *trip)
{
	struct canon q;
	long long a, b;
	if (canonical(t, src, loop, func, &q) ||
	    clang_Type_getSizeOf(clang_getCursorType(q.var)) < 4 ||
	    small_constant(t, init_value(t, loop), &a) ||
	    small_constant(t, bare(q.bound), &b))
		return 1;
	long long lo = q.up ? a : b, hi = q.up ? b : a;
	unsigned long c = q.c;
	if (strlen(q.op) == 2)
		*trip = lo <= hi ? (unsigned long)(hi - lo) / c + 1 : 0;
	else
		*trip = lo < hi ? ((unsigned long)(hi - lo) + c - 1) / c : 0;
	return *trip > MPP_TRIP_CONST_MAX;
}
