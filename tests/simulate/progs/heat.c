/*
 * heat.c: a test program in the shape of a real iterative solver, for the
 * simulate tests: the sizes come from an input deck (`key = value` lines,
 * `#` comments), the grid's rows are split in strips over the ranks, and
 * every iteration exchanges halo rows with MPI_Irecv/MPI_Isend/MPI_Waitall
 * (MPI_PROC_NULL at the edges), sweeps (Jacobi, Laplace with a hot top
 * wall) and, every `check_every` iterations, takes the largest change with
 * MPI_Allreduce: the iteration count depends on the input (nx, tol).
 * With `guard_edges = 1` in the deck it exchanges only with the neighbours
 * that exist, behind `if`s, as many codes do (no MPI_PROC_NULL): a 1-rank
 * run then makes no point-to-point call at all. At the end a checksum of
 * the grid goes to rank 0 with MPI_Reduce, which prints it with the
 * iteration count and the final change.
 * With `persistent = 1` the halo exchange is set up once with
 * MPI_Recv_init/MPI_Send_init, one set of requests per grid buffer (the
 * sweep swaps two), and every iteration starts its set with MPI_Startall
 * and finishes it with MPI_Waitall, as PETSc's scatters and many CFD
 * codes do; MPI_Request_free at the end.
 *
 * Not for: numerical accuracy (a fixed-point iteration of a few hundred
 * steps; the run time's shape is what the tests need).
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IDX(i, j) ((size_t)(i) * (size_t)(nx + 2) + (size_t)(j))

struct deck {
	int nx, ny, max_iter, check_every, guard_edges, persistent;
	double tol;
};

/* Reads `path`; unknown keys are an error, as real codes do. */
static int read_deck(const char *path, struct deck *d)
{
	char line[256], key[64];
	double v;
	int ln = 0;
	FILE *f = fopen(path, "r");
	*d = (struct deck){64, 64, 2000, 5, 0, 0, 1e-3};
	if (!f) {
		fprintf(stderr, "heat: %s: cannot open\n", path);
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		ln++;
		line[strcspn(line, "#\n")] = '\0';
		if (line[strspn(line, " \t")] == '\0')
			continue;
		if (sscanf(line, " %63[a-z_] = %lf", key, &v) != 2) {
			fprintf(stderr, "heat: %s:%d: expected key = value\n",
				path, ln);
			fclose(f);
			return -1;
		}
		if (!strcmp(key, "nx"))
			d->nx = (int)v;
		else if (!strcmp(key, "ny"))
			d->ny = (int)v;
		else if (!strcmp(key, "max_iter"))
			d->max_iter = (int)v;
		else if (!strcmp(key, "check_every"))
			d->check_every = (int)v;
		else if (!strcmp(key, "tol"))
			d->tol = v;
		else if (!strcmp(key, "guard_edges"))
			d->guard_edges = v != 0;
		else if (!strcmp(key, "persistent"))
			d->persistent = v != 0;
		else {
			fprintf(stderr, "heat: %s:%d: unknown key '%s'\n", path,
				ln, key);
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	struct deck d = {0};
	int rank, size, up, down, rows, iter = 0;
	double change = 1e30;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	if (argc < 2 || read_deck(argv[1], &d) < 0 || d.nx < 4 || d.ny < size ||
	    d.check_every < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: heat DECK (nx >= 4, ny >= "
					"ranks)\n");
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	int nx = d.nx;
	rows = d.ny / size + (rank < d.ny % size);
	up = rank > 0 ? rank - 1 : MPI_PROC_NULL;
	down = rank < size - 1 ? rank + 1 : MPI_PROC_NULL;
	double *u = calloc((size_t)(rows + 2) * (size_t)(nx + 2), sizeof *u);
	double *w = calloc((size_t)(rows + 2) * (size_t)(nx + 2), sizeof *w);
	if (!u || !w)
		MPI_Abort(MPI_COMM_WORLD, 3);
	if (rank == 0) /* the hot wall: row 0 of the first strip */
		for (int j = 0; j < nx + 2; j++)
			u[IDX(0, j)] = w[IDX(0, j)] = 100.0;

	int has_up = !d.guard_edges || up != MPI_PROC_NULL,
	    has_down = !d.guard_edges || down != MPI_PROC_NULL, np = 0;
	MPI_Request prq[2][4]; /* persistent: a set per buffer, u then w */
	for (int b = 0; d.persistent && b < 2; b++) {
		double *g = b ? w : u;
		np = 0;
		if (has_up)
			MPI_Recv_init(&g[IDX(0, 0)], nx + 2, MPI_DOUBLE, up, 1,
				      MPI_COMM_WORLD, &prq[b][np++]);
		if (has_down)
			MPI_Recv_init(&g[IDX(rows + 1, 0)], nx + 2, MPI_DOUBLE,
				      down, 2, MPI_COMM_WORLD, &prq[b][np++]);
		if (has_up)
			MPI_Send_init(&g[IDX(1, 0)], nx + 2, MPI_DOUBLE, up, 2,
				      MPI_COMM_WORLD, &prq[b][np++]);
		if (has_down)
			MPI_Send_init(&g[IDX(rows, 0)], nx + 2, MPI_DOUBLE,
				      down, 1, MPI_COMM_WORLD, &prq[b][np++]);
	}

	while (iter < d.max_iter && change > d.tol) {
		MPI_Request rq[4];
		int nr = 0;
		if (d.persistent && np > 0) {
			/* u is the first buffer at even iterations */
			MPI_Startall(np, prq[iter % 2]);
			MPI_Waitall(np, prq[iter % 2], MPI_STATUSES_IGNORE);
		}
		if (!d.persistent && has_up)
			MPI_Irecv(&u[IDX(0, 0)], nx + 2, MPI_DOUBLE, up, 1,
				  MPI_COMM_WORLD, &rq[nr++]);
		if (!d.persistent && has_down)
			MPI_Irecv(&u[IDX(rows + 1, 0)], nx + 2, MPI_DOUBLE,
				  down, 2, MPI_COMM_WORLD, &rq[nr++]);
		if (!d.persistent && has_up)
			MPI_Isend(&u[IDX(1, 0)], nx + 2, MPI_DOUBLE, up, 2,
				  MPI_COMM_WORLD, &rq[nr++]);
		if (!d.persistent && has_down)
			MPI_Isend(&u[IDX(rows, 0)], nx + 2, MPI_DOUBLE, down, 1,
				  MPI_COMM_WORLD, &rq[nr++]);
		if (nr > 0)
			MPI_Waitall(nr, rq, MPI_STATUSES_IGNORE);
		if (rank == 0) /* the wall stays hot */
			for (int j = 0; j < nx + 2; j++)
				u[IDX(0, j)] = 100.0;
		double local = 0;
		for (int i = 1; i <= rows; i++) {
#pragma GCC ivdep
			for (int j = 1; j <= nx; j++) {
				w[IDX(i, j)] =
				    0.25 *
				    (u[IDX(i - 1, j)] + u[IDX(i + 1, j)] +
				     u[IDX(i, j - 1)] + u[IDX(i, j + 1)]);
				double c = fabs(w[IDX(i, j)] - u[IDX(i, j)]);
				local = c > local ? c : local;
			}
		}
		double *t = u;
		u = w;
		w = t;
		iter++;
		if (iter % d.check_every == 0)
			MPI_Allreduce(&local, &change, 1, MPI_DOUBLE, MPI_MAX,
				      MPI_COMM_WORLD);
	}
	double sum = 0, total = 0;
	for (int i = 1; i <= rows; i++)
		for (int j = 1; j <= nx; j++)
			sum += u[IDX(i, j)];
	MPI_Reduce(&sum, &total, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("iterations %d change %g checksum %.6g\n", iter, change,
		       total);
	for (int b = 0; d.persistent && b < 2; b++)
		for (int k = 0; k < np; k++)
			MPI_Request_free(&prq[b][k]);
	free(u);
	free(w);
	MPI_Finalize();
	return 0;
}
