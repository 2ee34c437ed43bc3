/*
 * source.c: reading a C file and scanning its bytes for the few things the
 * rewriter cannot ask libclang: where the code token after a statement
 * starts, and whether directive lines sit right before a statement. See
 * source.h. This is not a lexer: string literals are never skipped because
 * the callers only ever look for the first token after a known position.
 */
#include "instrument/source.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int mpp_source_read(struct mpp_source *src, const char *path, char *err,
		    size_t errlen)
{
	memset(src, 0, sizeof(*src));
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fclose(f);
			snprintf(err, errlen, "%s: out of memory", path);
			return -1;
		}
		n += fread(buf + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		cap *= 2;
		char *nb = realloc(buf, cap);
		if (!nb)
			free(buf);
		buf = nb;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		snprintf(err, errlen, "%s: read error", path);
		return -1;
	}
	buf[n] = 0;
	src->text = buf;
	src->len = n;

	size_t nl = 1;
	for (size_t i = 0; i < n; i++)
		nl += buf[i] == '\n';
	src->line = malloc(nl * sizeof(*src->line));
	if (!src->line) {
		free(buf);
		snprintf(err, errlen, "%s: out of memory", path);
		return -1;
	}
	src->line[0] = 0;
	src->nline = 1;
	for (size_t i = 0; i < n; i++)
		if (buf[i] == '\n')
			src->line[src->nline++] = i + 1;
	return 0;
}

void mpp_source_free(struct mpp_source *src)
{
	free(src->text);
	free(src->line);
	free(src->skipped);
	memset(src, 0, sizeof(*src));
}

void mpp_source_linecol(const struct mpp_source *src, size_t off,
			unsigned *line, unsigned *col)
{
	size_t lo = 0, hi = src->nline;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (src->line[mid] <= off)
			lo = mid;
		else
			hi = mid;
	}
	*line = (unsigned)lo + 1;
	*col = (unsigned)(off - src->line[lo]) + 1;
}

/* End of the skipped range containing `off`, or 0 if none does. */
static size_t skipped_end(const struct mpp_source *src, size_t off)
{
	size_t lo = 0, hi = src->nskipped;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (src->skipped[mid].end <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < src->nskipped && src->skipped[lo].begin <= off)
		return src->skipped[lo].end;
	return 0;
}

int mpp_source_in_skipped(const struct mpp_source *src, size_t off)
{
	return skipped_end(src, off) != 0;
}

/* True if only blanks lie between the start of off's line and off. */
static int at_line_start(const struct mpp_source *src, size_t off)
{
	while (off > 0) {
		char c = src->text[off - 1];
		if (c == '\n')
			return 1;
		if (c != ' ' && c != '\t' && c != '\r' && c != '\f' &&
		    c != '\v')
			return 0;
		off--;
	}
	return 1;
}

/* Offset just past the end of the logical line containing `p`, following
 * backslash-newline continuations. */
static size_t end_of_logical_line(const struct mpp_source *src, size_t p)
{
	const char *t = src->text;
	while (p < src->len) {
		if (t[p] == '\\' && p + 1 < src->len && t[p + 1] == '\n')
			p += 2;
		else if (t[p] == '\\' && p + 2 < src->len && t[p + 1] == '\r' &&
			 t[p + 2] == '\n')
			p += 3;
		else if (t[p] == '\n')
			return p + 1;
		else
			p++;
	}
	return p;
}

size_t mpp_source_next_code(const struct mpp_source *src, size_t off)
{
	const char *t = src->text;
	size_t n = src->len, p = off;
	int bol = at_line_start(src, off);
	while (p < n) {
		size_t se = skipped_end(src, p);
		if (se > p) {
			p = se;
			bol = at_line_start(src, p);
			continue;
		}
		char c = t[p];
		if (c == '\n') {
			bol = 1;
			p++;
		} else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' ||
			   c == '\v') {
			p++;
		} else if (c == '\\' && p + 1 < n &&
			   (t[p + 1] == '\n' || t[p + 1] == '\r')) {
			p += t[p + 1] == '\r' ? 3 : 2;
		} else if (c == '/' && p + 1 < n && t[p + 1] == '*') {
			const char *e = strstr(t + p + 2, "*/");
			p = e ? (size_t)(e - t) + 2 : n;
		} else if (c == '/' && p + 1 < n && t[p + 1] == '/') {
			p = end_of_logical_line(src, p);
			bol = 1;
		} else if (c == '#' && bol) {
			p = end_of_logical_line(src, p);
		} else {
			return p;
		}
	}
	return n;
}

/* Start of the line containing `off`. */
static size_t line_start(const struct mpp_source *src, size_t off)
{
	while (off > 0 && src->text[off - 1] != '\n')
		off--;
	return off;
}

size_t mpp_source_directives_before(const struct mpp_source *src, size_t off)
{
	const char *t = src->text;
	if (!at_line_start(src, off))
		return off;
	size_t ls = line_start(src, off);
	size_t first = t[off] == '#' ? ls : off;
	while (ls > 0) {
		/* The logical line ending just before ls. */
		size_t pls = line_start(src, ls - 1);
		while (pls >= 2 && t[pls - 1] == '\n' && t[pls - 2] == '\\')
			pls = line_start(src, pls - 2);
		size_t q = pls;
		while (q < ls && (t[q] == ' ' || t[q] == '\t' || t[q] == '\r'))
			q++;
		if (skipped_end(src, pls) > pls || (q < ls && t[q] == '#'))
			first = pls;
		else if (!(q < ls && t[q] == '\n'))
			break;
		ls = pls;
	}
	return first;
}

int mpp_source_is_word(const struct mpp_source *src, size_t off,
		       const char *word)
{
	size_t wl = strlen(word);
	if (off + wl > src->len || memcmp(src->text + off, word, wl) != 0)
		return 0;
	char c = src->text[off + wl];
	return !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		 (c >= '0' && c <= '9'));
}

int mpp_source_in_directive(const struct mpp_source *src, size_t off)
{
	const char *t = src->text;
	size_t ls = line_start(src, off < src->len ? off : src->len);
	/* Back over continued lines to the logical line's start. */
	while (ls >= 2 && t[ls - 1] == '\n' &&
	       (t[ls - 2] == '\\' ||
		(t[ls - 2] == '\r' && ls >= 3 && t[ls - 3] == '\\')))
		ls = line_start(src, ls - 2);
	while (ls < off && (t[ls] == ' ' || t[ls] == '\t'))
		ls++;
	return ls < src->len && t[ls] == '#';
}
