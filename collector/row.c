/*
 * row.c: run-record text (RFC 4180 CSV header and row) and per-rank dumps.
 * See row.h. Not for: choosing or locking the output file (runfile.c), MPI.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/row.h"

/* A growing string; on allocation failure it stays failed (ok = 0). */
struct buf {
	char *s;
	size_t len, cap;
	int ok;
};

static void put(struct buf *b, const char *s, size_t n)
{
	char *t;
	size_t cap;

	if (!b->ok)
		return;
	if (b->len + n + 1 > b->cap) {
		cap = b->cap ? b->cap : 256;
		while (cap < b->len + n + 1)
			cap *= 2;
		t = realloc(b->s, cap);
		if (!t) {
			b->ok = 0;
			return;
		}
		b->s = t;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

static void puts_(struct buf *b, const char *s)
{
	put(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void putf(struct buf *b,
						       const char *fmt, ...)
{
	char tmp[64];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof tmp)
		b->ok = 0;
	else
		put(b, tmp, (size_t)n);
}

/* One CSV field, quoted when it holds a comma, quote, CR or LF. */
static void put_field(struct buf *b, const char *s)
{
	const char *p;

	if (!s[strcspn(s, ",\"\r\n")]) {
		puts_(b, s);
		return;
	}
	put(b, "\"", 1);
	for (p = s; *p; p++) {
		if (*p == '"')
			put(b, "\"", 1);
		put(b, p, 1);
	}
	put(b, "\"", 1);
}

/* The shortest of %.15g, %.16g, %.17g that reads back as x. */
static void put_double(struct buf *b, double x)
{
	char tmp[40];
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(tmp, sizeof tmp, "%.*g", prec, x);
		if (strtod(tmp, NULL) == x)
			break;
	}
	puts_(b, tmp);
}

int mpp_row_build(const struct mpp_run_meta *m, size_t nf, char *const *names,
		  const unsigned long long *sum, const unsigned long long *max,
		  char **header, char **row, char *err, size_t errlen)
{
	struct buf h = {NULL, 0, 0, 1}, r = {NULL, 0, 0, 1};
	size_t i;

	puts_(&h, "run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_"
		  "s,args,exit_status");
	for (i = 0; i < nf; i++) {
		struct buf col = {NULL, 0, 0, 1};

		puts_(&col, names[i]);
		puts_(&col, ".mean");
		put(&h, ",", 1);
		if (col.ok)
			put_field(&h, col.s);
		col.len = strlen(names[i]);
		puts_(&col, ".max");
		put(&h, ",", 1);
		if (col.ok)
			put_field(&h, col.s);
		h.ok &= col.ok;
		free(col.s);
	}
	put(&h, "\n", 1);

	put_field(&r, m->run_id);
	put(&r, ",", 1);
	put_field(&r, m->app);
	put(&r, ",", 1);
	put_field(&r, m->build_id);
	put(&r, ",", 1);
	put_field(&r, m->started_at);
	put(&r, ",", 1);
	put_field(&r, m->job_id);
	putf(&r, ",%d,%d,%.6f,", m->nprocs, m->nnodes, m->runtime_s);
	put_field(&r, m->args);
	putf(&r, ",%d", m->exit_status);
	for (i = 0; i < nf; i++) {
		put(&r, ",", 1);
		put_double(&r, (double)sum[i] / m->nprocs);
		putf(&r, ",%llu", max[i]);
	}
	put(&r, "\n", 1);

	if (!h.ok || !r.ok) {
		free(h.s);
		free(r.s);
		snprintf(err, errlen, "out of memory building the run row");
		return -1;
	}
	*header = h.s;
	*row = r.s;
	return 0;
}

/* Dumps: a line-oriented text file, "key<TAB>value" lines, then one
 * "name<TAB>value" line per feature; backslash, tab, CR and LF in strings
 * are escaped as \\ \t \r \n. */
#define DUMP_MAGIC "mpipredict-dump 1"

static void put_escaped(struct buf *b, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '\\':
			puts_(b, "\\\\");
			break;
		case '\t':
			puts_(b, "\\t");
			break;
		case '\n':
			puts_(b, "\\n");
			break;
		case '\r':
			puts_(b, "\\r");
			break;
		default:
			put(b, s, 1);
		}
	}
}

static void put_kv(struct buf *b, const char *k, const char *v)
{
	puts_(b, k);
	put(b, "\t", 1);
	put_escaped(b, v);
	put(b, "\n", 1);
}

static void put_head(struct buf *b, const struct mpp_run_meta *m, int rank,
		     int finalized)
{
	puts_(b, DUMP_MAGIC "\n");
	put_kv(b, "run_id", m->run_id);
	put_kv(b, "app", m->app);
	put_kv(b, "build_id", m->build_id);
	put_kv(b, "started_at", m->started_at);
	put_kv(b, "job_id", m->job_id);
	put_kv(b, "args", m->args);
	putf(b, "nprocs\t%d\nnnodes\t%d\nrank\t%d\nfinalized\t%d\n", m->nprocs,
	     m->nnodes, rank, finalized);
}

char *mpp_dump_head(const struct mpp_run_meta *m, int rank, int finalized)
{
	struct buf b = {NULL, 0, 0, 1};

	put_head(&b, m, rank, finalized);
	if (!b.ok)
		free(b.s);
	return b.ok ? b.s : NULL;
}

char *mpp_dump_escape(const char *name)
{
	struct buf b = {NULL, 0, 0, 1};

	puts_(&b, "");
	put_escaped(&b, name);
	if (!b.ok)
		free(b.s);
	return b.ok ? b.s : NULL;
}

int mpp_dump_write(const char *path, const struct mpp_run_meta *m, int rank,
		   int finalized, size_t nf, char *const *names,
		   const unsigned long long *values, char *err, size_t errlen)
{
	struct buf b = {NULL, 0, 0, 1};
	char tmp[4096];
	size_t i, off;
	ssize_t w;
	FILE *f;
	int fd;

	put_head(&b, m, rank, finalized);
	putf(&b, "exit_status\t%d\nruntime_s\t%a\nfeatures\t%zu\n",
	     m->exit_status, m->runtime_s, nf);
	for (i = 0; i < nf; i++) {
		put_escaped(&b, names[i]);
		putf(&b, "\t%llu\n", values[i]);
	}
	if (!b.ok) {
		free(b.s);
		snprintf(err, errlen, "out of memory writing dump %s", path);
		return -1;
	}
	if (snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid()) >=
	    (int)sizeof tmp) {
		free(b.s);
		snprintf(err, errlen, "dump path too long: %s", path);
		return -1;
	}
	f = fopen(tmp, "wx");
	if (!f) {
		snprintf(err, errlen, "cannot write dump %s: %s", tmp,
			 strerror(errno));
		free(b.s);
		return -1;
	}
	fd = fileno(f);
	for (off = 0; off < b.len; off += (size_t)w) {
		w = write(fd, b.s + off, b.len - off);
		if (w <= 0)
			break;
	}
	free(b.s);
	if (off < b.len || fclose(f) != 0 || rename(tmp, path) != 0) {
		snprintf(err, errlen, "cannot write dump %s: %s", path,
			 strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* Unescape s in place. Returns -1 on a bad escape. */
static int unescape(char *s)
{
	char *o = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*o++ = *s;
			continue;
		}
		switch (*++s) {
		case '\\':
			*o++ = '\\';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'n':
			*o++ = '\n';
			break;
		case 'r':
			*o++ = '\r';
			break;
		default:
			return -1;
		}
	}
	*o = '\0';
	return 0;
}

static int parse_int(const char *s, long lo, long hi, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi)
		return -1;
	*out = v;
	return 0;
}

void mpp_dump_free(struct mpp_dump *d)
{
	free(d->names);
	free(d->values);
	free(d->strings);
	memset(d, 0, sizeof *d);
}

int mpp_dump_read(const char *path, struct mpp_dump *d, char *err,
		  size_t errlen)
{
	static const char *const keys[] = {
	    "run_id",      "app",       "build_id", "started_at", "job_id",
	    "args",        "nprocs",    "nnodes",   "rank",       "finalized",
	    "exit_status", "runtime_s", "features",
	};
	const size_t nkeys = sizeof keys / sizeof keys[0];
	struct buf b = {NULL, 0, 0, 1};
	char chunk[8192], *line, *next, *tab, *end;
	const char *val[sizeof keys / sizeof keys[0]];
	size_t n, k, lineno = 1, nf = 0;
	int bad;
	long v;
	FILE *f;

	memset(d, 0, sizeof *d);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
		put(&b, chunk, n);
	if (ferror(f) || !b.ok) {
		fclose(f);
		free(b.s);
		snprintf(err, errlen, "%s: cannot read", path);
		return -1;
	}
	fclose(f);
	d->strings = b.s;
	if (!b.s || strncmp(b.s, DUMP_MAGIC "\n", sizeof DUMP_MAGIC) != 0) {
		snprintf(err, errlen, "%s:1: not a mpipredict dump", path);
		goto fail;
	}
	line = b.s + sizeof DUMP_MAGIC;
	for (k = 0; k < nkeys; k++) {
		lineno++;
		next = strchr(line, '\n');
		tab = strchr(line, '\t');
		if (!next || !tab || tab > next ||
		    (size_t)(tab - line) != strlen(keys[k]) ||
		    strncmp(line, keys[k], strlen(keys[k])) != 0) {
			snprintf(err, errlen, "%s:%zu: expected field %s", path,
				 lineno, keys[k]);
			goto fail;
		}
		*next = '\0';
		if (unescape(tab + 1) < 0) {
			snprintf(err, errlen, "%s:%zu: bad escape in %s", path,
				 lineno, keys[k]);
			goto fail;
		}
		val[k] = tab + 1;
		line = next + 1;
	}
	d->meta.run_id = val[0];
	d->meta.app = val[1];
	d->meta.build_id = val[2];
	d->meta.started_at = val[3];
	d->meta.job_id = val[4];
	d->meta.args = val[5];
	bad = 6;
	if (parse_int(val[6], 1, 1L << 30, &v) < 0)
		goto bad_field;
	d->meta.nprocs = (int)v;
	bad = 7;
	if (parse_int(val[7], 1, d->meta.nprocs, &v) < 0)
		goto bad_field;
	d->meta.nnodes = (int)v;
	bad = 8;
	if (parse_int(val[8], 0, d->meta.nprocs - 1, &v) < 0)
		goto bad_field;
	d->rank = (int)v;
	bad = 9;
	if (parse_int(val[9], 0, 1, &v) < 0)
		goto bad_field;
	d->finalized = (int)v;
	bad = 10;
	if (parse_int(val[10], 0, 255, &v) < 0)
		goto bad_field;
	d->meta.exit_status = (int)v;
	bad = 11;
	d->meta.runtime_s = strtod(val[11], &end);
	if (end == val[11] || *end || !isfinite(d->meta.runtime_s) ||
	    d->meta.runtime_s < 0)
		goto bad_field;
	bad = 12;
	if (parse_int(val[12], 0, 1L << 30, &v) < 0)
		goto bad_field;
	nf = (size_t)v;
	d->names = calloc(nf ? nf : 1, sizeof *d->names);
	d->values = calloc(nf ? nf : 1, sizeof *d->values);
	if (!d->names || !d->values) {
		snprintf(err, errlen, "%s: out of memory", path);
		goto fail;
	}
	for (k = 0; k < nf; k++) {
		lineno++;
		next = strchr(line, '\n');
		tab = next ? memrchr(line, '\t', (size_t)(next - line)) : NULL;
		if (!tab) {
			snprintf(err, errlen,
				 "%s:%zu: expected feature %zu of %zu", path,
				 lineno, k + 1, nf);
			goto fail;
		}
		*next = *tab = '\0';
		errno = 0;
		d->values[k] = strtoull(tab + 1, &end, 10);
		if (errno || end == tab + 1 || *end || tab[1] == '-' ||
		    unescape(line) < 0) {
			snprintf(err, errlen, "%s:%zu: bad feature line", path,
				 lineno);
			goto fail;
		}
		d->names[k] = line;
		line = next + 1;
	}
	if (*line) {
		snprintf(err, errlen, "%s:%zu: text after the last feature",
			 path, lineno + 1);
		goto fail;
	}
	d->nf = nf;
	return 0;
bad_field:
	snprintf(err, errlen, "%s:%d: bad %s: %s", path, bad + 2, keys[bad],
		 val[bad]);
fail:
	mpp_dump_free(d);
	return -1;
}
