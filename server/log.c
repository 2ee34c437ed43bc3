/*
 * log.c: level-filtered log lines on stderr for mpipredictd (see log.h).
 * Each line carries an ISO-8601 UTC time stamp and the level's name.
 */
#include "server/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const level_names[] = {"error", "warn", "info", "debug"};

static atomic_int current_level = MPP_LOG_WARN;

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
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(line + n, sizeof line - n, fmt, ap);
	va_end(ap);
	n = k < 0 ? n : n + (size_t)k;
	if (n > sizeof line - 2)
		n = sizeof line - 2;
	line[n++] = '\n';
	ssize_t w = write(STDERR_FILENO, line, n);
	(void)w;
}
