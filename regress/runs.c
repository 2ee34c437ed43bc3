/*
 * runs.c: reads run rows (docs/design.md, "Run records") from RFC 4180 CSV into
 * an mpp_runs set (runs.h): quoted fields with embedded commas, quotes and
 * line breaks, CRLF or LF, the union of the feature columns of every source.
 *
 * It checks each row on its own (field count, numbers, duplicates) and
 * reports bad rows through the warn callback; it does not decide what rows
 * belong together (apps, builds): that is the trainer's business.
 */
#include "regress/runs.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

static const char *const fixed_cols[] = {
    "run_id", "app",    "build_id",  "started_at", "job_id",
    "nprocs", "nnodes", "runtime_s", "args",
};
enum { NFIXED = 9 };
/* colmap's mark for the exit_status column. */
#define EXIT_STATUS_COL ((size_t)-1)

/* One record: its fields are NUL-terminated strings inside buf. */
struct record {
	char *buf;
	size_t buflen, bufcap;
	size_t *off;
	size_t nfields, offcap;
};

static int rec_putc(struct record *r, char c)
{
	if (r->buflen == r->bufcap) {
		size_t cap = r->bufcap ? 2 * r->bufcap : 4096;
		char *b = realloc(r->buf, cap);
		if (!b)
			return -1;
		r->buf = b;
		r->bufcap = cap;
	}
	r->buf[r->buflen++] = c;
	return 0;
}

static int rec_field(struct record *r)
{
	if (r->nfields == r->offcap) {
		size_t cap = r->offcap ? 2 * r->offcap : 64;
		size_t *o = realloc(r->off, cap * sizeof(*o));
		if (!o)
			return -1;
		r->off = o;
		r->offcap = cap;
	}
	r->off[r->nfields++] = r->buflen;
	return 0;
}

static const char *rec_get(const struct record *r, size_t i)
{
	return r->buf + r->off[i];
}

/* The first field holding a NUL byte, or nfields. C code reading a field
 * stops at a NUL ("r\0x" read as "r"), so such a field is refused rather
 * than cut. */
static size_t rec_nul_field(const struct record *r)
{
	for (size_t i = 0; i < r->nfields; i++) {
		size_t end = i + 1 < r->nfields ? r->off[i + 1] : r->buflen;
		if (strlen(rec_get(r, i)) != end - r->off[i] - 1)
			return i;
	}
	return r->nfields;
}

enum { REC_OK, REC_EOF, REC_BAD, REC_NOMEM };

/*
 * Read the record at *pos, advancing *pos past it and *line past its line
 * breaks. REC_BAD: a quote that never closes, or text after a closing quote
 * (why says which).
 */
static int next_record(const char *text, size_t len, size_t *pos, size_t *line,
		       struct record *r, const char **why)
{
	size_t i = *pos;
	int quoted = 0, after_quote = 0, bad = 0;

	r->buflen = 0;
	r->nfields = 0;
	if (i >= len)
		return REC_EOF;
	if (rec_field(r))
		return REC_NOMEM;
	for (; i < len; i++) {
		char c = text[i];
		if (quoted) {
			if (c == '"') {
				if (i + 1 < len && text[i + 1] == '"') {
					if (rec_putc(r, '"'))
						return REC_NOMEM;
					i++;
				} else {
					quoted = 0;
					after_quote = 1;
				}
				continue;
			}
			if (c == '\n')
				(*line)++;
			if (rec_putc(r, c))
				return REC_NOMEM;
			continue;
		}
		if (c == ',') {
			if (rec_putc(r, '\0') || rec_field(r))
				return REC_NOMEM;
			after_quote = 0;
			continue;
		}
		if (c == '\n' || c == '\r') {
			if (c == '\r' && i + 1 < len && text[i + 1] == '\n')
				i++;
			(*line)++;
			i++;
			break;
		}
		if (c == '"' && !after_quote &&
		    r->buflen == r->off[r->nfields - 1]) {
			quoted = 1;
			continue;
		}
		if (after_quote && !bad) {
			*why = "text after a closing quote";
			bad = 1;
		}
		if (c == '"' && !bad) {
			*why = "a quote inside an unquoted field";
			bad = 1;
		}
		if (rec_putc(r, c))
			return REC_NOMEM;
	}
	*pos = i;
	if (rec_putc(r, '\0'))
		return REC_NOMEM;
	if (quoted) {
		*why = "a quoted field never ends";
		return REC_BAD;
	}
	return bad ? REC_BAD : REC_OK;
}

static int parse_double(const char *s, double *out)
{
	char *end;

	if (!*s)
		return 0;
	errno = 0;
	*out = strtod(s, &end);
	return *end == '\0';
}

static void warnf(mpp_warn_fn warn, void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void warnf(mpp_warn_fn warn, void *ctx, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	if (!warn)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	warn(ctx, msg);
}

static int cmp_name_index(const void *a, const void *b, void *names)
{
	char **n = names;
	return strcmp(n[*(const size_t *)a], n[*(const size_t *)b]);
}

struct name_key {
	const char *name;
	char **names;
};

static int cmp_key_index(const void *key, const void *elem)
{
	const struct name_key *k = key;
	return strcmp(k->name, k->names[*(const size_t *)elem]);
}

/* Header feature columns sorted by name, then by position. */
struct col_key {
	const char *name;
	size_t pos;
};

static int cmp_col(const void *a, const void *b)
{
	const struct col_key *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* Add the header's feature columns to the union; colmap[c] is the feature
 * index of header column NFIXED + c. A name given twice in the header is an
 * error (the first duplicate in column order is named), found by sorting
 * the header's names once: O(n log n), not a scan of the columns taken so
 * far for each column (80,000 columns took 41.7 s that way). */
static int map_columns(mpp_runs *rs, const struct record *hdr, size_t *colmap,
		       const char *name, size_t hline, char *err, size_t errlen)
{
	size_t nold = rs->nfeatures, ncols = hdr->nfields - NFIXED;
	size_t *sorted = malloc((nold + 1) * sizeof(*sorted));
	struct col_key *cols = malloc((ncols + 1) * sizeof(*cols));
	char **features;

	if (!sorted || !cols) {
		free(sorted);
		free(cols);
		return MPP_ENOMEM;
	}
	for (size_t c = 0; c < ncols; c++) {
		cols[c].name = rec_get(hdr, NFIXED + c);
		cols[c].pos = c;
		if (!*cols[c].name) {
			snprintf(err, errlen, "%s:%zu: column %zu has no name",
				 name, hline, NFIXED + c + 1);
			free(sorted);
			free(cols);
			return MPP_EINVAL;
		}
	}
	qsort(cols, ncols, sizeof(*cols), cmp_col);
	size_t dup = ncols; /* the earliest second occurrence */
	for (size_t i = 1; i < ncols; i++)
		if (strcmp(cols[i - 1].name, cols[i].name) == 0 &&
		    (dup == ncols || cols[i].pos < dup))
			dup = cols[i].pos;
	free(cols);
	if (dup < ncols) {
		snprintf(err, errlen, "%s:%zu: column %s appears twice", name,
			 hline, rec_get(hdr, NFIXED + dup));
		free(sorted);
		return MPP_EINVAL;
	}
	for (size_t i = 0; i < nold; i++)
		sorted[i] = i;
	qsort_r(sorted, nold, sizeof(*sorted), cmp_name_index, rs->features);
	/* + 1: files with no feature column at all must not realloc to 0
	 * bytes (glibc frees the block and returns NULL). */
	features =
	    realloc(rs->features, (nold + ncols + 1) * sizeof(*features));
	if (!features) {
		free(sorted);
		return MPP_ENOMEM;
	}
	rs->features = features;
	for (size_t c = 0; c < ncols; c++) {
		const char *col = rec_get(hdr, NFIXED + c);
		struct name_key key = {col, rs->features};
		if (c == 0 && strcmp(col, "exit_status") == 0) {
			/* A run's exit status (collector rows since
			 * issue 14), not a feature. */
			colmap[c] = EXIT_STATUS_COL;
			continue;
		}
		size_t *hit =
		    bsearch(&key, sorted, nold, sizeof(*sorted), cmp_key_index);
		if (hit) {
			colmap[c] = *hit;
			continue;
		}
		rs->features[rs->nfeatures] = strdup(col);
		if (!rs->features[rs->nfeatures]) {
			free(sorted);
			return MPP_ENOMEM;
		}
		colmap[c] = rs->nfeatures++;
	}
	free(sorted);
	return MPP_OK;
}

/* Grow every earlier run's values to the new feature count (absent). */
static int widen_runs(mpp_runs *rs, size_t nruns, size_t nold)
{
	for (size_t r = 0; r < nruns; r++) {
		double *v =
		    realloc(rs->runs[r].values,
			    (rs->nfeatures ? rs->nfeatures : 1) * sizeof(*v));
		if (!v)
			return MPP_ENOMEM;
		for (size_t f = nold; f < rs->nfeatures; f++)
			v[f] = NAN;
		rs->runs[r].values = v;
	}
	return MPP_OK;
}

static void run_free(mpp_run *r)
{
	free(r->run_id);
	free(r->app);
	free(r->build_id);
	free(r->started_at);
	free(r->job_id);
	free(r->args);
	free(r->values);
}

/* Check one row and fill run; returns 0, or 1 with why filled (bad row),
 * or -1 out of memory. */
static int fill_run(const mpp_runs *rs, const struct record *rec,
		    const size_t *colmap, size_t ncols, mpp_run *run, char *why,
		    size_t whylen)
{
	double *num[3] = {&run->nprocs, &run->nnodes, &run->runtime_s};

	memset(run, 0, sizeof(*run));
	if (rec->nfields != ncols + NFIXED) {
		snprintf(why, whylen, "%zu fields, the header has %zu",
			 rec->nfields, ncols + NFIXED);
		return 1;
	}
	size_t nul = rec_nul_field(rec);
	if (nul < rec->nfields) {
		size_t c = nul - NFIXED;
		snprintf(why, whylen, "%s: contains a NUL byte",
			 nul < NFIXED ? fixed_cols[nul]
			 : colmap[c] == EXIT_STATUS_COL
			     ? "exit_status"
			     : rs->features[colmap[c]]);
		return 1;
	}
	if (!*rec_get(rec, 0) || !*rec_get(rec, 1)) {
		snprintf(why, whylen, "empty %s",
			 *rec_get(rec, 0) ? "app" : "run_id");
		return 1;
	}
	for (int k = 0; k < 3; k++) {
		const char *s = rec_get(rec, 5 + k);
		if (!parse_double(s, num[k]) || !isfinite(*num[k]) ||
		    *num[k] < (k == 2 ? 0 : 1) || (k == 2 && *num[k] == 0)) {
			snprintf(why, whylen, "%s: '%.40s' is not a %s",
				 fixed_cols[5 + k], s,
				 k == 2 ? "run time > 0" : "count >= 1");
			return 1;
		}
	}
	run->values =
	    malloc((rs->nfeatures ? rs->nfeatures : 1) * sizeof(*run->values));
	if (!run->values)
		return -1;
	for (size_t f = 0; f < rs->nfeatures; f++)
		run->values[f] = NAN;
	for (size_t c = 0; c < ncols; c++) {
		const char *s = rec_get(rec, NFIXED + c);
		double v;
		if (colmap[c] == EXIT_STATUS_COL) {
			run->exit_status = *s ? atoi(s) : 0;
			continue;
		}
		if (!*s)
			continue;
		if (!parse_double(s, &v) || !isfinite(v)) {
			snprintf(why, whylen,
				 "%s: '%.40s' is not a finite number",
				 rs->features[colmap[c]], s);
			free(run->values);
			run->values = NULL;
			return 1;
		}
		run->values[colmap[c]] = v;
	}
	run->run_id = strdup(rec_get(rec, 0));
	run->app = strdup(rec_get(rec, 1));
	run->build_id = strdup(rec_get(rec, 2));
	run->started_at = strdup(rec_get(rec, 3));
	run->job_id = strdup(rec_get(rec, 4));
	run->args = strdup(rec_get(rec, 8));
	if (!run->run_id || !run->app || !run->build_id || !run->started_at ||
	    !run->job_id || !run->args) {
		run_free(run);
		return -1;
	}
	return 0;
}

static int cmp_run_id(const void *a, const void *b, void *runs)
{
	const mpp_run *r = runs;
	size_t i = *(const size_t *)a, j = *(const size_t *)b;
	int c = strcmp(r[i].run_id, r[j].run_id);
	return c ? c : (i > j) - (i < j);
}

/* A run id twice in the set is an error naming the later row. */
static int check_duplicates(const mpp_runs *rs, size_t first,
			    const size_t *lines, const char *name, char *err,
			    size_t errlen)
{
	size_t *idx = malloc((rs->nruns + 1) * sizeof(*idx));
	int rc = MPP_OK;

	if (!idx)
		return MPP_ENOMEM;
	for (size_t i = 0; i < rs->nruns; i++)
		idx[i] = i;
	qsort_r(idx, rs->nruns, sizeof(*idx), cmp_run_id, rs->runs);
	for (size_t i = 1; i < rs->nruns; i++) {
		size_t a = idx[i - 1], b = idx[i];
		if (b >= first &&
		    strcmp(rs->runs[a].run_id, rs->runs[b].run_id) == 0) {
			if (a >= first)
				snprintf(err, errlen,
					 "%s:%zu: duplicate run_id '%s' (first "
					 "at line %zu)",
					 name, lines[b - first],
					 rs->runs[b].run_id, lines[a - first]);
			else
				snprintf(err, errlen,
					 "%s:%zu: duplicate run_id '%s' (also "
					 "in an earlier file)",
					 name, lines[b - first],
					 rs->runs[b].run_id);
			rc = MPP_EINVAL;
			break;
		}
	}
	free(idx);
	return rc;
}

int mpp_runs_parse(mpp_runs *rs, const char *name, const char *text, size_t len,
		   mpp_warn_fn warn, void *ctx, char *err, size_t errlen)
{
	struct record rec = {0};
	size_t pos = 0, line = 1, start, nold = rs->nfeatures,
	       first = rs->nruns;
	size_t cap = rs->nruns, nbad = 0, ncols, *colmap = NULL, *lines = NULL;
	size_t nlines = 0, hline, nfailed = 0;
	const char *why = NULL;
	int rc, r;

	if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0)
		pos = 3;
	/* Leading blank lines (LF, CRLF or CR) still count as lines. */
	while (pos < len && (text[pos] == '\n' || text[pos] == '\r')) {
		if (text[pos] == '\n' ||
		    !(pos + 1 < len && text[pos + 1] == '\n'))
			line++;
		pos++;
	}
	hline = line;
	if (pos >= len) {
		snprintf(err, errlen, "%s: empty file", name);
		return MPP_EINVAL;
	}
	r = next_record(text, len, &pos, &line, &rec, &why);
	if (r == REC_NOMEM) {
		rc = MPP_ENOMEM;
		goto out;
	}
	if (r == REC_BAD) {
		snprintf(err, errlen, "%s:%zu: header: %s", name, hline, why);
		rc = MPP_EINVAL;
		goto out;
	}
	if (rec_nul_field(&rec) < rec.nfields) {
		snprintf(err, errlen,
			 "%s:%zu: header column %zu: contains a NUL byte", name,
			 hline, rec_nul_field(&rec) + 1);
		rc = MPP_EINVAL;
		goto out;
	}
	for (size_t c = 0; c < NFIXED; c++) {
		if (c >= rec.nfields ||
		    strcmp(rec_get(&rec, c), fixed_cols[c])) {
			snprintf(
			    err, errlen,
			    "%s:%zu: header column %zu must be %s, got '%.40s'",
			    name, hline, c + 1, fixed_cols[c],
			    c < rec.nfields ? rec_get(&rec, c) : "");
			rc = MPP_EINVAL;
			goto out;
		}
	}
	ncols = rec.nfields - NFIXED;
	colmap = malloc((ncols + 1) * sizeof(*colmap));
	if (!colmap) {
		rc = MPP_ENOMEM;
		goto out;
	}
	rc = map_columns(rs, &rec, colmap, name, hline, err, errlen);
	if (rc == MPP_OK)
		rc = widen_runs(rs, rs->nruns, nold);
	while (rc == MPP_OK) {
		char whybuf[256];
		start = line;
		r = next_record(text, len, &pos, &line, &rec, &why);
		if (r == REC_EOF)
			break;
		if (r == REC_NOMEM) {
			rc = MPP_ENOMEM;
			break;
		}
		if (rec.nfields == 1 && !*rec_get(&rec, 0) && r == REC_OK)
			continue; /* a blank line */
		if (r == REC_BAD) {
			warnf(warn, ctx, "%s:%zu: %s", name, start, why);
			nbad++;
			continue;
		}
		if (rs->nruns == cap) {
			size_t ncap = cap ? 2 * cap : 256;
			mpp_run *runs = realloc(rs->runs, ncap * sizeof(*runs));
			size_t *l = realloc(lines, ncap * sizeof(*l));
			if (runs)
				rs->runs = runs;
			if (l)
				lines = l;
			if (!runs || !l) {
				rc = MPP_ENOMEM;
				break;
			}
			cap = ncap;
		}
		r = fill_run(rs, &rec, colmap, ncols, &rs->runs[rs->nruns],
			     whybuf, sizeof(whybuf));
		if (r < 0) {
			rc = MPP_ENOMEM;
			break;
		}
		if (r > 0) {
			warnf(warn, ctx, "%s:%zu: %s", name, start, whybuf);
			nbad++;
			continue;
		}
		if (rs->runs[rs->nruns].exit_status != 0 &&
		    !rs->include_failed) {
			run_free(&rs->runs[rs->nruns]);
			nfailed++;
			continue;
		}
		lines[nlines++] = start;
		rs->nruns++;
	}
	if (rc == MPP_OK && nfailed)
		warnf(warn, ctx,
		      "%s: %zu failed run%s (exit_status not 0) left out "
		      "(--include-failed takes them)",
		      name, nfailed, nfailed > 1 ? "s" : "");
	if (rc == MPP_OK && rs->nruns == first) {
		snprintf(err, errlen,
			 "%s: no usable row (%zu malformed, %zu failed)", name,
			 nbad, nfailed);
		rc = MPP_EINVAL;
	}
	if (rc == MPP_OK)
		rc = check_duplicates(rs, first, lines, name, err, errlen);
	if (rc != MPP_OK) {
		/* Leave the set as it was: drop this source's rows and
		 * columns. */
		for (size_t i = first; i < rs->nruns; i++)
			run_free(&rs->runs[i]);
		rs->nruns = first;
		for (size_t f = nold; f < rs->nfeatures; f++)
			free(rs->features[f]);
		rs->nfeatures = nold;
	}
out:
	if (rc == MPP_ENOMEM)
		snprintf(err, errlen, "%s: out of memory", name);
	free(rec.buf);
	free(rec.off);
	free(colmap);
	free(lines);
	return rc;
}

int mpp_runs_read_file(mpp_runs *rs, const char *path, mpp_warn_fn warn,
		       void *ctx, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	int rc;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return errno == ENOENT ? MPP_EINVAL : MPP_EIO;
	}
	do {
		if (cap - len < 65536) {
			cap = cap ? 2 * cap : 1 << 20;
			char *t = realloc(text, cap);
			if (!t) {
				free(text);
				fclose(f);
				snprintf(err, errlen, "%s: out of memory",
					 path);
				return MPP_ENOMEM;
			}
			text = t;
		}
		n = fread(text + len, 1, cap - len, f);
		len += n;
	} while (n > 0);
	if (ferror(f)) {
		snprintf(err, errlen, "%s: read error", path);
		free(text);
		fclose(f);
		return MPP_EIO;
	}
	fclose(f);
	rc = mpp_runs_parse(rs, path, text, len, warn, ctx, err, errlen);
	free(text);
	return rc;
}

void mpp_runs_free(mpp_runs *rs)
{
	if (!rs)
		return;
	for (size_t i = 0; i < rs->nruns; i++)
		run_free(&rs->runs[i]);
	free(rs->runs);
	for (size_t f = 0; f < rs->nfeatures; f++)
		free(rs->features[f]);
	free(rs->features);
	memset(rs, 0, sizeof(*rs));
}
