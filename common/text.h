/*
 * text.h: the one rule for text that enters the store, whatever the route
 * (POST /v1/predict's audit labels, POST /v1/runs, POST /v1/jobs and
 * mpipredict-jobcomp): strictly UTF-8 (utf8.h: no overlong forms, no
 * surrogates, nothing past U+10FFFF), no NUL byte (C code after the check
 * would silently cut the text there), and for short labels (an app, a
 * user, a partition, an account, a job name, a run or job id) no control
 * byte and at most MPP_TEXT_MAX_LABEL bytes. A reader of the store (a
 * report, Python's sqlite3, a browser) can then always decode what it
 * finds. Not for numbers or file formats: their parsers check those.
 */
#ifndef MPP_COMMON_TEXT_H
#define MPP_COMMON_TEXT_H

#include <stddef.h>

/* The longest label, in bytes: what the audit and the jobs table hold. */
#define MPP_TEXT_MAX_LABEL 256

enum mpp_text_kind {
	MPP_TEXT_FREE,  /* free text (arguments, a script): UTF-8, no NUL */
	MPP_TEXT_LABEL, /* a label: also no control byte, at most 256 bytes */
};

/* 0 when s[0..len) follows the rule for its kind; else -1 with err naming
 * the field `what` and the first fault ("user: 300 bytes, longer than the
 * limit of 256", "JOBNAME: contains a control byte (0x0a at byte 3)"). */
int mpp_text_check(const char *what, const char *s, size_t len,
		   enum mpp_text_kind kind, char *err, size_t errlen);

#endif
