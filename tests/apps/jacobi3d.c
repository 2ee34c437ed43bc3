/*
 * jacobi3d.c: example MPI application for mpipredict's tests and benchmarks
 * (the stencil kind: a 7-point Jacobi sweep on a 3-D grid).
 *
 * Solves Laplace's equation on an N x N x N grid of unknowns, u = 1 on the
 * z = 0 face of the boundary and 0 on the others, with I Jacobi sweeps. The
 * grid is cut into blocks over a 3-D process grid (MPI_Dims_create and
 * MPI_Cart_create, or --px/--py/--pz); every sweep exchanges the six faces
 * with the neighbours and takes the largest change over all ranks with
 * MPI_Allreduce. The output is the same for every process grid: each point's
 * update adds its neighbours in one fixed order, the residual is a maximum,
 * and the checksum is an integer sum.
 */
#include <getopt.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"

static const char *prog = "jacobi3d";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-n N] [-i I] [--px P --py Q --pz R]\n"
		"Jacobi sweeps of the 7-point Laplacian on an N^3 grid.\n"
		"  -n, --size=N        grid points per dimension, 2..1024 "
		"(default 96)\n"
		"  -i, --iterations=I  sweeps, 1..100000 (default 100)\n"
		"  --px, --py, --pz    process grid (default: MPI_Dims_create);"
		"\n"
		"                      their product must be the number of "
		"ranks\n"
		"  -h, --help          this message\n",
		prog);
}

/* The local block: l[d] points in dimension d, plus one ghost layer. */
struct block {
	int l[3];
	size_t sx, sy; /* strides of j and k in the array */
};

static size_t at(const struct block *b, int i, int j, int k)
{
	return (size_t)k * b->sy + (size_t)j * b->sx + (size_t)i;
}

/* Copy the face `plane` (0..l[dim]+1) of dimension `dim` into buf
 * (pack != 0) or back from it. Returns the number of values. */
static int face(const struct block *b, double *u, int dim, int plane,
		double *buf, int pack)
{
	int d1 = dim == 0 ? 1 : 0, d2 = dim == 2 ? 1 : 2;
	int n = 0;
	for (int q = 1; q <= b->l[d2]; q++) {
		for (int p = 1; p <= b->l[d1]; p++) {
			int x[3];
			x[dim] = plane;
			x[d1] = p;
			x[d2] = q;
			size_t a = at(b, x[0], x[1], x[2]);
			if (pack)
				buf[n] = u[a];
			else
				u[a] = buf[n];
			n++;
		}
	}
	return n;
}

int main(int argc, char **argv)
{
	enum { OPT_PX = 256, OPT_PY, OPT_PZ };
	static const struct option opts[] = {
	    {"size", required_argument, NULL, 'n'},
	    {"iterations", required_argument, NULL, 'i'},
	    {"px", required_argument, NULL, OPT_PX},
	    {"py", required_argument, NULL, OPT_PY},
	    {"pz", required_argument, NULL, OPT_PZ},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	long n = 96, iters = 100, pgrid[3] = {0, 0, 0};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "n:i:h", opts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case 'n':
			bad = app_long(prog, "--size", optarg, 2, 1024, &n);
			break;
		case 'i':
			bad = app_long(prog, "--iterations", optarg, 1, 100000,
				       &iters);
			break;
		case OPT_PX:
		case OPT_PY:
		case OPT_PZ: {
			static const char *const names[] = {"--px", "--py",
							    "--pz"};
			bad = app_long(prog, names[c - OPT_PX], optarg, 1, 4096,
				       &pgrid[c - OPT_PX]);
			break;
		}
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

	int dims[3] = {(int)pgrid[0], (int)pgrid[1], (int)pgrid[2]};
	/* MPI_Dims_create must not be asked for the impossible. */
	long given = 1;
	int free_dims = 0;
	for (int d = 0; d < 3; d++) {
		given *= dims[d] ? dims[d] : 1;
		free_dims += dims[d] == 0;
	}
	int ok = free_dims ? size % given == 0 : given == size;
	if (ok)
		ok = MPI_Dims_create(size, 3, dims) == MPI_SUCCESS;
	for (int d = 0; ok && d < 3; d++)
		ok = dims[d] <= n;
	if (!ok) {
		if (rank == 0)
			fprintf(stderr,
				"%s: --px/--py/--pz: no process grid of %d "
				"ranks with at most %ld per dimension fits the "
				"given ones\n",
				prog, size, n);
		MPI_Finalize();
		return 1;
	}
	int periods[3] = {0, 0, 0};
	MPI_Comm cart;
	MPI_Cart_create(MPI_COMM_WORLD, 3, dims, periods, 0, &cart);
	int coords[3];
	MPI_Cart_coords(cart, rank, 3, coords);

	struct block b;
	int lo[3]; /* global index of the first local point */
	for (int d = 0; d < 3; d++) {
		int q = (int)(n / dims[d]), r = (int)(n % dims[d]);
		b.l[d] = q + (coords[d] < r);
		lo[d] = coords[d] * q + (coords[d] < r ? coords[d] : r);
	}
	b.sx = (size_t)b.l[0] + 2;
	b.sy = b.sx * ((size_t)b.l[1] + 2);
	size_t total = b.sy * ((size_t)b.l[2] + 2);
	double *u = calloc(total, sizeof *u);
	double *v = calloc(total, sizeof *v);
	int maxface = 0;
	for (int d = 0; d < 3; d++) {
		int f = b.l[(d + 1) % 3] * b.l[(d + 2) % 3];
		maxface = f > maxface ? f : maxface;
	}
	double *sbuf = malloc(6 * (size_t)maxface * sizeof *sbuf);
	double *rbuf = malloc(6 * (size_t)maxface * sizeof *rbuf);
	if (u == NULL || v == NULL || sbuf == NULL || rbuf == NULL) {
		fprintf(stderr, "%s: out of memory\n", prog);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	/* The boundary value u = 1 on the global z = 0 face lives in the
	 * ghost layer of the ranks that own it, in both arrays. */
	if (lo[2] == 0)
		for (int j = 0; j <= b.l[1] + 1; j++)
			for (int i = 0; i <= b.l[0] + 1; i++)
				u[at(&b, i, j, 0)] = v[at(&b, i, j, 0)] = 1.0;

	int nb[3][2];
	for (int d = 0; d < 3; d++)
		MPI_Cart_shift(cart, d, 1, &nb[d][0], &nb[d][1]);

	double res = 0.0;
	for (long it = 0; it < iters; it++) {
		MPI_Request req[12];
		int nreq = 0;
		for (int d = 0; d < 3; d++) {
			for (int s = 0; s < 2; s++) {
				double *sb = sbuf + (2 * d + s) * maxface;
				double *rb = rbuf + (2 * d + s) * maxface;
				int cnt = face(&b, u, d, s ? b.l[d] : 1, sb, 1);
				MPI_Irecv(rb, cnt, MPI_DOUBLE, nb[d][s], d,
					  cart, &req[nreq++]);
				MPI_Isend(sb, cnt, MPI_DOUBLE, nb[d][s], d,
					  cart, &req[nreq++]);
			}
		}
		MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE);
		for (int d = 0; d < 3; d++)
			for (int s = 0; s < 2; s++)
				if (nb[d][s] != MPI_PROC_NULL)
					face(&b, u, d, s ? b.l[d] + 1 : 0,
					     rbuf + (2 * d + s) * maxface, 0);

		double local = 0.0;
		for (int k = 1; k <= b.l[2]; k++) {
			for (int j = 1; j <= b.l[1]; j++) {
				for (int i = 1; i <= b.l[0]; i++) {
					size_t a = at(&b, i, j, k);
					double x = (u[a - 1] + u[a + 1] +
						    u[a - b.sx] + u[a + b.sx] +
						    u[a - b.sy] + u[a + b.sy]) /
						   6.0;
					double dx = fabs(x - u[a]);
					local = dx > local ? dx : local;
					v[a] = x;
				}
			}
		}
		double *t = u;
		u = v;
		v = t;
		MPI_Allreduce(&local, &res, 1, MPI_DOUBLE, MPI_MAX, cart);
	}

	/* An integer checksum, so that the sum does not depend on the order
	 * in which the ranks' parts are added. */
	long long sum = 0, gsum = 0;
	for (int k = 1; k <= b.l[2]; k++)
		for (int j = 1; j <= b.l[1]; j++)
			for (int i = 1; i <= b.l[0]; i++)
				sum +=
				    llround(u[at(&b, i, j, k)] * 4294967296.0);
	MPI_Reduce(&sum, &gsum, 1, MPI_LONG_LONG, MPI_SUM, 0, cart);
	if (rank == 0)
		printf("jacobi3d N=%ld sweeps=%ld residual=%.12e "
		       "checksum=%lld\n",
		       n, iters, res, gsum);
	free(u);
	free(v);
	free(sbuf);
	free(rbuf);
	MPI_Comm_free(&cart);
	MPI_Finalize();
	return 0;
}
