/*
 * csvget.c: a strict RFC 4180 reader for the collector's tests (the tests
 * must not trust the writer they check). It parses quoted fields, doubled
 * quotes and embedded newlines, and requires every record to have as many
 * fields as the header.
 *
 * Usage: csvget FILE              print the number of data rows
 *        csvget FILE ROW COL...   print the named columns of data row ROW
 *                                 (1-based), one per line, "(missing)" for
 *                                 a column the header does not have
 *        csvget -H FILE           print the header's names, one per line
 *        csvget -c COL FILE       print column COL of every data row
 * Exit 2 with "FILE:LINE: why" when the file is not well-formed CSV.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct rec {
	size_t n;
	char **f;
};

static char *text;
static size_t pos, len, line = 1;

/* One field into a fresh string; *end: 0 more fields, 1 end of record. */
static char *field(const char *file, int *end)
{
	char *out = malloc(len - pos + 1);
	size_t o = 0;

	if (!out)
		exit(3);
	if (pos < len && text[pos] == '"') {
		pos++;
		for (;;) {
			if (pos >= len) {
				fprintf(stderr,
					"%s:%zu: unterminated quoted field\n",
					file, line);
				exit(2);
			}
			if (text[pos] == '"') {
				if (pos + 1 < len && text[pos + 1] == '"') {
					out[o++] = '"';
					pos += 2;
					continue;
				}
				pos++;
				break;
			}
			if (text[pos] == '\n')
				line++;
			out[o++] = text[pos++];
		}
	} else {
		while (pos < len && text[pos] != ',' && text[pos] != '\n' &&
		       text[pos] != '\r') {
			if (text[pos] == '"') {
				fprintf(
				    stderr,
				    "%s:%zu: quote inside an unquoted field\n",
				    file, line);
				exit(2);
			}
			out[o++] = text[pos++];
		}
	}
	out[o] = '\0';
	if (pos < len && text[pos] == ',') {
		pos++;
		*end = 0;
	} else if (pos + 1 < len && text[pos] == '\r' &&
		   text[pos + 1] == '\n') {
		pos += 2;
		*end = 1;
	} else if (pos < len && text[pos] == '\n') {
		pos++;
		*end = 1;
	} else if (pos >= len) {
		fprintf(stderr,
			"%s:%zu: last record does not end in a newline\n", file,
			line);
		exit(2);
	} else {
		fprintf(stderr, "%s:%zu: text after a closing quote\n", file,
			line);
		exit(2);
	}
	return out;
}

static struct rec record(const char *file)
{
	struct rec r = {0, NULL};
	int end = 0;

	while (!end) {
		r.f = realloc(r.f, (r.n + 1) * sizeof *r.f);
		if (!r.f)
			exit(3);
		r.f[r.n++] = field(file, &end);
	}
	line++;
	return r;
}

int main(int argc, char **argv)
{
	const char *file;
	struct rec h, r;
	size_t n = 0, want = 0, i, c;
	int header_only = 0;
	const char *col = NULL;
	size_t ci = 0;
	FILE *f;
	size_t cap = 0, got;

	if (argc > 1 && !strcmp(argv[1], "-H")) {
		header_only = 1;
		argv++;
		argc--;
	} else if (argc > 2 && !strcmp(argv[1], "-c")) {
		col = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc < 2 || argc == 3 || (col && argc != 2)) {
		fprintf(stderr,
			"usage: csvget [-H | -c COL] FILE [ROW COL...]\n");
		return 1;
	}
	file = argv[1];
	f = fopen(file, "rb");
	if (!f) {
		perror(file);
		return 2;
	}
	do {
		text = realloc(text, cap += 65536);
		if (!text)
			return 3;
		got = fread(text + len, 1, cap - len, f);
		len += got;
	} while (got > 0);
	fclose(f);
	if (len == 0) {
		fprintf(stderr, "%s: empty\n", file);
		return 2;
	}
	h = record(file);
	if (header_only) {
		for (i = 0; i < h.n; i++)
			puts(h.f[i]);
		return 0;
	}
	if (col) {
		for (ci = 0; ci < h.n && strcmp(h.f[ci], col); ci++)
			;
		if (ci == h.n) {
			fprintf(stderr, "%s: no column %s\n", file, col);
			return 2;
		}
	}
	if (argc > 3)
		want = strtoul(argv[2], NULL, 10);
	while (pos < len) {
		size_t start = line;

		r = record(file);
		if (r.n != h.n) {
			fprintf(stderr,
				"%s:%zu: %zu fields, the header has %zu\n",
				file, start, r.n, h.n);
			return 2;
		}
		if (col)
			puts(r.f[ci]);
		if (++n == want) {
			for (c = 3; c < (size_t)argc; c++) {
				for (i = 0; i < h.n && strcmp(h.f[i], argv[c]);
				     i++)
					;
				puts(i < h.n ? r.f[i] : "(missing)");
			}
		}
	}
	if (argc == 2 && !col)
		printf("%zu\n", n);
	else if (!col && (want == 0 || want > n)) {
		fprintf(stderr, "%s: no data row %zu (%zu rows)\n", file, want,
			n);
		return 2;
	}
	return 0;
}
