/*
 * codegen.c: prologue, epilogue and features.tsv rows (see codegen.h). The
 * struct layouts written here must match collector/mpp_abi.h member for
 * member; the tests link rewritten code against a runtime compiled with
 * that header and check every count.
 */
#include "instrument/codegen.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/mpp_abi.h"

const char mpp_features_header[] =
    "name\tkind\tfile\tline\tcol\tfunction\tdetail\n";

char *mpp_quote_c(const char *s)
{
	size_t n = strlen(s);
	char *q = malloc(4 * n + 3), *o = q;
	if (!q)
		return NULL;
	*o++ = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
		} else if (c < 0x20 || c >= 0x7f) {
			o += sprintf(o, "\\%03o", c);
		} else {
			*o++ = (char)c;
		}
	}
	*o++ = '"';
	*o = 0;
	return q;
}

static uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

#define FNV_SEED 0xcbf29ce484222325ull

void mpp_unit_id(const char *key, char id[17])
{
	snprintf(id, 17, "%016llx",
		 (unsigned long long)fnv1a(FNV_SEED, key, strlen(key)));
}

/* The runtime's path as a C string literal, for units linked without it:
 * $MPIPREDICT_LIBDIR/libmpipredict.so, else <this tool's dir>/../lib/. */
static char *runtime_path(void)
{
	const char *env = getenv("MPIPREDICT_LIBDIR");
	char exe[PATH_MAX], lib[PATH_MAX + 64], real[PATH_MAX];
	if (env && *env) {
		snprintf(lib, sizeof(lib), "%s/libmpipredict.so", env);
	} else {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = 0;
		char *slash = strrchr(exe, '/');
		if (slash)
			*slash = 0;
		snprintf(lib, sizeof(lib), "%s/../lib/libmpipredict.so",
			 n > 0 ? exe : "/usr/local/bin");
	}
	return mpp_quote_c(realpath(lib, real) ? real : lib);
}

static const char *kind_name(enum mpp_counter_kind k)
{
	return k == MPP_LOOP   ? "loop"
	       : k == MPP_THEN ? "then"
	       : k == MPP_ELSE ? "else"
			       : "case";
}

/* Writes `s` as a C string literal. */
static int put_quoted(FILE *out, const char *s)
{
	char *q = mpp_quote_c(s);
	if (!q)
		return -1;
	fputs(q, out);
	free(q);
	return 0;
}

/* The derived counters' triples (plan.h derived), comma-terminated. */
static int put_derived(FILE *out, const struct mpp_plan *plan)
{
	for (size_t i = 0; i < 3 * plan->nderived; i++)
		if (fprintf(out, "%zu, ", plan->derived[i]) < 0)
			return -1;
	return 0;
}

/* C++ hosts (visit.c, host_text) add their locals to the counters when
 * an exception leaves the loop: `try` and `catch (...)` that rethrows,
 * where exceptions are on; where they are off (-fno-exceptions refuses
 * `try`) a block and a dead branch. In a noexcept function or a
 * destructor g++ warns that the rethrow calls terminate (-Wterminate),
 * which the exception did anyway: not in the user's build log. */
static const char cxx_eh[] =
    "#ifndef __MPP_TRY\n"
    "#if defined(__cpp_exceptions) || defined(__EXCEPTIONS)\n"
    "#define __MPP_TRY try\n#define __MPP_CATCH catch (...)\n"
    "#if defined(__GNUC__) && !defined(__clang__)\n"
    "#define __MPP_RETHROW _Pragma(\"GCC diagnostic push\") "
    "_Pragma(\"GCC diagnostic ignored \\\"-Wterminate\\\"\") throw; "
    "_Pragma(\"GCC diagnostic pop\")\n"
    "#else\n#define __MPP_RETHROW throw;\n#endif\n"
    "#else\n"
    "#define __MPP_TRY\n#define __MPP_CATCH if (0)\n"
    "#define __MPP_RETHROW\n"
    "#endif\n#endif\n";

int mpp_codegen_write(FILE *out, const struct mpp_plan *plan, const char *id,
		      const char *display, const char *app, const char *body,
		      size_t bodylen)
{
	size_t nc = plan->ncounters, ns = plan->nsites;
	const char *nf = plan->name_file ? plan->name_file : display;
	/* C++ units reach the runtime's C functions with C linkage. */
	const char *lk = plan->cxx ? "extern \"C\"" : "extern";
	char *qname = mpp_quote_c(display);
	/* The unit's file is the one its feature names hold (mpp_abi.h):
	 * the runtime tells same-named units apart by it. */
	char *qnf = mpp_quote_c(nf);
	char *qapp = app && *app ? mpp_quote_c(app) : NULL;
	if (!qname || !qnf || (app && *app && !qapp)) {
		free(qnf);
		free(qname);
		free(qapp);
		return -1;
	}
	/* Inline functions with external linkage may not name the unit's
	 * static tables (plan.h, ext_inline): external names then, hidden
	 * (not exported from a shared library) and weak (one source compiled
	 * twice into a program links; its two units then share the tables,
	 * as header copies do). */
	const char *lnk = plan->ext_inline ? "__attribute__((__weak__, "
					     "__visibility__(\"hidden\")))"
					   : "static";
	const char *tagk = plan->ext_inline
			       ? "__attribute__((__weak__, "
				 "__visibility__(\"hidden\"))) void"
			       : "static __inline__ void";
	char *qlib = runtime_path();
	if (!qlib) {
		free(qname);
		free(qnf);
		free(qapp);
		return -1;
	}
	/* The runtime is referenced weakly (mpp_abi.h): a link without
	 * -lmpipredict still works, and the constructor then loads the
	 * runtime (__mpp_load below). libc is reached through
	 * names of our own bound to its symbols (asm labels), so that no
	 * declaration can clash with the user's. */
	fprintf(out,
		"__extension__ struct __mpp_site { unsigned long long "
		"__mpp_calls, __mpp_bytes, __mpp_ticks; int __mpp_fn; }; "
		"struct __mpp_unit; "
		"%s void __mpp_tag(struct __mpp_site *) "
		"__attribute__((__weak__)); "
		"%s void __mpp_register(struct __mpp_unit *) "
		"__attribute__((__weak__)); "
		"__extension__ %s unsigned long long __mpp_c_%s[%zu]; "
		"%s struct __mpp_site __mpp_s_%s[%zu];",
		lk, lk, lnk, id, nc ? nc : 1, lnk, id, ns ? ns : 1);
	/* The loader is one weak function for all units of a program (and
	 * the header copies' tables, which know no unit id): with the runtime
	 * linked it registers; without (a link by $(LD)), the first call
	 * opens the runtime with dlopen and binds the program's MPI calls to
	 * it (__mpp_interpose), no second exec, so valgrind, gdb and perf
	 * see the program itself. dlopen and dlsym are weak: a libc without
	 * them (glibc < 2.34 needs -ldl) gets the message instead of a link
	 * error. 0x102 is RTLD_NOW | RTLD_GLOBAL (glibc). */
	fprintf(
	    out,
	    " extern char *__mpp_getenv(const char *) __asm__(\"getenv\");"
	    " extern void *__mpp_dlopen(const char *, int) __asm__(\"dlopen\") "
	    "__attribute__((__weak__));"
	    " extern void (*__mpp_dlsym(void *, const char *))(void) "
	    "__asm__(\"dlsym\") __attribute__((__weak__));"
	    " extern long __mpp_write(int, const void *, unsigned long) "
	    "__asm__(\"write\");"
	    " __attribute__((__weak__)) int __mpp_warned;"
	    " __attribute__((__weak__)) void (*__mpp_tagf)(struct __mpp_site "
	    "*);"
	    " __attribute__((__weak__)) void (*__mpp_regf)(struct __mpp_unit "
	    "*);"
	    " %s void __mpp_load(struct __mpp_unit *) "
	    "__attribute__((__weak__));"
	    " %s void __mpp_load(struct __mpp_unit *__mpp_u) { "
	    "static const char __mpp_lib[] = %s; "
	    "static const char __mpp_msg[] = \"mpipredict: this program was "
	    "instrumented but is not linked with libmpipredict (a link not "
	    "made by mpipredict-cc, e.g. $(LD)), and loading it failed: "
	    "link with mpipredict-mpicc or add -lmpipredict; this run "
	    "is not counted\\n\"; "
	    "const char *__mpp_d; void *__mpp_h; "
	    "if (__mpp_register) { __mpp_register(__mpp_u); return; } "
	    "__mpp_d = __mpp_getenv(\"MPIPREDICT_DISABLE\"); "
	    "if (__mpp_d && __mpp_d[0] == '1' && !__mpp_d[1]) return; "
	    "if (!__mpp_regf && !__mpp_warned) { "
	    "__mpp_h = __mpp_dlopen && __mpp_dlsym ? __mpp_dlopen(__mpp_lib, "
	    "0x102) : 0; "
	    "if (__mpp_h) { int (*__mpp_i)(void) = (int (*)(void))"
	    "__mpp_dlsym(__mpp_h, \"__mpp_interpose\"); "
	    "void (*__mpp_t)(struct __mpp_site *) = (void (*)(struct "
	    "__mpp_site *))__mpp_dlsym(__mpp_h, \"__mpp_tag\"); "
	    "void (*__mpp_r)(struct __mpp_unit *) = (void (*)(struct "
	    "__mpp_unit *))__mpp_dlsym(__mpp_h, \"__mpp_register\"); "
	    "if (__mpp_i && __mpp_t && __mpp_r && __mpp_i() == 0) { "
	    "__mpp_tagf = __mpp_t; __mpp_regf = __mpp_r; } } "
	    "if (!__mpp_regf) { __mpp_warned = 1; __mpp_write(2, __mpp_msg, "
	    "sizeof __mpp_msg - 1); } } "
	    "if (__mpp_regf) __mpp_regf(__mpp_u); }",
	    lk, lk, qlib);
	free(qlib);
	/* Call sites push their tag through a function: two pushes in one
	 * expression (`MPI_A(..) + MPI_B(..)`, a macro using its argument
	 * twice) written as plain stores would be unsequenced, undefined,
	 * and flagged by -Wsequence-point; function calls are only
	 * indeterminately sequenced. */
	if (ns && plan->ext_inline) /* declared first: -Wmissing-prototypes */
		fprintf(out, " %s __mpp_tag_%s(struct __mpp_site *);", tagk,
			id);
	if (ns)
		fprintf(
		    out,
		    " %s __mpp_tag_%s(struct __mpp_site "
		    "*__mpp_p) { if (__mpp_tag) __mpp_tag(__mpp_p); else if "
		    "(__mpp_tagf) __mpp_tagf(__mpp_p); }",
		    tagk, id);
	if (plan->cxx)
		fprintf(out, "\n%s", cxx_eh);
	fprintf(out, "\n#line 1 %s\n", qname);
	fwrite(body, 1, bodylen, out);

	/* The build id covers the rewritten text (without the paths of
	 * header copies, which change with every build) and the tool's
	 * version. */
	uint64_t h = plan->id_text
			 ? fnv1a(FNV_SEED, plan->id_text, plan->id_len)
			 : fnv1a(FNV_SEED, body, bodylen);
	h = fnv1a(h, MPP_VERSION, strlen(MPP_VERSION));

	fprintf(out, "\nstatic const char *const __mpp_cn_%s[] = {", id);
	for (size_t i = 0; i < nc; i++) {
		const struct mpp_counter_info *c = &plan->counters[i];
		char name[4096];
		snprintf(name, sizeof(name), "%s:%s:%u:%u", kind_name(c->kind),
			 nf, c->line, c->col);
		if (put_quoted(out, name) < 0)
			goto oom;
		fputs(", ", out);
	}
	fprintf(out, "0}; static const unsigned __mpp_dv_%s[] = {", id);
	if (put_derived(out, plan) < 0)
		goto oom;
	fprintf(out, "0}; static const char *const __mpp_sn_%s[] = {", id);
	for (size_t i = 0; i < ns; i++) {
		const struct mpp_site_info *s = &plan->sites[i];
		char name[4096];
		snprintf(name, sizeof(name), "%s:%u:%u:%s", nf, s->line, s->col,
			 s->mpi);
		if (put_quoted(out, name) < 0)
			goto oom;
		fputs(", ", out);
	}
	fprintf(out,
		"0}; struct __mpp_unit { int __mpp_abi_version; "
		"const char *__mpp_build_id; const char *__mpp_file; "
		"const char *__mpp_app; "
		"unsigned __mpp_ncounters; __extension__ unsigned long long "
		"*__mpp_counters; const char *const *__mpp_counter_names; "
		"unsigned __mpp_nsites; struct __mpp_site *__mpp_sites; "
		"const char *const *__mpp_site_names; "
		"struct __mpp_unit *__mpp_next; unsigned __mpp_nderived; "
		"const unsigned *__mpp_derived; }; "
		"static struct __mpp_unit __mpp_u_%s = {%d, \"%016llx\", %s, "
		"%s, %zu, __mpp_c_%s, __mpp_cn_%s, %zu, __mpp_s_%s, "
		"__mpp_sn_%s, 0, %zu, __mpp_dv_%s}; "
		"__attribute__((__constructor__)) static void "
		"__mpp_init_%s(void) { __mpp_load(&__mpp_u_%s); } "
		/* The unit's feature file name and --app name where
		 * mpipredict-cc's link finds them in the objects (cc_main.c:
		 * two units of one file name, or of two app names, are said
		 * at build time, not at every run). */
		"static const char __mpp_w_%s[] __attribute__((__used__)) = "
		"\"\\nmpp-unit\\t\" %s \"\\t\" %s \"\\n\";\n",
		id, MPP_ABI_VERSION, (unsigned long long)h, qnf,
		qapp ? qapp : "0", nc, id, id, ns, id, id, plan->nderived, id,
		id, id, id, qnf, qapp ? qapp : "\"\"");
	free(qname);
	free(qnf);
	free(qapp);
	return ferror(out) ? -1 : 0;
oom:
	free(qname);
	free(qnf);
	free(qapp);
	return -1;
}

int mpp_codegen_features(FILE *out, const struct mpp_plan *plan,
			 const char *display)
{
	for (size_t i = 0; i < plan->ncounters; i++) {
		const struct mpp_counter_info *c = &plan->counters[i];
		fprintf(out, "%s:%s:%u:%u\t%s\t%s\t%u\t%u\t%s\t%s\n",
			kind_name(c->kind), display, c->line, c->col,
			kind_name(c->kind), display, c->line, c->col, c->func,
			c->stmt);
	}
	for (size_t i = 0; i < plan->nsites; i++) {
		const struct mpp_site_info *s = &plan->sites[i];
		for (int b = 0; b < 2; b++) {
			const char *kind = b ? "bytes" : "call";
			fprintf(out, "%s:%s:%u:%u:%s\t%s\t%s\t%u\t%u\t%s\t%s\n",
				kind, display, s->line, s->col, s->mpi, kind,
				display, s->line, s->col, s->func, s->mpi);
		}
	}
	return ferror(out) ? -1 : 0;
}

/* The names of a plan's counters or sites as a C array initialiser body. */
static int put_names(FILE *out, const struct mpp_plan *plan, const char *nf,
		     int sites)
{
	size_t n = sites ? plan->nsites : plan->ncounters;
	for (size_t i = 0; i < n; i++) {
		char name[4096];
		if (sites) {
			const struct mpp_site_info *s = &plan->sites[i];
			snprintf(name, sizeof(name), "%s:%u:%u:%s", nf, s->line,
				 s->col, s->mpi);
		} else {
			const struct mpp_counter_info *c = &plan->counters[i];
			snprintf(name, sizeof(name), "%s:%s:%u:%u",
				 kind_name(c->kind), nf, c->line, c->col);
		}
		if (put_quoted(out, name) < 0)
			return -1;
		fputs(", ", out);
	}
	return 0;
}

uint64_t mpp_codegen_hash(const char *text, size_t len, const char *more)
{
	uint64_t h = fnv1a(FNV_SEED, text, len);
	return fnv1a(h, more, strlen(more) + 1);
}

int mpp_codegen_header(FILE *out, const struct mpp_plan *plan, const char *id,
		       const char *key, const char *line_file, const char *body,
		       size_t bodylen)
{
	size_t nc = plan->ncounters, ns = plan->nsites;
	char *qline = mpp_quote_c(line_file);
	char *qnf = mpp_quote_c(plan->name_file);
	if (!qline || !qnf) {
		free(qline);
		free(qnf);
		return -1;
	}
	if (nc || ns) {
		uint64_t h =
		    mpp_codegen_hash(plan->id_text, plan->id_len, MPP_VERSION);
		fprintf(out,
			"#ifndef __MPP_H_%s\n#define __MPP_H_%s\n"
			"#define __mpp_c_%s __mpp_hc_%s\n"
			"#define __mpp_s_%s __mpp_hs_%s\n"
			"#define __mpp_tag_%s __mpp_htag_%s\n",
			key, key, id, key, id, key, id, key);
		fputs("#ifndef __MPP_HUNIT\n#define __MPP_HUNIT\n"
		      "struct __mpp_hunit { int __mpp_abi_version; "
		      "const char *__mpp_build_id; const char *__mpp_file; "
		      "const char *__mpp_app; unsigned __mpp_ncounters; "
		      "__extension__ unsigned long long *__mpp_counters; "
		      "const char *const *__mpp_counter_names; "
		      "unsigned __mpp_nsites; struct __mpp_site *__mpp_sites; "
		      "const char *const *__mpp_site_names; "
		      "struct __mpp_hunit *__mpp_next; "
		      "unsigned __mpp_nderived; const unsigned *__mpp_derived; "
		      "};\n#endif\n",
		      out);
		/* Tables and tag function have external (weak, hidden) names:
		 * a header's `inline` functions without `static` may not
		 * name anything of internal linkage (C11 6.7.4p3). */
		fprintf(out,
			"__extension__ unsigned long long __mpp_hc_%s[%zu] "
			"__attribute__((__weak__)); "
			"struct __mpp_site __mpp_hs_%s[%zu] "
			"__attribute__((__weak__)); "
			"__attribute__((__weak__, __visibility__(\"hidden\")))"
			" void __mpp_htag_%s(struct __mpp_site *); "
			"__attribute__((__weak__, __visibility__(\"hidden\")))"
			" void __mpp_htag_%s(struct "
			"__mpp_site *__mpp_p) { if (__mpp_tag) "
			"__mpp_tag(__mpp_p); else if (__mpp_tagf) "
			"__mpp_tagf(__mpp_p); } "
			"static const char *const __mpp_hcn_%s[] = {",
			key, nc ? nc : 1, key, ns ? ns : 1, key, key, key);
		if (put_names(out, plan, plan->name_file, 0) < 0)
			goto oom;
		fprintf(out, "0}; static const char *const __mpp_hsn_%s[] = {",
			key);
		if (put_names(out, plan, plan->name_file, 1) < 0)
			goto oom;
		fprintf(out, "0}; static const unsigned __mpp_hdv_%s[] = {",
			key);
		if (put_derived(out, plan) < 0)
			goto oom;
		fprintf(out,
			"0}; struct __mpp_hunit __mpp_hu_%s "
			"__attribute__((__weak__)) = {%d, \"%016llx\", %s, 0, "
			"%zu, __mpp_hc_%s, __mpp_hcn_%s, %zu, __mpp_hs_%s, "
			"__mpp_hsn_%s, 0, %zu, __mpp_hdv_%s}; "
			"__attribute__((__constructor__)) static void "
			"__mpp_hinit_%s(void) { __mpp_load((struct "
			"__mpp_unit *)(void *)&__mpp_hu_%s); }\n#endif\n",
			key, MPP_ABI_VERSION, (unsigned long long)h, qnf, nc,
			key, key, ns, key, key, plan->nderived, key, key, key);
	}
	if (plan->cxx && nc)
		fputs(cxx_eh, out);
	fprintf(out, "#line 1 %s\n", qline);
	fwrite(body, 1, bodylen, out);
	free(qline);
	free(qnf);
	return ferror(out) ? -1 : 0;
oom:
	free(qline);
	free(qnf);
	return -1;
}
