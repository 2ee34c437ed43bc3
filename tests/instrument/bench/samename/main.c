/*
 * samename/main.c: bench-overhead's kernel of two files named utils.c in
 * two folders of one program (src/ and gen/). Arguments: N and REPS.
 */
#include <stdio.h>
#include <stdlib.h>

double utils_src(const double *v, int n, int w);
double utils_gen(const double *v, int n, int w);

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int reps = argc > 2 ? atoi(argv[2]) : 100;
	double *v = malloc((size_t)n * sizeof(*v)), s = 0;
	if (!v)
		return 1;
	for (int i = 0; i < n; i++)
		v[i] = (i % 13) * 0.5;
	for (int r = 0; r < reps; r++)
		s += utils_src(v, n, 4 + r % 5) - utils_gen(v, n, 3 + r % 4);
	printf("%.6g\n", s);
	free(v);
	return 0;
}
