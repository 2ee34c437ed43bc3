/*
 * log.h: mpipredictd's log lines on stderr, filtered by level.
 *
 * One line per call, written with a single write(2) so that lines from
 * different threads never interleave. Not for the per-request metrics
 * (metrics.h) and not for library code, which reports through error buffers.
 */
#ifndef MPP_SERVER_LOG_H
#define MPP_SERVER_LOG_H

enum mpp_log_level {
	MPP_LOG_ERROR = 0,
	MPP_LOG_WARN = 1,
	/* Shown at the default level: the start and stop lines, each
	 * retraining, promotion and rejection; a few lines a day. */
	MPP_LOG_NOTICE = 2,
	MPP_LOG_INFO = 3, /* one line per request */
	MPP_LOG_DEBUG = 4,
};

/* The level before mpp_log_set_level() is called. */
#define MPP_LOG_DEFAULT MPP_LOG_NOTICE

/* Parses "error", "warn", "notice", "info" or "debug"; -1 for anything
 * else. */
int mpp_log_parse_level(const char *s);

void mpp_log_set_level(int level);

/* Non-zero when a message at `level` would be written (to skip formatting). */
int mpp_log_enabled(int level);

void mpp_log(int level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
