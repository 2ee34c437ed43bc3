/*
 * shapes.c: kernels in the shapes of real hot loops, for
 * `make bench-overhead` (issue 14): what counters cost where real codes
 * spend their time. Not a test of counts (the tests do that); sizes come
 * from the command line as in an input deck: `shapes KERNEL N REPS`.
 *   stencil  a 2D Jacobi sweep with a preprocessor block right before its
 *            inner loop (`#if LOOPGEN ... #endif`, as generated codes have)
 *   pairs    an all-pairs force loop whose body holds 8 branches
 *            (periodic images, cutoff, a close-contact case)
 *   exits    a search nest left by break, return and goto
 *   list     a `while` walk over a linked list
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef LOOPGEN
#define LOOPGEN 0
#endif

static double stencil(int n, int reps)
{
	double *a = calloc((size_t)n * n, sizeof(*a));
	double *b = calloc((size_t)n * n, sizeof(*b));
	double s = 0;
	int it, ii, jj;
	for (ii = 0; ii < n; ii++)
		a[ii] = b[ii] = 1.0;
	for (it = 0; it < reps; it++) {
		for (ii = 1; ii < n - 1; ii++) {
#if LOOPGEN
			const double *restrict src = a;
#endif
			for (jj = 1; jj < n - 1; jj++)
				b[ii * n + jj] = 0.25 * (a[(ii - 1) * n + jj] +
							 a[(ii + 1) * n + jj] +
							 a[ii * n + jj - 1] +
							 a[ii * n + jj + 1]);
		}
		double *t = a;
		a = b;
		b = t;
	}
	for (ii = 0; ii < n * n; ii++)
		s += a[ii];
	free(a);
	free(b);
	return s;
}

static double pairs(int n, int reps)
{
	double *x = malloc(3 * (size_t)n * sizeof(*x)),
	       *f = calloc(3 * (size_t)n, sizeof(*f));
	const double box = 10.0, half = 5.0, rc2 = 6.25;
	double e = 0;
	int close = 0;
	unsigned s = 12345;
	for (int i = 0; i < 3 * n; i++) {
		s = s * 1103515245u + 12345u;
		x[i] = box * (double)(s >> 8) / 16777216.0;
	}
	for (int r = 0; r < reps; r++) {
		for (int i = 0; i < n; i++) {
			for (int j = i + 1; j < n; j++) {
				double dx = x[3 * i] - x[3 * j];
				double dy = x[3 * i + 1] - x[3 * j + 1];
				double dz = x[3 * i + 2] - x[3 * j + 2];
				if (dx > half)
					dx -= box;
				else if (dx < -half)
					dx += box;
				if (dy > half)
					dy -= box;
				else if (dy < -half)
					dy += box;
				if (dz > half)
					dz -= box;
				else if (dz < -half)
					dz += box;
				double r2 = dx * dx + dy * dy + dz * dz;
				if (r2 > rc2)
					continue;
				double ir2 = 1.0 / r2, ir6 = ir2 * ir2 * ir2;
				double ff = ir6 * (ir6 - 0.5) * ir2;
				if (r2 < 0.5) {
					close++;
					ff = 0;
				}
				e += ir6 * (ir6 - 1.0);
				f[3 * i] += ff * dx;
				f[3 * j] -= ff * dx;
				f[3 * i + 1] += ff * dy;
				f[3 * j + 1] -= ff * dy;
				f[3 * i + 2] += ff * dz;
				f[3 * j + 2] -= ff * dz;
			}
		}
	}
	e += f[0] + close;
	free(x);
	free(f);
	return e;
}

/* The first row of a whose prefix sum passes limit: break, return, goto. */
static int find(const int *a, int n, int limit, int target)
{
	int i, j;
	for (i = 0; i < n; i++) {
		int sum = 0;
		for (j = 0; j < n; j++) {
			if (a[i * n + j] < 0)
				break;
			sum += a[i * n + j];
			if (a[i * n + j] == target)
				goto found;
			if (sum > limit)
				return i;
		}
	}
	return -1;
found:
	return n + i;
}

static double exits(int n, int reps)
{
	int *a = malloc((size_t)n * n * sizeof(*a));
	long t = 0;
	for (int i = 0; i < n * n; i++)
		a[i] = (i * 7919) % 97 == 0 ? -1 : (i * 31) % 13;
	for (int r = 0; r < reps; r++)
		t += find(a, n, 6 * n + r % 5, 1000 + r % 3);
	free(a);
	return (double)t;
}

struct node {
	struct node *next;
	int v;
};

static double list(int n, int reps)
{
	struct node *nodes = malloc((size_t)n * sizeof(*nodes)), *head = NULL;
	long hits = 0;
	for (int i = 0; i < n; i++) {
		int k = (int)(((long)i * 7919) % n);
		nodes[k].v = i % 100;
		nodes[k].next = head;
		head = &nodes[k];
	}
	for (int r = 0; r < reps; r++) {
		const struct node *p = head;
		while (p) {
			if (p->v > 90)
				hits++;
			p = p->next;
		}
	}
	free(nodes);
	return (double)hits;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr,
			"usage: shapes stencil|pairs|exits|list N REPS\n");
		return 1;
	}
	int n = atoi(argv[2]), reps = atoi(argv[3]);
	double r = !strcmp(argv[1], "stencil") ? stencil(n, reps)
		   : !strcmp(argv[1], "pairs") ? pairs(n, reps)
		   : !strcmp(argv[1], "exits") ? exits(n, reps)
					       : list(n, reps);
	printf("%s %.6g\n", argv[1], r);
	return 0;
}
