/*
 * inline.c: bench-overhead's kernel of a C `inline` function that is not
 * static (issue 34: its counters made gcc warn "'__mpp_c_...' is static
 * but used in inline function ... which is not static"), with a loop and
 * a branch, called from a hot loop. Arguments: N (elements) and REPS.
 */
#include <stdio.h>
#include <stdlib.h>

inline long sum_odd(const int *v, int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		if (v[i] & 1)
			s += v[i];
	return s;
}
extern long sum_odd(const int *v, int n);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int reps = argc > 2 ? atoi(argv[2]) : 100;
	int *v = malloc((size_t)n * sizeof(*v));
	long t = 0;
	if (!v || n < 3)
		return 1;
	for (int i = 0; i < n; i++)
		v[i] = (int)((i * 7919L) % 1000);
	for (int r = 0; r < reps; r++)
		t += sum_odd(v, n - r % 3);
	printf("%ld\n", t);
	free(v);
	return 0;
}
