/*
 * client.c: the client configuration (environment, INI file through
 * libinih) and one authenticated POST (libcurl). See client.h.
 * Not for: anything users' programs load (libmpipredict spawns
 * mpipredict-collect rather than link this).
 */
#include <curl/curl.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/client.h"

/* An answer larger than this is cut: only error messages are read. */
#define ANSWER_MAX (1 << 20)

struct parse {
	const char *path;
	char *url, *token_file;
	long timeout_ms;
	double progress_s;
	int seen_url, seen_token, seen_timeout, seen_progress;
	FILE *f;
	int lineno;    /* lines read so far (the handler's line) */
	int refused;   /* line of our handler's first refusal, or 0 */
	char msg[512]; /* why */
};

/* Debian's libinih is built without INI_HANDLER_LINENO: the handler does
 * not see line numbers, so the reader counts them. ini_parse returns the
 * first line that failed: our message when it is the line our handler
 * refused, else the line was not "key = value" nor "[section]". */
static char *read_line(char *str, int num, void *user)
{
	struct parse *p = user;
	char *got = fgets(str, num, p->f);

	if (got)
		p->lineno++;
	return got;
}
__attribute__((format(printf, 2, 3))) static int
parse_error(struct parse *p, const char *fmt, ...)
{
	va_list ap;

	if (!p->refused) {
		p->refused = p->lineno;
		va_start(ap, fmt);
		vsnprintf(p->msg, sizeof p->msg, fmt, ap);
		va_end(ap);
	}
	return 0;
}

/* A progress interval in seconds: 0 (off), or the minimum to the
 * maximum; a fraction is allowed (a test or a benchmark of short runs
 * wants several posts; a site keeps whole seconds). */
static int parse_progress(const char *value, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(value, &end);
	if (errno || end == value || *end || !isfinite(v) ||
	    (v != 0 && v < MPP_CLIENT_PROGRESS_MIN) ||
	    v > MPP_CLIENT_PROGRESS_MAX)
		return -1;
	*out = v;
	return 0;
}

/* libinih's handler: one key of the file. */
static int on_key(void *user, const char *section, const char *name,
		  const char *value)
{
	struct parse *p = user;
	char *end;
	long v;
	int *seen;

	if (!*section)
		return parse_error(p,
				   "key '%s' before [client]; put it under "
				   "[client]",
				   name);
	if (strcmp(section, "client") != 0)
		return parse_error(p,
				   "key '%s' in unknown section [%s]; the "
				   "only section is [client]",
				   name, section);
	if (!strcmp(name, "url"))
		seen = &p->seen_url;
	else if (!strcmp(name, "token_file"))
		seen = &p->seen_token;
	else if (!strcmp(name, "timeout_ms"))
		seen = &p->seen_timeout;
	else if (!strcmp(name, "progress_s"))
		seen = &p->seen_progress;
	else
		return parse_error(p,
				   "unknown key '%s'; known keys of [client]: "
				   "url, token_file, timeout_ms, progress_s",
				   name);
	if (*seen)
		return parse_error(p, "'%s' set twice; keep one", name);
	*seen = 1;
	if (!*value)
		return parse_error(p, "'%s' has no value", name);
	if (seen == &p->seen_url) {
		free(p->url);
		p->url = strdup(value);
	} else if (seen == &p->seen_token) {
		free(p->token_file);
		p->token_file = strdup(value);
	} else if (seen == &p->seen_progress) {
		if (parse_progress(value, &p->progress_s) < 0)
			return parse_error(p,
					   "progress_s '%s' is not a number "
					   "of seconds: 0 (off), or %g to %d",
					   value, MPP_CLIENT_PROGRESS_MIN,
					   MPP_CLIENT_PROGRESS_MAX);
	} else {
		errno = 0;
		v = strtol(value, &end, 10);
		if (errno || *end || v < 1 || v > 600000)
			return parse_error(p,
					   "timeout_ms '%s' is not a whole "
					   "number of milliseconds from 1 to "
					   "600000",
					   value);
		p->timeout_ms = v;
	}
	return 1;
}

/* url as the daemon's base: http:// or https://, trailing '/' dropped. */
static int check_url(char *url, const char *where, char *err, size_t errlen)
{
	size_t n = strlen(url);

	if (strncmp(url, "http://", 7) != 0 &&
	    strncmp(url, "https://", 8) != 0) {
		snprintf(err, errlen,
			 "%s: url '%s' is not http://HOST:PORT or "
			 "https://HOST:PORT",
			 where, url);
		return -1;
	}
	while (n > 8 && url[n - 1] == '/')
		url[--n] = '\0';
	if (strchr(url + 8, '/') || strpbrk(url, " \t\"")) {
		snprintf(err, errlen,
			 "%s: url '%s' has a path or blanks; give only "
			 "http://HOST:PORT",
			 where, url);
		return -1;
	}
	return 0;
}

/* The token file's first line without surrounding blanks, as mpipredictd
 * reads its --token-file. */
static char *read_token(const char *path, const char *where, char *err,
			size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[4096], *got, *s;
	size_t n;

	if (!f) {
		snprintf(err, errlen,
			 "%s: token file %s: %s; fix token_file or "
			 "MPIPREDICT_TOKEN_FILE",
			 where, path, strerror(errno));
		return NULL;
	}
	got = fgets(line, sizeof line, f);
	fclose(f);
	s = got ? line + strspn(line, " \t") : line;
	n = got ? strcspn(s, "\r\n") : 0;
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		n--;
	if (n == 0) {
		snprintf(err, errlen, "%s: line 1: empty token", path);
		return NULL;
	}
	s = strndup(s, n);
	if (!s)
		snprintf(err, errlen, "out of memory reading %s", path);
	return s;
}

void mpp_client_conf_free(mpp_client_conf *c)
{
	free(c->url);
	free(c->token);
	free(c->source);
	memset(c, 0, sizeof *c);
}

int mpp_client_conf_load(mpp_client_conf *c, char *err, size_t errlen)
{
	const char *conf = getenv("MPIPREDICT_CLIENT_CONF");
	const char *env_url = getenv("MPIPREDICT_URL");
	const char *env_token = getenv("MPIPREDICT_TOKEN_FILE");
	const char *env_progress = getenv("MPIPREDICT_PROGRESS_S");
	struct parse p = {.timeout_ms = MPP_CLIENT_TIMEOUT_DEFAULT,
			  .progress_s = MPP_CLIENT_PROGRESS_DEFAULT};
	const char *token_where;
	struct stat st;
	int rc, have_file;

	memset(c, 0, sizeof *c);
	if (!conf || !*conf)
		conf = MPP_CLIENT_CONF_DEFAULT;
	p.path = conf;
	have_file = stat(conf, &st) == 0;
	if (have_file) {
		p.f = fopen(conf, "r");
		if (!p.f) {
			snprintf(err, errlen, "%s: cannot read: %s", conf,
				 strerror(errno));
			goto fail;
		}
		rc = ini_parse_stream(read_line, &p, on_key, &p);
		fclose(p.f);
		if (rc == -2) {
			snprintf(err, errlen, "out of memory reading %s", conf);
			goto fail;
		}
		if (rc > 0) {
			/* Our handler's message when it refused a key,
			 * else libinih's own refusal: a line that is
			 * neither "key = value" nor "[section]". */
			if (p.refused == rc)
				snprintf(err, errlen, "%s:%d: %s", conf, rc,
					 p.msg);
			else
				snprintf(err, errlen,
					 "%s:%d: not a 'key = value' line nor "
					 "a [section] (or over %d characters)",
					 conf, rc, ini_max_line - 3);
			goto fail;
		}
		if ((p.seen_url && !p.url) || (p.seen_token && !p.token_file)) {
			snprintf(err, errlen, "out of memory reading %s", conf);
			goto fail;
		}
	}
	if (env_url && *env_url) {
		c->url = strdup(env_url);
		c->source = strdup("MPIPREDICT_URL");
	} else if (p.url) {
		c->url = p.url;
		p.url = NULL;
		c->source = strdup(conf);
	} else {
		/* A file without url names no daemon. */
		rc = 1;
		goto out;
	}
	if (!c->url || !c->source) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (check_url(c->url, c->source, err, errlen) < 0)
		goto fail;
	c->timeout_ms = p.timeout_ms;
	c->progress_s = p.progress_s;
	if (env_progress && *env_progress &&
	    parse_progress(env_progress, &c->progress_s) < 0) {
		snprintf(err, errlen,
			 "MPIPREDICT_PROGRESS_S '%s' is not a number of "
			 "seconds: 0 (off), or %g to %d",
			 env_progress, MPP_CLIENT_PROGRESS_MIN,
			 MPP_CLIENT_PROGRESS_MAX);
		goto fail;
	}
	token_where = conf;
	if (env_token && *env_token) {
		free(p.token_file);
		p.token_file = strdup(env_token);
		token_where = "MPIPREDICT_TOKEN_FILE";
		if (!p.token_file) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
	}
	if (p.token_file) {
		c->token = read_token(p.token_file, token_where, err, errlen);
		if (!c->token)
			goto fail;
	}
	rc = 0;
	goto out;
fail:
	rc = -1;
out:
	if (rc != 0)
		mpp_client_conf_free(c);
	free(p.url);
	free(p.token_file);
	return rc;
}

struct answer {
	char *buf;
	size_t len;
};

static size_t on_data(char *data, size_t size, size_t nmemb, void *user)
{
	struct answer *a = user;
	size_t n = size * nmemb, keep = n;
	char *b;

	if (a->len + keep > ANSWER_MAX)
		keep = ANSWER_MAX - a->len;
	if (keep == 0)
		return n;
	b = realloc(a->buf, a->len + keep + 1);
	if (!b)
		return 0; /* libcurl stops with CURLE_WRITE_ERROR */
	memcpy(b + a->len, data, keep);
	a->buf = b;
	a->len += keep;
	a->buf[a->len] = '\0';
	return n;
}

int mpp_client_post(const mpp_client_conf *c, const char *path,
		    const char *content_type, const char *body, size_t len,
		    long *http_status, char **answer, char *err, size_t errlen)
{
	char url[4096], hdr[4200], cerr[CURL_ERROR_SIZE] = "";
	struct curl_slist *h = NULL, *t;
	struct answer a = {NULL, 0};
	CURL *curl;
	CURLcode cc;
	int rc = -1;

	*http_status = 0;
	if (answer)
		*answer = NULL;
	if ((size_t)snprintf(url, sizeof url, "%s%s", c->url, path) >=
	    sizeof url) {
		snprintf(err, errlen, "url too long: %s%s", c->url, path);
		return -1;
	}
	curl = curl_easy_init();
	if (!curl) {
		snprintf(err, errlen, "cannot start libcurl");
		return -1;
	}
	snprintf(hdr, sizeof hdr, "Content-Type: %s", content_type);
	/* "Expect:" off: libcurl would otherwise wait for 100 Continue
	 * before a body over 1 KiB, up to a second. */
	t = curl_slist_append(h, hdr);
	h = t ? curl_slist_append(t, "Expect:") : NULL;
	if (h && c->token) {
		snprintf(hdr, sizeof hdr, "Authorization: Bearer %s", c->token);
		t = curl_slist_append(h, hdr);
		h = t ? t : (curl_slist_free_all(h), NULL);
	}
	if (!h) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_HTTPHEADER, h);
	curl_easy_setopt(curl, CURLOPT_POST, 1L);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
	/* The daemon is named by the site: an http_proxy of the user's
	 * environment must not reroute (or leak the token to) it. */
	curl_easy_setopt(curl, CURLOPT_PROXY, "");
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, c->timeout_ms);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, c->timeout_ms);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_data);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &a);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, cerr);
	cc = curl_easy_perform(curl);
	if (cc != CURLE_OK) {
		snprintf(err, errlen, "%s: %s", url,
			 *cerr ? cerr : curl_easy_strerror(cc));
		goto out;
	}
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, http_status);
	if (answer) {
		*answer = a.buf ? a.buf : strdup("");
		a.buf = NULL;
	}
	rc = 0;
out:
	free(a.buf);
	curl_slist_free_all(h);
	curl_easy_cleanup(curl);
	return rc;
}
