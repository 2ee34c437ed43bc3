/*
 * log.c: level-filtered log lines on stderr for mpipredictd (see log.h).
 * Each line carries an ISO-8601 UTC time stamp and the level's name; the
 * message's control bytes are escaped, so one call is always one line.
 */
#include "server/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const level_names[] = {"error", "warn", "notice", "info",
					  "debug"};

static atomic_int current_level = MPP_LOG_DEFAULT;

int mpp_log_parse_level(const char *s)
{
	for (int i = 0; i < (int)(sizeof level_names / sizeof *level_names);
	     i++)
		if (strcmp(s, level_names[i]) == 0)
			return i;
	return -1;
}

void mpp_log_set_level(int level)
{
	atomic_store(&current_level, level);
}

int mpp_log_enabled(int level)
{
	return level <=
	       atomic_load_explicit(&current_level, memory_order_relaxed);
}

void mpp_log(int level, const char *fmt, ...)
{
	if (!mpp_log_enabled(level))
		return;
	char line[1024];
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(line, sizeof line, "%Y-%m-%dT%H:%M:%S", &tm);
	n += (size_t)snprintf(line + n, sizeof line - n, ".%03ldZ %s ",
			      ts.tv_nsec / 1000000, level_names[level]);
	char msg[sizeof line];
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	size_t mlen = k < 0 ? 0 : (size_t)k;
	if (mlen > sizeof msg - 1)
		mlen = sizeof msg - 1;
	/* Control bytes (a "%0a" in a requested path, decoded) are written
	 * as \xNN: a client must not be able to start a log line of its
	 * own. */
	for (size_t i = 0; i < mlen && n < sizeof line - 5; i++) {
		unsigned char c = (unsigned char)msg[i];
		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(line + n, 5, "\\x%02x", c);
		else
			line[n++] = (char)c;
	}
	if (n > sizeof line - 2)
		n = sizeof line - 2;
	line[n++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, n);
	(void)w;
}
