/* pragmas.c: `#pragma omp` and `#pragma GCC unroll` must stay right before
 * their loop, also when that loop is the braceless body of another. */
#include <stdio.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int main(void)
{
	long s = 0;
	int i, k;
	for (i = 0; i < 3; i++)
#pragma omp parallel for reduction(+ : s)
		for (k = 0; k < 10; k++)
			s += k;
	if (s > 0)
#pragma GCC unroll 4
		for (k = 0; k < 8; k++)
			s++;
#pragma GCC unroll 2
	for (k = 0; k < 4; k++)
		s--;
	for (i = 0; i < 2; i++)
#pragma omp parallel
#pragma omp single
		s += 5;
#ifdef _OPENMP
	printf("%ld openmp\n", s);
#else
	printf("%ld\n", s);
#endif
	return 0;
}
