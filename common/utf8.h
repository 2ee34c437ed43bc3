/*
 * utf8.h: strict UTF-8 checking for what mpipredictd reads and echoes,
 * and for the text every route into the store takes (common/text.h).
 *
 * yajl's parser and generator check only the shape of multi-byte
 * sequences: they let through overlong forms (C0 AF for '/'), UTF-16
 * surrogates (ED A0 80, or "\ud800" decoded) and code points above
 * U+10FFFF, which strict decoders (browsers, Python, Go) reject. Every
 * string the daemon takes from a request, and every string it writes into
 * an answer, is checked here (RFC 3629). Not for transcoding.
 */
#ifndef MPP_COMMON_UTF8_H
#define MPP_COMMON_UTF8_H

#include <stddef.h>

/* The offset of the first byte of s[0..n) that does not start a valid
 * UTF-8 sequence, or n when all of it is valid. NUL bytes are valid
 * UTF-8: callers that need C strings check for them on their own. */
size_t mpp_utf8_check(const char *s, size_t n);

/* The length of the valid sequence at s[0..n), or 0 when it is not one. */
size_t mpp_utf8_seq(const unsigned char *s, size_t n);

#endif
