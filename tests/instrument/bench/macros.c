/*
 * macros.c: bench-overhead's kernel of loops that macros write (issue 34:
 * hundreds of "not instrumented" notes on real codes): a timer macro
 * around a statement (its do-while(0) is no loop), a loop whose keyword
 * a macro of the file gives (counted), a loop inside a macro's body (not
 * counted, noted) and assert in the hot loop. Arguments: N and REPS.
 */
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#define TIMED(t, stmt)                                                         \
	do {                                                                   \
		double t0_ = now();                                            \
		stmt;                                                          \
		(t) += now() - t0_;                                            \
	} while (0)
#define ITERATE_CELLS(c, n) for ((c) = 0; (c) < (n); (c)++)
#define SUM_SQ(s, v, n)                                                        \
	for (int k_ = 0; k_ < (n); k_++)                                       \
	(s) += (double)(v)[k_] * (v)[k_]

static double sweep(const double *v, double *w, int n)
{
	double s = 0;
	int c;
	ITERATE_CELLS(c, n - 2)
	{
		assert(c + 2 < n);
		w[c + 1] = (v[c] + v[c + 1] + v[c + 2]) / 3.0;
	}
	SUM_SQ(s, w, n);
	return s;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int reps = argc > 2 ? atoi(argv[2]) : 100;
	double *v = calloc((size_t)n, sizeof(*v)),
	       *w = calloc((size_t)n, sizeof(*w));
	double t = 0, s = 0;
	if (!v || !w || n < 3)
		return 1;
	for (int i = 0; i < n; i++)
		v[i] = (i % 17) * 0.25;
	for (int r = 0; r < reps; r++)
		TIMED(t, s += sweep(v, w, n));
	printf("%.6g %d\n", s, t >= 0);
	free(v);
	free(w);
	return 0;
}
