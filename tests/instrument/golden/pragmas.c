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
	/* collapse(2): the outer body must stay the inner loop itself. */
	long m = 0;
#pragma omp parallel for collapse(2) reduction(+ : m)
	for (i = 0; i < 3; i++)
		for (k = 0; k < 4; k++)
			m += i * k;
#ifdef _OPENMP
	printf("%ld %ld openmp\n", s, m);
#else
	printf("%ld %ld\n", s, m);
#endif
	return 0;
}
