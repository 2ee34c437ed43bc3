/*
 * text.c: the rule for text that enters the store (text.h), checked in
 * the order a person fixes things: a NUL first (the rest of the text may
 * be lost), then the encoding, then control bytes, then the length.
 */
#include "common/text.h"

#include <stdio.h>
#include <string.h>

#include "common/utf8.h"

int mpp_text_check(const char *what, const char *s, size_t len,
		   enum mpp_text_kind kind, char *err, size_t errlen)
{
	if (memchr(s, '\0', len) != NULL) {
		snprintf(err, errlen, "%s: contains a NUL byte", what);
		return -1;
	}
	size_t at = mpp_utf8_check(s, len);
	if (at < len) {
		snprintf(err, errlen, "%s: not valid UTF-8 (byte %zu)", what,
			 at);
		return -1;
	}
	if (kind != MPP_TEXT_LABEL)
		return 0;
	/* Control bytes in a label break the log lines, tab-separated
	 * records and tables that print it; UTF-8 never has these bytes
	 * inside a multi-byte sequence, so a byte scan is exact. */
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c < 0x20 || c == 0x7f) {
			snprintf(err, errlen,
				 "%s: contains a control byte (0x%02x at byte "
				 "%zu)",
				 what, c, i);
			return -1;
		}
	}
	if (len > MPP_TEXT_MAX_LABEL) {
		snprintf(err, errlen,
			 "%s: %zu bytes, longer than the limit of %d", what,
			 len, MPP_TEXT_MAX_LABEL);
		return -1;
	}
	return 0;
}
