/*
 * t-challenge: the champion and challenger rule of challenge.h, branch by
 * branch, on figures set by hand (mpp_challenge_decide), and the held-back
 * sample's hash on FNV-1a's published test vectors.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "regress/challenge.h"

static int failures;

static void expect(const char *what, const mpp_challenge *c, int kind,
		   const char *in_reason)
{
	if (c->kind != kind || !strstr(c->reason, in_reason)) {
		printf("%s: expected kind %d with '%s' in the reason, got %d: "
		       "'%s'\n",
		       what, kind, in_reason, c->kind, c->reason);
		failures++;
	}
}

/* Figures of a comparison on n runs where the data did not move. */
static mpp_challenge compared(size_t n, double champ, double chall)
{
	mpp_challenge c;

	memset(&c, 0, sizeof(c));
	c.nheld = c.ncompared = c.nchampion = n;
	c.champion_mape = champ;
	c.challenger_mape = chall;
	c.median_ratio = c.actual_ratio = 1;
	return c;
}

int main(void)
{
	static const struct {
		const char *s;
		unsigned long h;
	} fnv[] = {
	    {"", 0x811c9dc5UL}, {"a", 0xe40c292cUL}, {"foobar", 0xbf9cf968UL}};
	mpp_challenge c;

	for (size_t i = 0; i < sizeof(fnv) / sizeof(fnv[0]); i++)
		if (mpp_fnv1a32(fnv[i].s) != fnv[i].h) {
			printf("FNV-1a('%s'): expected %#lx, got %#lx\n",
			       fnv[i].s, fnv[i].h, mpp_fnv1a32(fnv[i].s));
			failures++;
		}
	/* FNV-1a("r1") = 0x0c53fdac, 0 mod 5: held back; "r2" 0x0f540265,
	 * 2 mod 5: trained on. */
	if (!mpp_holdout("r1") || mpp_holdout("r2")) {
		printf("expected run 'r1' held back and 'r2' not\n");
		failures++;
	}

	c = compared(0, NAN, NAN);
	mpp_challenge_decide(&c, "cg", 0, 1, 2);
	expect("no champion", &c, MPP_CHALLENGE_PROMOTED, "first model");

	c = compared(10, 6.0, 7.9);
	mpp_challenge_decide(&c, "cg", 3, 4, 2);
	expect("within the margin", &c, MPP_CHALLENGE_PROMOTED,
	       "holdout MAPE 7.9 % against 6.0 % (version 3), 10 runs");
	c = compared(10, 6.0, 8.1);
	mpp_challenge_decide(&c, "cg", 3, 4, 2);
	expect("beyond the margin", &c, MPP_CHALLENGE_REJECTED,
	       "holdout MAPE 8.1 % against 6.0 % (version 3), beyond the "
	       "margin of 2 points");
	c = compared(10, 6.0, 6.5);
	mpp_challenge_decide(&c, "cg", 3, 4, 0);
	expect("margin 0", &c, MPP_CHALLENGE_REJECTED, "version 3 stays");

	c = compared(2, 6.0, 1.0);
	mpp_challenge_decide(&c, "cg", 3, 4, 2);
	expect("2 runs", &c, MPP_CHALLENGE_REJECTED, "no comparison: 2 of 2");

	/* Beyond both intervals on most runs: drift, however good. */
	c = compared(10, 6.0, 1.0);
	c.nbeyond = 6;
	c.median_ratio = 3.5;
	mpp_challenge_decide(&c, "cg", 3, 4, 2);
	expect("beyond both on 6 of 10", &c, MPP_CHALLENGE_DRIFT,
	       "3.5x the champion's (median) and beyond both intervals on "
	       "6 of 10");
	expect("beyond both on 6 of 10", &c, MPP_CHALLENGE_DRIFT,
	       "mpipredict-model promote --app cg --version 4");
	c.nbeyond = 5;
	mpp_challenge_decide(&c, "cg", 3, 4, 2);
	expect("beyond both on half", &c, MPP_CHALLENGE_PROMOTED, "10 runs");

	/* The runs moved from the champion: drift even when the challenger
	 * cannot answer. */
	c = compared(0, NAN, NAN);
	c.nchampion = 10;
	c.above = 8;
	c.actual_ratio = 9.5;
	mpp_challenge_decide(&c, "cg", 3, 4, 2);
	expect("runs x9.5", &c, MPP_CHALLENGE_DRIFT,
	       "9.5x the champion's answers (median), above its interval on "
	       "8 of 10");
	c.above = 0;
	c.below = 6;
	c.actual_ratio = 0.1;
	mpp_challenge_decide(&c, "cg", 3, 4, 2);
	expect("runs x0.1", &c, MPP_CHALLENGE_DRIFT, "below its interval");
	/* Under the factor: the MAPE rule decides. */
	c = compared(10, 30, 5);
	c.above = 8;
	c.actual_ratio = 1.5;
	mpp_challenge_decide(&c, "cg", 3, 4, 2);
	expect("runs x1.5", &c, MPP_CHALLENGE_PROMOTED, "5.0 % against 30.0");
	/* Beyond the interval on half only. */
	c.above = 5;
	c.actual_ratio = 10;
	mpp_challenge_decide(&c, "cg", 3, 4, 2);
	expect("half moved", &c, MPP_CHALLENGE_PROMOTED, "10 runs");

	if (failures)
		return 1;
	printf("challenge: ok\n");
	return 0;
}
