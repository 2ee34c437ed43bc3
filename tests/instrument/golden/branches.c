/* branches.c: if/else shapes, braces in comments and strings, #ifdef. */
#include <stdio.h>
#include <string.h>

#define FEATURE 1

static int classify(int v)
{
	int r = 0;
	if (v < 0)
		r = -1;
	else if (v == 0)
		r = 0;
	else if (v < 10) { /* } */
		r = 1;
	} else
		r = 2;
	if (v % 3 == 0) {
		const char *s = "} else {";
		r += (int)strlen(s);
	}
#ifdef FEATURE
	if (v == 5)
		r += 100;
#else
	if (v == 6)
		r += 200;
#endif
#ifndef FEATURE
	if (v == 7) r += 300;
#endif
	if (v > 100)
		;
	else
		r++;
	return r;
}

int main(void)
{
	int sum = 0;
	for (int v = -3; v < 20; v++)
		sum += classify(v);
	printf("%d\n", sum);
	return 0;
}
