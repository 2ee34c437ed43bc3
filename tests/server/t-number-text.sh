#!/bin/sh
# The daemon's own number conversions give exactly what the C library's do
# (issue 36 took them off strtod and snprintf for speed): a request's
# number tokens read as strtod reads them (request.c's number_fast), and an
# answer's times written as printf("%.17g") writes them
# (mpp_format_g17). A million random values and tokens each, with the
# edges (binade starts, the switch to exponent notation, ties, 19 digits).
set -u
command -v cc >/dev/null || { echo "no C compiler"; exit 77; }
cat >check.c <<'C'
#include "server/request.c"
#include "common/answer.h"

static unsigned long long st = 88172645463325252ull;
static unsigned long long rnd(void)
{
	st ^= st << 13;
	st ^= st >> 7;
	st ^= st << 17;
	return st;
}

static double scaled(void)
{
	return (double)(rnd() >> 11) / 9007199254740992.0 *
	       pow(10, (int)(rnd() % 30) - 10);
}

int main(void)
{
	long bad = 0, fast = 0;
	char a[64], b[MPP_G17_LEN], tok[64];
	for (long i = 0; i < 1000000; i++) {
		unsigned long long r = rnd();
		double x;
		switch (i % 4) {
		case 0:
			memcpy(&x, &r, sizeof x);
			break;
		case 1:
			x = (double)(r % 100000000) / 100.0;
			break;
		case 2:
			x = ldexp((double)(r >> 11), -(int)(rnd() % 80));
			break;
		default:
			x = scaled();
		}
		if (rnd() & 1)
			x = -x;
		snprintf(a, sizeof a, "%.17g", x);
		mpp_format_g17(x, b);
		if (strcmp(a, b) && bad++ < 5)
			printf("format: %s written as %s\n", a, b);
		/* Tokens: what printf writes at 1 to 19 digits, and
		 * digit strings with a point anywhere. */
		if (i % 3 == 2) {
			int nd = (int)(rnd() % 19) + 1, pt = (int)(rnd() % nd);
			char *q = tok;
			*q++ = (char)('1' + rnd() % 9);
			for (int j = 1; j < nd; j++) {
				if (j == pt)
					*q++ = '.';
				*q++ = (char)('0' + rnd() % 10);
			}
			*q = '\0';
		} else if (isfinite(x)) {
			snprintf(tok, sizeof tok, "%.*g",
				 i % 3 ? (int)(rnd() % 19) + 1 : 17, scaled());
		} else
			continue;
		double want = strtod(tok, NULL), got;
		if (number_fast(tok, strlen(tok), &got)) {
			fast++;
			if (memcmp(&want, &got, sizeof got) && bad++ < 5)
				printf("read: %s as %.17g, strtod %.17g\n", tok,
				       got, want);
		}
	}
	const double edge[] = {1e-4, 9.9999999999999991e-05, 1e-5, 1e16, 1e17,
			       99999999999999984.0, 9007199254740992.0,
			       1125899906842624.25, 1125899906842624.75, 0.1,
			       5e-324, 2.2250738585072014e-308, -0.0, 0.0,
			       1.7976931348623157e308, 4503599627370496.5};
	for (size_t i = 0; i < sizeof edge / sizeof *edge; i++) {
		snprintf(a, sizeof a, "%.17g", edge[i]);
		mpp_format_g17(edge[i], b);
		if (strcmp(a, b) && bad++ < 10)
			printf("format: %s written as %s\n", a, b);
	}
	const char *toks[] = {"0", "-0", "0.000", "9007199254740993",
			      "9999999999999999999", "1e22", "1e-22",
			      "123456789012345678e-22", "4.9406564584124654e-4",
			      "0.30000000000000004", "2.5e+3", "7E-1"};
	for (size_t i = 0; i < sizeof toks / sizeof *toks; i++) {
		double want = strtod(toks[i], NULL), got;
		if (number_fast(toks[i], strlen(toks[i]), &got) &&
		    memcmp(&want, &got, sizeof got) && bad++ < 10)
			printf("read: %s as %.17g, strtod %.17g\n", toks[i],
			       got, want);
	}
	/* The fast path must be the common one, or it cut nothing. */
	if (fast < 500000) {
		printf("only %ld tokens took the fast path\n", fast);
		bad++;
	}
	return bad != 0;
}
C
# shellcheck disable=SC2086
cc -std=c11 -D_GNU_SOURCE ${MPP_TEST_CFLAGS:-} -O1 -I"$MPP_SRC" -I/usr/include/yajl -o check check.c \
	"$MPP_SRC/common/answer.c" "$MPP_SRC/common/text.c" "$MPP_SRC/common/utf8.c" \
	"$MPP_SRC/server/strmap.c" -lyajl -lm 2>cc.err ||
	{ echo "t-number-text: the checker does not compile: $(head -5 cc.err)"; exit 1; }
./check || { echo "t-number-text: the daemon's number conversions differ from the C library's (above)"; exit 1; }
exit 0
