#define _GNU_SOURCE
/* macros.c: macros as bodies, macros holding loops and ifs, a user macro
 * named like a parameter, _GNU_SOURCE before the first include. */
#include <stdio.h>
#include <stdlib.h>
#define r 2836
#define TWO a++; b++
#define BODY do { s += 2; } while (0)
#define FOREACH(i, n) for (i = 0; i < (n); i++)
#define LOOPM(n) for (int j_ = 0; j_ < (n); j_++) s++
#define CHECK(x) if (!(x)) abort()
#define STEP(x) (x)++

int main(void)
{
	int i, s = 0, a = 0, b = 0;
	while (a < 3) TWO;
	for (i = 0; i < 4; i++)
		BODY;
	while (i < 8) { BODY; i++; }
	FOREACH(i, 5) s++;
	FOREACH(i, 2) { s += 10; }
	LOOPM(3);
	CHECK(s > 0);
	for (i = 0; i < 6; i++) STEP(s);
	if (s > r) s = 0; else STEP(s);
	printf("%d %d %d %d\n", s, a, b, r);
	return 0;
}
