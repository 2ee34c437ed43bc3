/*
 * lu.c: a test program in the shape of HPL, for the simulate tests: a
 * dense LU factorisation (no pivoting: the matrix is made diagonally
 * dominant) whose sizes N and NB come from an input deck (`key = value`
 * lines, `#` comments, other lines of text ignored as HPL.dat's are),
 * the NB-wide column blocks dealt block-cyclically over the ranks (block
 * k on rank k % P). Step k: the owner of block k factors its panel and
 * broadcasts it with MPI_Bcast from that owner, a root that rotates with
 * the step; every rank then updates its blocks right of the panel
 * (triangular solve, then the trailing matrix). A final MPI_Allreduce
 * sums a checksum of the factors, which rank 0 prints with 10 digits: the
 * output is the same at any rank count (every element sees the same
 * operations in the same order; only the final sum's order differs).
 *
 * Not for: speed (no BLAS, no look-ahead) or pivoting; the call pattern
 * and the deck are what the tests need.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads N and NB from `path`: lines `N = 96`, `NB = 16`; text before a
 * `#` is read, lines without `=` are ignored. */
static int read_deck(const char *path, int *n, int *nb)
{
	char line[256], key[64];
	long v;
	int ln = 0;
	FILE *f = fopen(path, "r");
	*n = *nb = 0;
	if (!f) {
		fprintf(stderr, "lu: %s: cannot open\n", path);
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		ln++;
		line[strcspn(line, "#\n")] = '\0';
		if (!strchr(line, '='))
			continue;
		if (sscanf(line, " %63[A-Za-z_] = %ld", key, &v) != 2 ||
		    v < 1 || v > 100000) {
			fprintf(stderr,
				"lu: %s:%d: expected key = value (1..100000)\n",
				path, ln);
			fclose(f);
			return -1;
		}
		if (!strcmp(key, "N"))
			*n = (int)v;
		else if (!strcmp(key, "NB"))
			*nb = (int)v;
		else {
			fprintf(stderr, "lu: %s:%d: unknown key '%s'\n", path,
				ln, key);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	if (*n < 1 || *nb < 1) {
		fprintf(stderr, "lu: %s: N and NB are required\n", path);
		return -1;
	}
	return 0;
}

/* Element (i, j) of the matrix: diagonally dominant, so LU without
 * pivoting is stable. */
static double elem(int i, int j, int n)
{
	double d = i > j ? i - j : j - i;
	return 1.0 / (1.0 + d) + (double)((7 * i + 13 * j) % 17) / 17.0 +
	       (i == j ? (double)n : 0.0);
}

int main(int argc, char **argv)
{
	int rank, size, n, nb;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || read_deck(argv[1], &n, &nb) < 0) {
		if (rank == 0)
			fprintf(stderr, "usage: lu DECK (N = .., NB = ..)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int nblk = (n + nb - 1) / nb, ncols = 0;
	/* this rank's columns, in order; col[c] is the global column */
	int *col = malloc((size_t)n * sizeof *col);
	if (!col)
		MPI_Abort(MPI_COMM_WORLD, 3);
	for (int k = rank; k < nblk; k += size)
		for (int j = k * nb; j < n && j < (k + 1) * nb; j++)
			col[ncols++] = j;
	/* column-major, n rows per local column */
	double *a = malloc((size_t)n * (size_t)(ncols ? ncols : 1) * sizeof *a);
	double *panel = malloc((size_t)n * (size_t)nb * sizeof *panel);
	if (!a || !panel)
		MPI_Abort(MPI_COMM_WORLD, 3);
	for (int c = 0; c < ncols; c++)
		for (int i = 0; i < n; i++)
			a[(size_t)c * (size_t)n + (size_t)i] =
			    elem(i, col[c], n);

	int first = 0; /* first local column right of the current panel */
	for (int k = 0; k < nblk; k++) {
		int k0 = k * nb, w = n - k0 < nb ? n - k0 : nb, m = n - k0;
		int root = k % size;
		if (rank == root) {
			/* factor the panel: columns first .. first + w - 1 */
			double *p = &a[(size_t)first * (size_t)n];
			for (int c = 0; c < w; c++) {
				double *pc = &p[(size_t)c * (size_t)n];
				double piv = pc[k0 + c];
				for (int i = k0 + c + 1; i < n; i++)
					pc[i] /= piv;
				for (int c2 = c + 1; c2 < w; c2++) {
					double *q = &p[(size_t)c2 * (size_t)n];
					double u = q[k0 + c];
					for (int i = k0 + c + 1; i < n; i++)
						q[i] -= pc[i] * u;
				}
			}
			for (int c = 0; c < w; c++)
				memcpy(&panel[(size_t)c * (size_t)m],
				       &p[(size_t)c * (size_t)n + (size_t)k0],
				       (size_t)m * sizeof *panel);
			first += w;
		}
		MPI_Bcast(panel, m * w, MPI_DOUBLE, root, MPI_COMM_WORLD);
		/* update this rank's columns right of the panel */
		for (int c = first; c < ncols; c++) {
			double *q = &a[(size_t)c * (size_t)n];
			/* U12 = L11^-1 A12 (L11 unit lower triangular) */
			for (int r = 0; r < w; r++)
				for (int t = 0; t < r; t++)
					q[k0 + r] -=
					    panel[(size_t)t * (size_t)m +
						  (size_t)r] *
					    q[k0 + t];
			/* A22 -= L21 U12 */
			for (int t = 0; t < w; t++) {
				const double *l = &panel[(size_t)t * (size_t)m];
				double u = q[k0 + t];
				for (int i = w; i < m; i++)
					q[k0 + i] -= l[i] * u;
			}
		}
	}
	/* the checksum: every factor entry, weighted by its position */
	double local = 0, sum = 0;
	for (int c = 0; c < ncols; c++)
		for (int i = 0; i < n; i++)
			local += a[(size_t)c * (size_t)n + (size_t)i] *
				 (double)(1 + (i + 3 * col[c]) % 5);
	MPI_Allreduce(&local, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("lu N %d NB %d steps %d checksum %.10e\n", n, nb, nblk,
		       sum);
	free(a);
	free(panel);
	free(col);
	MPI_Finalize();
	return 0;
}
