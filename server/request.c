/*
 * request.c: POST /v1/predict's body through yajl's event parser (see
 * request.h).
 *
 * The decoder follows the nesting with a depth counter: depth 1 is the
 * top-level object, whose keys name fields; depth 2 is inside "features",
 * "args" or "argv"; anything else (an unknown field's value, a value of the
 * wrong type) is skipped until its container closes. A wrong field is
 * noted and the parse goes on, so that a syntax error later in the body is
 * still reported as such (it wins). Every string fits in one buffer as
 * large as the body: a decoded string and its NUL never take more bytes
 * than its quoted form.
 */
#include "server/request.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "server/strmap.h"
#include "common/text.h"
#include "common/utf8.h"

enum field {
	F_UNKNOWN,
	F_APP,
	F_USER,
	F_PARTITION,
	F_SCRIPT,
	F_JOB_ID,
	F_NTASKS,
	F_NODES,
	F_PER_NODE,
	F_TIME_LIMIT,
	F_FEATURES,
	F_ARGS,
	F_ARGV,
	F_SUBMIT_LINE,
	F_UID,
};

static const char *const field_names[] = {
    NULL,       "app",    "user",  "partition",       "script",
    "job_id",   "ntasks", "nodes", "ntasks_per_node", "time_limit_s",
    "features", "args",   "argv",  "submit_line",     "uid",
};
#define NFIELDS (sizeof field_names / sizeof *field_names)

enum kind { K_NULL, K_BOOL, K_NUMBER, K_STRING, K_MAP, K_ARRAY };

struct decoder {
	mpp_request *q;
	size_t max_features;
	int depth; /* 0 outside, 1 in the top object, 2 in a field's value */
	int skip;  /* non-zero: skipping until the container at this depth
		      closes */
	int field; /* the top-level key last read */
	unsigned seen;
	const char *feature; /* the feature name last read */
	mpp_strmap names;    /* feature names seen */
	size_t args_cap, argv_cap, features_cap;
	char *err;
	size_t errlen;
	int failed, nomem;
	size_t used; /* bytes of q->strings taken */
	/* The body's first lone surrogate escape (NO_LONE: none), and
	 * whether the string being read holds it (lone_surrogate). */
	yajl_handle h;
	size_t lone_at;
	int lone, lone_seen;
	const char *body;
};

#define NO_LONE ((size_t)-1)

static int hex4(const char *s, unsigned *v)
{
	*v = 0;
	for (int i = 0; i < 4; i++) {
		char c = s[i];
		unsigned x = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
			     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
						    : 16;
		if (x == 16)
			return 0;
		*v = *v * 16 + x;
	}
	return 1;
}

/* The offset of the first \uXXXX escape in a JSON text that is a lone
 * UTF-16 surrogate (a high one not followed by a low one, or a low one
 * alone), or NO_LONE. yajl decodes "\ud800\u0041" as U+10041 and a
 * high one before anything else as '?', so its strings cannot tell;
 * the text can. A backslash in valid JSON always starts an escape (an
 * escaped backslash is skipped whole), so no string tracking is needed;
 * invalid JSON is yajl's to refuse. */
static size_t lone_surrogate(const char *s, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (s[i] != '\\')
			continue;
		unsigned v, w;
		if (s[i + 1] != 'u' || i + 6 > len || !hex4(s + i + 2, &v)) {
			i++; /* another escape: its character is not a '\\' */
			continue;
		}
		if (v >= 0xDC00 && v <= 0xDFFF)
			return i;
		if (v >= 0xD800 && v <= 0xDBFF) {
			if (i + 12 > len || s[i + 6] != '\\' ||
			    s[i + 7] != 'u' || !hex4(s + i + 8, &w) ||
			    w < 0xDC00 || w > 0xDFFF)
				return i;
			i += 6;
		}
		i += 5;
	}
	return NO_LONE;
}

/* Whether the string token yajl just read holds the lone surrogate:
 * the first one to end past it (a string is one token). */
static int lone_here(struct decoder *d)
{
	if (d->lone_at == NO_LONE || d->lone_seen ||
	    yajl_get_bytes_consumed(d->h) <= d->lone_at)
		return 0;
	d->lone_seen = 1;
	return 1;
}

__attribute__((format(printf, 2, 3))) static void fail(struct decoder *d,
						       const char *fmt, ...)
{
	if (d->failed)
		return;
	d->failed = 1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(d->err, d->errlen, fmt, ap);
	va_end(ap);
	/* Every name echoed here was checked to be UTF-8, but a message cut
	 * at errlen can end inside a character: end it before that one. */
	size_t n = strlen(d->err);
	d->err[mpp_utf8_check(d->err, n)] = '\0';
}

/* The first NAME_SHOWN bytes of a request's name, cut at a character
 * boundary and marked "..." when cut, for an error message to quote: a
 * name may be as long as the body, an error is one short line. `name` is
 * known to be UTF-8 (bad_text). */
enum { NAME_SHOWN = 64 };
static const char *shown(const char *name, char out[NAME_SHOWN + 4])
{
	size_t n = strlen(name);
	if (n <= NAME_SHOWN)
		return name;
	size_t k = 0;
	for (;;) {
		size_t c = mpp_utf8_seq((const unsigned char *)name + k, n - k);
		if (c == 0 || k + c > NAME_SHOWN)
			break;
		k += c;
	}
	memcpy(out, name, k);
	memcpy(out + k, "...", 4);
	return out;
}

static const char *copy(struct decoder *d, const unsigned char *s, size_t len)
{
	char *c = d->q->strings + d->used;
	memcpy(c, s, len);
	c[len] = '\0';
	d->used += len + 1;
	return c;
}

/* A string the request gives, checked by the rule every route into the
 * store follows (common/text.h): strictly UTF-8 without NUL bytes (C code
 * after this would silently drop what follows a NUL: "heat\u0000x" read as
 * "heat"; yajl lets overlong forms, surrogates and code points past
 * U+10FFFF through), and for the short labels that go to the audit no
 * control byte and at most MPP_REQUEST_MAX_LABEL bytes. `what` names the
 * field; 0 when it is fine. */
static int bad_text(struct decoder *d, const char *s, size_t len,
		    const char *what, int label)
{
	char err[256];
	if (d->lone) {
		d->lone = 0;
		fail(d,
		     "%s: a lone UTF-16 surrogate escape (%.6s at byte %zu "
		     "of the body): a character past U+FFFF is written as a "
		     "pair, \\uD800-\\uDBFF then \\uDC00-\\uDFFF",
		     what, d->body + d->lone_at, d->lone_at);
		return 1;
	}
	if (mpp_text_check(what, s, len, label ? MPP_TEXT_LABEL : MPP_TEXT_FREE,
			   err, sizeof err) == 0)
		return 0;
	fail(d, "%s", err);
	return 1;
}

/* Appends to a growing array of n elements of `size` bytes; NULL when out
 * of memory. */
static void *grow(void *arr, size_t n, size_t *cap, size_t size)
{
	if (n < *cap)
		return arr;
	size_t c = *cap ? *cap * 2 : 16;
	void *a = realloc(arr, c * size);
	if (a != NULL)
		*cap = c;
	return a;
}

/* A number token's value; sets *ok to 0 when it overflows (JSON numbers
 * are finite, so that is the body's fault). */
static double number(struct decoder *d, const char *s, size_t len, int *ok)
{
	char small[128], *buf = small;
	if (len >= sizeof small) {
		buf = malloc(len + 1);
		if (buf == NULL) {
			d->nomem = 1;
			*ok = 0;
			return 0;
		}
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	double x = strtod(buf, NULL);
	*ok = isfinite(x);
	if (!*ok)
		fail(d, "body: invalid JSON: number %.40s out of range", buf);
	if (buf != small)
		free(buf);
	return x;
}

static int is_integer_token(const char *s, size_t len)
{
	return memchr(s, '.', len) == NULL && memchr(s, 'e', len) == NULL &&
	       memchr(s, 'E', len) == NULL;
}

static void count_field(struct decoder *d, double *out, const char *name,
			const char *s, size_t len)
{
	int ok;
	double x = number(d, s, len, &ok);
	if (ok && !(x >= 1 && x <= 1e9 && x == floor(x)))
		fail(d, "%s: expected a positive integer up to 1e9", name);
	else if (ok)
		*out = x;
}

static void type_error(struct decoder *d, int field)
{
	switch (field) {
	case F_APP:
	case F_USER:
	case F_PARTITION:
	case F_SCRIPT:
	case F_SUBMIT_LINE:
		fail(d, "%s: expected a string", field_names[field]);
		break;
	case F_UID:
		fail(d, "uid: expected an integer from 0 to 4294967295");
		break;
	case F_JOB_ID:
		fail(d, "job_id: expected a string or integer");
		break;
	case F_NTASKS:
	case F_NODES:
	case F_PER_NODE:
		fail(d, "%s: expected a positive integer up to 1e9",
		     field_names[field]);
		break;
	case F_TIME_LIMIT:
		fail(d, "time_limit_s: expected a number >= 0");
		break;
	case F_FEATURES:
		fail(d, "features: expected an object");
		break;
	case F_ARGS:
		fail(d, "args: expected an array of strings or a string");
		break;
	case F_ARGV:
		fail(d, "argv: expected an array of strings");
		break;
	}
}

/* A scalar value of a top-level field. */
static void field_value(struct decoder *d, int kind, const char *s, size_t len)
{
	mpp_request *q = d->q;
	if (d->field == F_UNKNOWN || kind == K_NULL)
		return;
	switch (d->field) {
	case F_APP:
	case F_USER:
	case F_PARTITION:
	case F_SCRIPT:
	case F_SUBMIT_LINE:
		if (kind == K_STRING) {
			int label = d->field == F_APP || d->field == F_USER ||
				    d->field == F_PARTITION;
			if (bad_text(d, s, len, field_names[d->field], label))
				return;
			const char *v = copy(d, (const unsigned char *)s, len);
			if (d->field == F_APP)
				q->app = v;
			else if (d->field == F_SUBMIT_LINE) {
				q->submit_line = v;
				q->submit_line_len = len;
			} else if (d->field == F_USER)
				q->user = v;
			else if (d->field == F_PARTITION)
				q->partition = v;
			else {
				q->script = v;
				q->script_len = len;
			}
			return;
		}
		break;
	case F_JOB_ID:
		if (kind == K_STRING ||
		    (kind == K_NUMBER && is_integer_token(s, len))) {
			if (bad_text(d, s, len, "job_id", 1))
				return;
			q->job_id = copy(d, (const unsigned char *)s, len);
			return;
		}
		break;
	case F_NTASKS:
	case F_NODES:
	case F_PER_NODE:
		if (kind != K_NUMBER)
			break;
		count_field(d,
			    d->field == F_NTASKS  ? &q->ntasks
			    : d->field == F_NODES ? &q->nodes
						  : &q->per_node,
			    field_names[d->field], s, len);
		return;
	case F_UID:
		if (kind == K_NUMBER) {
			int ok;
			double x = number(d, s, len, &ok);
			if (!ok)
				return;
			if (x >= 0 && x <= 4294967295.0 && x == floor(x)) {
				q->uid = x;
				return;
			}
		}
		break;
	case F_TIME_LIMIT:
		if (kind == K_NUMBER) {
			int ok;
			double x = number(d, s, len, &ok);
			if (ok && !(x >= 0))
				break;
			if (ok)
				q->time_limit_s = x;
			return;
		}
		break;
	case F_ARGS:
		if (kind == K_STRING) {
			q->has_args = 1;
			if (bad_text(d, s, len, "args", 0))
				return;
			q->args_string = copy(d, (const unsigned char *)s, len);
			return;
		}
		break;
	}
	type_error(d, d->field);
}

/* A scalar inside "features", "args" or "argv". */
static void element(struct decoder *d, int kind, const char *s, size_t len)
{
	mpp_request *q = d->q;
	if (d->field == F_FEATURES) {
		int ok = kind == K_NUMBER;
		double x = ok ? number(d, s, len, &ok) : 0;
		if (ok && !(x >= 0))
			ok = 0;
		if (!ok) {
			char buf[NAME_SHOWN + 4];
			fail(d, "features.%s: expected a finite number >= 0",
			     shown(d->feature, buf));
			return;
		}
		if (d->failed)
			return;
		q->features[q->nfeatures].name = d->feature;
		q->features[q->nfeatures++].value = x;
		return;
	}
	int is_args = d->field == F_ARGS;
	size_t n = is_args ? q->nargs : q->nargv;
	if (kind != K_STRING) {
		fail(d, "%s[%zu]: expected a string", is_args ? "args" : "argv",
		     n);
		return;
	}
	char what[32];
	snprintf(what, sizeof what, "%s[%zu]", is_args ? "args" : "argv", n);
	if (bad_text(d, s, len, what, 0))
		return;
	const char ***arr = is_args ? &q->args : &q->argv;
	const char **a =
	    grow((void *)*arr, n, is_args ? &d->args_cap : &d->argv_cap,
		 sizeof **arr);
	if (a == NULL) {
		d->nomem = 1;
		return;
	}
	*arr = a;
	a[n] = copy(d, (const unsigned char *)s, len);
	if (is_args)
		q->nargs++;
	else
		q->nargv++;
}

static int scalar(struct decoder *d, int kind, const char *s, size_t len)
{
	if (d->skip)
		return 1;
	if (d->depth == 0)
		fail(d, "body: expected a JSON object");
	else if (d->depth == 1)
		field_value(d, kind, s, len);
	else
		element(d, kind, s, len);
	return !d->nomem;
}

static int open_container(struct decoder *d, int kind)
{
	d->depth++;
	if (d->skip)
		return 1;
	if (d->depth == 1) {
		if (kind != K_MAP) {
			fail(d, "body: expected a JSON object");
			d->skip = d->depth;
		}
		return 1;
	}
	if (d->depth == 2) {
		mpp_request *q = d->q;
		if (d->field == F_FEATURES && kind == K_MAP) {
			q->has_features = 1;
			/* Sized for a typical request; it grows. */
			if (d->names.cap == 0 &&
			    mpp_strmap_init(&d->names, 32) != 0) {
				d->nomem = 1;
				return 0;
			}
		} else if (d->field == F_ARGS && kind == K_ARRAY)
			q->has_args = 1;
		else if (d->field == F_ARGV && kind == K_ARRAY)
			q->has_argv = 1;
		else {
			type_error(d, d->field);
			d->skip = d->depth;
		}
		return 1;
	}
	/* A container inside features, args or argv: a wrong element. */
	if (d->field == F_FEATURES) {
		char buf[NAME_SHOWN + 4];
		fail(d, "features.%s: expected a finite number >= 0",
		     shown(d->feature, buf));
	} else
		fail(d, "%s[%zu]: expected a string",
		     d->field == F_ARGS ? "args" : "argv",
		     d->field == F_ARGS ? d->q->nargs : d->q->nargv);
	d->skip = d->depth;
	return 1;
}

static int close_container(struct decoder *d)
{
	if (d->skip == d->depth)
		d->skip = 0;
	d->depth--;
	return 1;
}

/* A lone surrogate in a string no field check read (an unknown field, one
 * skipped): refused all the same, naming its place. */
static void lone_unread(struct decoder *d)
{
	if (!d->lone)
		return;
	d->lone = 0;
	fail(d,
	     "body: a lone UTF-16 surrogate escape (%.6s at byte %zu): a "
	     "character past U+FFFF is written as a pair, \\uD800-\\uDBFF "
	     "then \\uDC00-\\uDFFF",
	     d->body + d->lone_at, d->lone_at);
}

static int on_key_checked(void *ctx, const unsigned char *s, size_t len);

static int on_key(void *ctx, const unsigned char *s, size_t len)
{
	struct decoder *d = ctx;
	d->lone = lone_here(d);
	int r = on_key_checked(ctx, s, len);
	lone_unread(d);
	return r;
}

static int on_key_checked(void *ctx, const unsigned char *s, size_t len)
{
	struct decoder *d = ctx;
	if (d->skip)
		return 1;
	if (d->depth == 1) {
		d->field = F_UNKNOWN;
		for (size_t f = 1; f < NFIELDS; f++)
			if (strlen(field_names[f]) == len &&
			    memcmp(field_names[f], s, len) == 0) {
				d->field = (int)f;
				break;
			}
		if (d->field != F_UNKNOWN) {
			if (d->seen & (1u << d->field))
				fail(d, "%s: duplicate key",
				     field_names[d->field]);
			d->seen |= 1u << d->field;
		}
		return 1;
	}
	/* A feature name. */
	mpp_request *q = d->q;
	if (bad_text(d, (const char *)s, len, "features: a name", 0)) {
		d->skip = d->depth; /* the rest of the features */
		return 1;
	}
	d->feature = copy(d, s, len);
	if (q->nfeatures >= d->max_features) {
		fail(d, "features: more than the limit of %zu",
		     d->max_features);
		return 1;
	}
	int rc = mpp_strmap_put(&d->names, d->feature, len, 0);
	if (rc == 1) {
		char buf[NAME_SHOWN + 4];
		fail(d, "features: duplicate name '%s'",
		     shown(d->feature, buf));
	}
	mpp_kv *f = grow(q->features, q->nfeatures, &d->features_cap,
			 sizeof *q->features);
	if (rc < 0 || f == NULL) {
		d->nomem = 1;
		return 0;
	}
	q->features = f;
	return 1;
}

static int on_null(void *ctx)
{
	return scalar(ctx, K_NULL, NULL, 0);
}

static int on_bool(void *ctx, int b)
{
	(void)b;
	return scalar(ctx, K_BOOL, NULL, 0);
}

static int on_number(void *ctx, const char *s, size_t len)
{
	return scalar(ctx, K_NUMBER, s, len);
}

static int on_string(void *ctx, const unsigned char *s, size_t len)
{
	struct decoder *d = ctx;
	d->lone = lone_here(d);
	int r = scalar(ctx, K_STRING, (const char *)s, len);
	lone_unread(d);
	return r;
}

static int on_start_map(void *ctx)
{
	return open_container(ctx, K_MAP);
}

static int on_start_array(void *ctx)
{
	return open_container(ctx, K_ARRAY);
}

static int on_end(void *ctx)
{
	return close_container(ctx);
}

static const yajl_callbacks callbacks = {
    .yajl_null = on_null,
    .yajl_boolean = on_bool,
    .yajl_number = on_number,
    .yajl_string = on_string,
    .yajl_start_map = on_start_map,
    .yajl_map_key = on_key,
    .yajl_end_map = on_end,
    .yajl_start_array = on_start_array,
    .yajl_end_array = on_end,
};

int mpp_request_parse(const char *body, size_t len, size_t max_features,
		      mpp_request *q, char *err, size_t errlen)
{
	memset(q, 0, sizeof *q);
	q->ntasks = q->nodes = q->per_node = q->uid = q->time_limit_s = -1;
	err[0] = '\0';
	struct decoder d = {
	    .q = q,
	    .max_features = max_features,
	    .err = err,
	    .errlen = errlen,
	    .body = body,
	    .lone_at = lone_surrogate(body, len),
	};
	q->strings = malloc(len + 1);
	yajl_handle h = q->strings ? yajl_alloc(&callbacks, NULL, &d) : NULL;
	if (h == NULL) {
		mpp_request_free(q);
		return MPP_ENOMEM;
	}
	d.h = h;
	yajl_status st = yajl_parse(h, (const unsigned char *)body, len);
	if (st == yajl_status_ok)
		st = yajl_complete_parse(h);
	int rc = MPP_OK;
	if (d.nomem) {
		rc = MPP_ENOMEM;
	} else if (st != yajl_status_ok) {
		unsigned char *msg =
		    yajl_get_error(h, 0, (const unsigned char *)body, len);
		const char *m = msg ? (const char *)msg : "parse error";
		snprintf(err, errlen, "body: invalid JSON at byte %zu: %.*s",
			 yajl_get_bytes_consumed(h), (int)strcspn(m, "\n"), m);
		if (msg)
			yajl_free_error(h, msg);
		rc = MPP_EINVAL;
	} else if (d.failed) {
		rc = MPP_EINVAL;
	}
	yajl_free(h);
	mpp_strmap_free(&d.names);
	if (rc != MPP_OK)
		mpp_request_free(q);
	return rc;
}

void mpp_request_free(mpp_request *q)
{
	free(q->features);
	free(q->args);
	free(q->argv);
	free(q->strings);
	memset(q, 0, sizeof *q);
	q->ntasks = q->nodes = q->per_node = q->uid = q->time_limit_s = -1;
}
