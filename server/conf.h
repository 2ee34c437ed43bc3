/*
 * conf.h: mpipredictd's configuration file, an INI file read with libinih.
 *
 * One section holds the settings, `key = value` per line, the keys being
 * the daemon's long options without "--"; lines starting with '#' or ';'
 * are comments. What a key means and which values it takes is the
 * caller's (main.c feeds each pair through the same code as the command
 * line); this file only reads the lines and says where a mistake is. Not
 * for the client's configuration (common/client.h).
 */
#ifndef MPP_SERVER_CONF_H
#define MPP_SERVER_CONF_H

#include <stddef.h>

/* Called for each setting in file order. Returns 0, or -1 with `why` set
 * to a message without the file and line (e.g. "unknown key 'thread'"). */
typedef int (*mpp_conf_set)(void *ctx, const char *key, const char *value,
			    char *why, size_t whylen);

/* Reads `path`, calling set() for each key of [section]. Returns 0;
 * MPP_ENOTFOUND when the file does not exist; MPP_EIO when it cannot be
 * read; MPP_EINVAL for the first mistake in it (a key outside [section] or
 * in another section, a key given twice, a line that is not key = value,
 * a line too long, set() refusing a value). err is "PATH:LINE: what" (or
 * "PATH: what" for a file that cannot be read). set() is not called again
 * after its first refusal. */
int mpp_conf_read(const char *path, const char *section, mpp_conf_set set,
		  void *ctx, char *err, size_t errlen);

#endif
