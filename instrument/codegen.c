/*
 * codegen.c: prologue, epilogue and features.tsv rows (see codegen.h). The
 * struct layouts written here must match collector/mpp_abi.h member for
 * member; the tests link rewritten code against a runtime compiled with
 * that header and check every count.
 */
#include "instrument/codegen.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

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

static const char *kind_name(enum mpp_counter_kind k)
{
	return k == MPP_LOOP ? "loop" : k == MPP_THEN ? "then" : "else";
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

int mpp_codegen_write(FILE *out, const struct mpp_plan *plan, const char *id,
		      const char *display, const char *app, const char *body,
		      size_t bodylen)
{
	size_t nc = plan->ncounters, ns = plan->nsites;
	const char *nf = plan->name_file ? plan->name_file : display;
	char *qname = mpp_quote_c(display);
	char *qapp = app && *app ? mpp_quote_c(app) : NULL;
	if (!qname || (app && *app && !qapp)) {
		free(qname);
		return -1;
	}
	fprintf(out,
		"__extension__ struct __mpp_site { unsigned long long "
		"__mpp_calls, __mpp_bytes, __mpp_ticks; int __mpp_fn; }; "
		"struct __mpp_tags { unsigned __mpp_n; "
		"struct __mpp_site *__mpp_v[%d]; }; "
		"extern __thread struct __mpp_tags __mpp_tags "
		"__attribute__((__tls_model__(\"initial-exec\"))); "
		"__extension__ static unsigned long long __mpp_c_%s[%zu]; "
		"static struct __mpp_site __mpp_s_%s[%zu];",
		MPP_TAG_DEPTH, id, nc ? nc : 1, id, ns ? ns : 1);
	/* Call sites push their tag through a function: two pushes in one
	 * expression (`MPI_A(..) + MPI_B(..)`, a macro using its argument
	 * twice) written as plain stores would be unsequenced, undefined,
	 * and flagged by -Wsequence-point; function calls are only
	 * indeterminately sequenced. It inlines to a load and two stores
	 * (initial-exec TLS, no __tls_get_addr even in a shared library). */
	if (ns)
		fprintf(
		    out,
		    " static __inline__ void __mpp_tag_%s(struct __mpp_site "
		    "*__mpp_p) { unsigned __mpp_n = __mpp_tags.__mpp_n; "
		    "__mpp_tags.__mpp_v[__mpp_n %% %d] = __mpp_p; "
		    "__mpp_tags.__mpp_n = __mpp_n + 1; }",
		    id, MPP_TAG_DEPTH);
	fprintf(out, "\n#line 1 %s\n", qname);
	fwrite(body, 1, bodylen, out);

	/* The build id covers the rewritten text and the tool's version. */
	uint64_t h = fnv1a(FNV_SEED, body, bodylen);
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
		"struct __mpp_unit *__mpp_next; }; "
		"static struct __mpp_unit __mpp_u_%s = {%d, \"%016llx\", %s, "
		"%s, %zu, __mpp_c_%s, __mpp_cn_%s, %zu, __mpp_s_%s, "
		"__mpp_sn_%s, 0}; "
		"extern void __mpp_register(struct __mpp_unit *); "
		"__attribute__((__constructor__)) static void "
		"__mpp_init_%s(void) { __mpp_register(&__mpp_u_%s); }\n",
		id, MPP_ABI_VERSION, (unsigned long long)h, qname,
		qapp ? qapp : "0", nc, id, id, ns, id, id, id, id);
	free(qname);
	free(qapp);
	return ferror(out) ? -1 : 0;
oom:
	free(qname);
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
