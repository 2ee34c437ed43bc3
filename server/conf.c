/*
 * conf.c: the daemon's configuration file (see conf.h), parsed by libinih.
 *
 * libinih (Debian's libinih1) does the parsing; this file adds what it
 * leaves out and a daemon's admin needs: the line of every mistake. The
 * library does not hand the line to the callback, so the file is fed to it
 * through a reader of our own that counts the lines it gives out (the
 * library counts the same way). The reader also catches lines longer than
 * the library's buffer, which it would otherwise cut and parse as two
 * lines. The library continues a value on an indented line (Python's
 * configparser style); a daemon setting never spans lines, so an indented
 * line is refused rather than silently glued to the key above.
 */
#include "server/conf.h"

#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

struct seen {
	char *key;
	int line;
};

struct parse {
	FILE *f;
	const char *section;
	mpp_conf_set set;
	void *ctx;
	int line;     /* lines given to the library so far */
	int indented; /* the current line starts with a blank */
	int err_line; /* the first mistake's line; 0: none yet */
	char why[512];
	struct seen *seen;
	size_t nseen;
	int nomem;
};

__attribute__((format(printf, 2, 3))) static void mistake(struct parse *p,
							  const char *fmt, ...)
{
	if (p->err_line != 0)
		return;
	p->err_line = p->line;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->why, sizeof p->why, fmt, ap);
	va_end(ap);
}

/* fgets for the library, counting lines; a line longer than the buffer is
 * a mistake, and its rest is skipped so that the count stays right. */
static char *read_line(char *buf, int n, void *arg)
{
	struct parse *p = arg;
	if (fgets(buf, n, p->f) == NULL)
		return NULL;
	p->line++;
	p->indented = buf[0] == ' ' || buf[0] == '\t';
	size_t len = strlen(buf);
	if (len == (size_t)n - 1 && buf[len - 1] != '\n') {
		int c;
		while ((c = fgetc(p->f)) != EOF && c != '\n')
			;
		mistake(p, "a line longer than %d characters", n - 2);
	}
	return buf;
}

static int on_pair(void *arg, const char *section, const char *key,
		   const char *value)
{
	struct parse *p = arg;
	if (p->err_line != 0)
		return 1;
	if (section[0] == '\0') {
		mistake(p, "key '%s' before the [%s] line", key, p->section);
		return 1;
	}
	if (strcmp(section, p->section) != 0) {
		mistake(p, "unknown section [%s] (the settings go in [%s])",
			section, p->section);
		return 1;
	}
	for (size_t i = 0; i < p->nseen; i++) {
		if (strcmp(p->seen[i].key, key) != 0)
			continue;
		if (p->indented)
			mistake(p,
				"an indented line (it would continue the "
				"value of '%s'); remove the blanks at its "
				"start",
				key);
		else
			mistake(p, "key '%s' set twice (first on line %d)", key,
				p->seen[i].line);
		return 1;
	}
	if (p->set(p->ctx, key, value, p->why, sizeof p->why) != 0) {
		p->err_line = p->line;
		return 1;
	}
	struct seen *more = realloc(p->seen, (p->nseen + 1) * sizeof *more);
	char *k = strdup(key);
	if (more == NULL || k == NULL) {
		free(k);
		if (more != NULL)
			p->seen = more;
		p->nomem = 1;
		return 1;
	}
	p->seen = more;
	p->seen[p->nseen++] = (struct seen){k, p->line};
	return 1;
}

int mpp_conf_read(const char *path, const char *section, mpp_conf_set set,
		  void *ctx, char *err, size_t errlen)
{
	struct parse p = {.section = section, .set = set, .ctx = ctx};
	p.f = fopen(path, "r");
	if (p.f == NULL) {
		int e = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return e == ENOENT ? MPP_ENOTFOUND : MPP_EIO;
	}
	/* The library's own mistakes: a line that is neither a comment, a
	 * [section] nor key = value; its first one's line. */
	int syntax = ini_parse_stream(read_line, &p, on_pair, &p);
	int failed = ferror(p.f);
	int e = errno;
	fclose(p.f);
	for (size_t i = 0; i < p.nseen; i++)
		free(p.seen[i].key);
	free(p.seen);
	if (failed) {
		snprintf(err, errlen, "%s: %s", path, strerror(e));
		return MPP_EIO;
	}
	if (p.nomem) {
		snprintf(err, errlen, "%s: out of memory", path);
		return MPP_ENOMEM;
	}
	if (syntax > 0 && (p.err_line == 0 || syntax < p.err_line)) {
		snprintf(err, errlen,
			 "%s:%d: expected 'key = value', a [section] line or "
			 "a comment",
			 path, syntax);
		return MPP_EINVAL;
	}
	if (p.err_line != 0) {
		snprintf(err, errlen, "%s:%d: %s", path, p.err_line, p.why);
		return MPP_EINVAL;
	}
	return MPP_OK;
}
