/* c89.c: counters must come after a block's leading declarations. */
#include <stdio.h>

int main(void)
{
	int i, t = 0;
	for (i = 0; i < 4; i++) {
		int sq = i * i;
		int cube;
		cube = sq * i;
		t += cube;
	}
	if (t > 10) {
		int half = t / 2;
		t = half;
	} else {
		int twice = t * 2;
		t = twice;
	}
	while (t > 3) {
		/* a comment first */
		int d = 1;
		t -= d;
	}
	printf("%d\n", t);
	return 0;
}
