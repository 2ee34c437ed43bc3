/*
 * cg.c: example MPI application for mpipredict's tests and benchmarks
 * (the NAS CG kind: a conjugate-gradient solver on a sparse matrix).
 *
 * Solves A x = 1 where A is the 7-point Laplacian of an N x N x N grid with
 * zero Dirichlet boundary, stored as a CSR sparse matrix distributed by rows
 * (whole z-planes per rank). Every iteration exchanges one halo plane with
 * each neighbour rank (MPI_Sendrecv) and forms two dot products with
 * MPI_Allreduce. It stops after I iterations or when the residual norm has
 * dropped below TOL times its start, and prints the iterations done, the
 * relative residual and the sum of x.
 *
 * The output is the same for every number of ranks: each row adds its
 * entries in one fixed (global column) order, and a dot product is reduced
 * as one partial sum per plane (a vector that is zero outside the rank's
 * planes, so the MPI sum only adds zeros) and then added plane by plane in
 * order on every rank.
 */
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"

static const char *prog = "cg";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-n N] [-i I] [--tol T]\n"
		"Conjugate gradient on the 7-point Laplacian of an N^3 grid.\n"
		"  -n, --size=N        grid points per dimension, 2..512 "
		"(default 64);\n"
		"                      at least one z-plane per rank\n"
		"  -i, --iterations=I  most iterations, 1..100000 "
		"(default 200)\n"
		"  -t, --tol=T         stop when the residual norm falls "
		"below T times\n"
		"                      its start, 0..1 (default 0: run I "
		"iterations)\n"
		"  -h, --help          this message\n",
		prog);
}

/* The rank's rows: planes [z0, z0 + nz) of n x n points each. Vectors that
 * the matrix multiplies carry one halo plane on each side: local point p of
 * the rank's planes is at index plane + p. */
struct part {
	int n, z0, nz;
	size_t plane, rows;
	size_t *rowptr;
	size_t *col;
	double *val;
	double *partial; /* n per-plane partial sums */
	MPI_Comm comm;
	int below, above;
};

/* The dot product of the rank's parts of a and b (both indexed from the
 * first local row), reduced so that the result does not depend on the
 * number of ranks. */
static double dot(const struct part *pt, const double *a, const double *b)
{
	memset(pt->partial, 0, (size_t)pt->n * sizeof *pt->partial);
	for (int z = 0; z < pt->nz; z++) {
		double s = 0.0;
		const double *pa = a + (size_t)z * pt->plane;
		const double *pb = b + (size_t)z * pt->plane;
		for (size_t i = 0; i < pt->plane; i++)
			s += pa[i] * pb[i];
		pt->partial[pt->z0 + z] = s;
	}
	MPI_Allreduce(MPI_IN_PLACE, pt->partial, pt->n, MPI_DOUBLE, MPI_SUM,
		      pt->comm);
	double s = 0.0;
	for (int z = 0; z < pt->n; z++)
		s += pt->partial[z];
	return s;
}

/* q = A p, where p has halo planes (p[0..plane) below, p[plane+rows..)
 * above) that this fills in from the neighbours first. */
static void matvec(const struct part *pt, double *p, double *q)
{
	int pl = (int)pt->plane;
	MPI_Sendrecv(p + pt->plane, pl, MPI_DOUBLE, pt->below, 0,
		     p + pt->plane + pt->rows, pl, MPI_DOUBLE, pt->above, 0,
		     pt->comm, MPI_STATUS_IGNORE);
	MPI_Sendrecv(p + pt->rows, pl, MPI_DOUBLE, pt->above, 1, p, pl,
		     MPI_DOUBLE, pt->below, 1, pt->comm, MPI_STATUS_IGNORE);
	for (size_t r = 0; r < pt->rows; r++) {
		double s = 0.0;
		for (size_t k = pt->rowptr[r]; k < pt->rowptr[r + 1]; k++)
			s += pt->val[k] * p[pt->col[k]];
		q[r] = s;
	}
}

/* The CSR rows of the rank's planes, entries in global column order. */
static int build(struct part *pt)
{
	int n = pt->n;
	pt->rowptr = malloc((pt->rows + 1) * sizeof *pt->rowptr);
	pt->col = malloc(7 * pt->rows * sizeof *pt->col);
	pt->val = malloc(7 * pt->rows * sizeof *pt->val);
	pt->partial = malloc((size_t)n * sizeof *pt->partial);
	if (!pt->rowptr || !pt->col || !pt->val || !pt->partial)
		return -1;
	size_t k = 0, r = 0;
	for (int z = pt->z0; z < pt->z0 + pt->nz; z++) {
		for (int y = 0; y < n; y++) {
			for (int x = 0; x < n; x++, r++) {
				/* Index of (x, y, z) in a haloed vector. */
				size_t me = pt->plane + r;
				pt->rowptr[r] = k;
				const struct {
					int ok;
					size_t at;
				} nb[7] = {
				    {z > 0, me - pt->plane},
				    {y > 0, me - (size_t)n},
				    {x > 0, me - 1},
				    {1, me},
				    {x < n - 1, me + 1},
				    {y < n - 1, me + (size_t)n},
				    {z < n - 1, me + pt->plane},
				};
				for (int e = 0; e < 7; e++) {
					if (!nb[e].ok)
						continue;
					pt->col[k] = nb[e].at;
					pt->val[k] = e == 3 ? 6.0 : -1.0;
					k++;
				}
			}
		}
	}
	pt->rowptr[r] = k;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"size", required_argument, NULL, 'n'},
	    {"iterations", required_argument, NULL, 'i'},
	    {"tol", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	long n = 64, iters = 200;
	double tol = 0.0;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "n:i:t:h", opts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case 'n':
			bad = app_long(prog, "--size", optarg, 2, 512, &n);
			break;
		case 'i':
			bad = app_long(prog, "--iterations", optarg, 1, 100000,
				       &iters);
			break;
		case 't':
			bad = app_double(prog, "--tol", optarg, 0.0, 1.0, &tol);
			break;
		case 'h':
			if (app_first_process())
				usage(stdout);
			return 0;
		default:
			app_bad_option(prog, argv[optind - 1]);
			return 1;
		}
		if (bad)
			return 1;
	}
	if (optind < argc) {
		app_bad_option(prog, argv[optind]);
		return 1;
	}

	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (size > n) {
		if (rank == 0)
			fprintf(stderr,
				"%s: --size: %ld planes cannot be shared by %d "
				"ranks\n",
				prog, n, size);
		MPI_Finalize();
		return 1;
	}

	struct part pt = {.n = (int)n, .comm = MPI_COMM_WORLD};
	int q = (int)n / size, rem = (int)n % size;
	pt.nz = q + (rank < rem);
	pt.z0 = rank * q + (rank < rem ? rank : rem);
	pt.plane = (size_t)n * (size_t)n;
	pt.rows = pt.plane * (size_t)pt.nz;
	pt.below = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	pt.above = rank + 1 < size ? rank + 1 : MPI_PROC_NULL;
	size_t haloed = pt.rows + 2 * pt.plane;
	double *x = calloc(pt.rows, sizeof *x);
	double *r = malloc(pt.rows * sizeof *r);
	double *p = calloc(haloed, sizeof *p);
	double *ap = malloc(pt.rows * sizeof *ap);
	if (build(&pt) || !x || !r || !p || !ap) {
		fprintf(stderr, "%s: out of memory\n", prog);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}

	/* x = 0, so r = b = 1 and p = r. */
	double *pl = p + pt.plane; /* p without its lower halo */
	for (size_t i = 0; i < pt.rows; i++)
		r[i] = pl[i] = 1.0;
	double rr = dot(&pt, r, r), rr0 = rr;
	long it = 0;
	while (it < iters && sqrt(rr) > tol * sqrt(rr0)) {
		matvec(&pt, p, ap);
		double alpha = rr / dot(&pt, pl, ap);
		for (size_t i = 0; i < pt.rows; i++) {
			x[i] += alpha * pl[i];
			r[i] -= alpha * ap[i];
		}
		double rr_new = dot(&pt, r, r);
		double beta = rr_new / rr;
		for (size_t i = 0; i < pt.rows; i++)
			pl[i] = r[i] + beta * pl[i];
		rr = rr_new;
		it++;
	}

	for (size_t i = 0; i < pt.rows; i++)
		r[i] = 1.0;
	double xsum = dot(&pt, x, r);
	if (rank == 0)
		printf("cg N=%ld iterations=%ld residual=%.12e sum(x)=%.12e\n",
		       n, it, sqrt(rr / rr0), xsum);
	free(x);
	free(r);
	free(p);
	free(ap);
	free(pt.rowptr);
	free(pt.col);
	free(pt.val);
	free(pt.partial);
	MPI_Finalize();
	return 0;
}
