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
 *   boxpairs a molecular-dynamics force loop over link cells: for each
 *            box, its 27 neighbour boxes, a pair loop over their atoms
 *            with `continue` past the cutoff, and an if/else on whether
 *            the neighbour box is local (as CoMD's ljForce writes it)
 *   amr      a 7-point stencil over 20 variables of a block whose sizes
 *            are globals (`for (i = 1; i <= x_block_size; i++)`), then
 *            copied back (as miniAMR's stencil_calc writes it)
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

/* Link cells: NB^3 unit boxes of ATOMS atoms each, numbered with the
 * local (inner) boxes first, as CoMD's link cells are; the outer layer
 * stands for the halo's remote boxes. */
#define NB    6
#define ATOMS 16
static int inner_box(int b)
{
	int x = b % NB, y = b / NB % NB, z = b / (NB * NB);
	return x && y && z && x < NB - 1 && y < NB - 1 && z < NB - 1;
}

/* The 27 neighbour boxes (itself included) of the box at position b. */
static int neighbours(const int *id, int b, int *nbrs)
{
	int x = b % NB, y = b / NB % NB, z = b / (NB * NB), k = 0;
	for (int dz = -1; dz <= 1; dz++)
		for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++)
				nbrs[k++] = id[(x + dx) +
					       NB * ((y + dy) + NB * (z + dz))];
	return k;
}

static double boxpairs(int n, int reps)
{
	int nBoxes = NB * NB * NB, nLocalBoxes = 0, nbrBoxes[27];
	double(*r)[ATOMS][3] = malloc((size_t)nBoxes * sizeof(*r));
	double(*f)[ATOMS][3] = calloc((size_t)nBoxes, sizeof(*f));
	int *id = malloc((size_t)nBoxes * sizeof(*id));
	int *at = malloc((size_t)nBoxes * sizeof(*at));
	const double rCut2 = 0.49 * n / 10.0;
	double ePot = 0;
	unsigned s = 777;
	for (int b = 0; b < nBoxes; b++)
		if (inner_box(b))
			at[id[b] = nLocalBoxes++] = b;
	for (int b = 0, k = nLocalBoxes; b < nBoxes; b++)
		if (!inner_box(b))
			at[id[b] = k++] = b;
	for (int i = 0; i < nBoxes; i++)
		for (int a = 0; a < ATOMS; a++)
			for (int d = 0; d < 3; d++) {
				s = s * 1103515245u + 12345u;
				r[i][a][d] = (double)(s >> 8) / 16777216.0 +
					     (at[i] / (d == 0   ? 1
						       : d == 1 ? NB
								: NB * NB)) %
						 NB;
			}
	for (int it = 0; it < reps; it++) {
		for (int iBox = 0; iBox < nLocalBoxes; iBox++) {
			int nNbrBoxes = neighbours(id, at[iBox], nbrBoxes);
			for (int jTmp = 0; jTmp < nNbrBoxes; jTmp++) {
				int jBox = nbrBoxes[jTmp];
				for (int iOff = 0; iOff < ATOMS; iOff++) {
					for (int jOff = 0; jOff < ATOMS;
					     jOff++) {
						double dr[3], r2 = 0;
						for (int m = 0; m < 3; m++) {
							dr[m] =
							    r[iBox][iOff][m] -
							    r[jBox][jOff][m];
							r2 += dr[m] * dr[m];
						}
						if (r2 > rCut2 || r2 == 0)
							continue;
						double ir2 = 1.0 / r2;
						double ir6 = ir2 * ir2 * ir2;
						double fr =
						    ir6 * (ir6 - 0.5) * ir2;
						if (jBox < nLocalBoxes)
							ePot += 0.5 * ir6 *
								(ir6 - 1.0);
						else
							ePot +=
							    ir6 * (ir6 - 1.0);
						for (int m = 0; m < 3; m++)
							f[iBox][iOff][m] +=
							    fr * dr[m];
					}
				}
			}
		}
	}
	ePot += f[0][0][0];
	free(r);
	free(f);
	free(id);
	free(at);
	return ePot;
}

/* miniAMR's block: sizes and the variable count in globals, set from the
 * command line. */
int x_block_size, y_block_size, z_block_size, num_vars = 20;

static double amr(int n, int reps)
{
	x_block_size = y_block_size = z_block_size = n;
	int m = n + 2;
	double *blk = calloc((size_t)num_vars * m * m * m, sizeof(*blk));
	double *work = calloc((size_t)m * m * m, sizeof(*work));
	double sum = 0;
	int var, i, j, k;
#define A(v, i, j, k) blk[(((size_t)(v)*m + (i)) * m + (j)) * m + (k)]
#define W(i, j, k)    work[((size_t)(i)*m + (j)) * m + (k)]
	for (var = 0; var < num_vars; var++)
		for (i = 0; i < m; i++)
			for (j = 0; j < m; j++)
				for (k = 0; k < m; k++)
					A(var, i, j, k) =
					    var + i + 2 * j + 3 * k;
	for (int it = 0; it < reps; it++)
		for (var = 0; var < num_vars; var++) {
			for (i = 1; i <= x_block_size; i++)
				for (j = 1; j <= y_block_size; j++)
					for (k = 1; k <= z_block_size; k++)
						W(i, j, k) =
						    (A(var, i - 1, j, k) +
						     A(var, i, j - 1, k) +
						     A(var, i, j, k - 1) +
						     A(var, i, j, k) +
						     A(var, i, j, k + 1) +
						     A(var, i, j + 1, k) +
						     A(var, i + 1, j, k)) /
						    7.0;
			for (i = 1; i <= x_block_size; i++)
				for (j = 1; j <= y_block_size; j++)
					for (k = 1; k <= z_block_size; k++)
						A(var, i, j, k) = W(i, j, k);
		}
	for (i = 1; i <= x_block_size; i++)
		sum += A(num_vars - 1, i, i, i);
#undef A
#undef W
	free(blk);
	free(work);
	return sum;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr,
			"usage: shapes "
			"stencil|pairs|exits|list|boxpairs|amr N REPS\n");
		return 1;
	}
	int n = atoi(argv[2]), reps = atoi(argv[3]);
	double r = !strcmp(argv[1], "stencil")    ? stencil(n, reps)
		   : !strcmp(argv[1], "pairs")    ? pairs(n, reps)
		   : !strcmp(argv[1], "exits")    ? exits(n, reps)
		   : !strcmp(argv[1], "boxpairs") ? boxpairs(n, reps)
		   : !strcmp(argv[1], "amr")      ? amr(n, reps)
						  : list(n, reps);
	printf("%s %.6g\n", argv[1], r);
	return 0;
}
