/*
 * kernels.c: small CPU-bound loop nests for the counter-overhead benchmark
 * (make bench-instrument): a tight reduction, a branchy inner loop, a
 * stencil over a 2-D array and a short inner loop run many times, where a
 * counter increment per iteration costs the most.
 *
 * Usage: kernels [SCALE [KERNELS]]; KERNELS picks from r, b, s, i.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double reduce(const double *a, int n, int reps)
{
	double s = 0;
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < n; i++)
			s += a[i] * a[i];
	return s;
}

static long branchy(const int *v, int n, int reps)
{
	long c = 0;
	for (int r = 0; r < reps; r++)
		for (int i = 0; i < n; i++) {
			if (v[i] & 1)
				c += v[i];
			else if (v[i] % 3 == 0)
				c -= 1;
			else
				c ^= i;
		}
	return c;
}

static double stencil(double *u, double *w, int n, int sweeps)
{
	for (int s = 0; s < sweeps; s++) {
		for (int i = 1; i < n - 1; i++)
			for (int j = 1; j < n - 1; j++)
				w[i * n + j] =
				    0.25 *
				    (u[(i - 1) * n + j] + u[(i + 1) * n + j] +
				     u[i * n + j - 1] + u[i * n + j + 1]);
		double *t = u;
		u = w;
		w = t;
	}
	return u[n / 2 * n + n / 2];
}

static long short_inner(int reps)
{
	long s = 0;
	for (int r = 0; r < reps; r++)
		for (int k = 0; k < 3; k++)
			s += (r ^ k) & 7;
	return s;
}

int main(int argc, char **argv)
{
	int scale = argc > 1 ? atoi(argv[1]) : 1;
	const char *only = argc > 2 ? argv[2] : "rbsi";
	int n = 4096, m = 256;
	double *a = malloc(sizeof(double) * n);
	int *v = malloc(sizeof(int) * n);
	double *u = calloc((size_t)m * m, sizeof(double));
	double *w = calloc((size_t)m * m, sizeof(double));
	if (!a || !v || !u || !w)
		return 1;
	for (int i = 0; i < n; i++) {
		a[i] = i * 0.5;
		v[i] = (i * 7919) % 1000;
	}
	for (int i = 0; i < m; i++)
		u[i] = w[i] = 1.0;
	if (strchr(only, 'r'))
		printf("%g\n", reduce(a, n, 20000 * scale));
	if (strchr(only, 'b'))
		printf("%ld\n", branchy(v, n, 10000 * scale));
	if (strchr(only, 's'))
		printf("%g\n", stencil(u, w, m, 200 * scale));
	if (strchr(only, 'i'))
		printf("%ld\n", short_inner(20000000 * scale));
	free(a);
	free(v);
	free(u);
	free(w);
	return 0;
}
