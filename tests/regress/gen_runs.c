/*
 * gen-runs: synthetic run rows with a known answer, for the regress tests
 * and bench-train. Deterministic for a given --seed.
 *
 * A run of a stencil code with size n (-n), iterations i (--iters) on p
 * ranks (nprocs) has three true features
 *   loop:solver.c:40:5.mean                 = n^3 i / p
 *   bytes:halo.c:88:9:MPI_Sendrecv.mean     = 8 n^2 i
 *   call:solver.c:97:3:MPI_Allreduce.mean   = i p
 * and run time 0.35 + 1e-8 x1 + 4e-8 x2 + 1e-3 x3 seconds, times (1 + noise).
 * With --step 1 a fourth true feature is a step, not a power law, of the
 * job parameters (messages past a size threshold, as a histogram bucket
 * counts them):
 *   comm:intra:size:65536-1048575:msgs.mean = i when n >= 128, else 0
 * and adds 4e-3 x4 seconds.
 * The other columns are distractors unrelated to the run time, each with
 * its own scale from 1 to 1e9, a few constant, plus exact and near-exact
 * copies of true and distractor columns (nested loops counting the same
 * thing). Columns come in a shuffled order fixed by the seed.
 *
 * usage: gen-runs [--runs N] [--features K] [--seed S] [--noise F]
 *                 [--app A] [--build B] [--first I] [--zero-serial 1]
 *                 [--step 1]
 * --first numbers the run ids from I, so two calls make disjoint sets.
 * --zero-serial 1 makes the Allreduce count 0 on one rank (no peers).
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

enum kind { TRUE1, TRUE2, TRUE3, STEP, NOISE, CONSTANT, COPY };

struct column {
	char name[64];
	enum kind kind;
	double scale;  /* NOISE, CONSTANT: typical value; COPY: factor */
	size_t of;     /* COPY: the column copied */
	double jitter; /* COPY: relative noise of a near-exact copy */
};

int main(int argc, char **argv)
{
	size_t runs = 60, k = 400, first = 1;
	unsigned long seed = 1;
	double noise = 0.01;
	const char *app = "stencil", *build = "b1";
	int zero_serial = 0, step = 0;

	for (int i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--runs"))
			runs = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--features"))
			k = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--seed"))
			seed = strtoul(argv[i + 1], NULL, 10);
		else if (!strcmp(argv[i], "--noise"))
			noise = strtod(argv[i + 1], NULL);
		else if (!strcmp(argv[i], "--app"))
			app = argv[i + 1];
		else if (!strcmp(argv[i], "--build"))
			build = argv[i + 1];
		else if (!strcmp(argv[i], "--zero-serial"))
			zero_serial = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--step"))
			step = atoi(argv[i + 1]);
		else if (!strcmp(argv[i], "--first"))
			first = strtoul(argv[i + 1], NULL, 10);
		else {
			fprintf(stderr, "gen-runs: unknown option %s\n",
				argv[i]);
			return 1;
		}
	}
	if (k < 10) {
		fprintf(stderr, "gen-runs: --features must be >= 10\n");
		return 1;
	}
	/* The columns, from the structure seed. */
	state = seed;
	struct column *c = calloc(k, sizeof(*c));
	size_t *order = malloc(k * sizeof(*order));
	if (!c || !order)
		return 1;
	c[0] = (struct column){"loop:solver.c:40:5.mean", TRUE1, 1, 0, 0};
	c[1] = (struct column){"bytes:halo.c:88:9:MPI_Sendrecv.mean", TRUE2, 1,
			       0, 0};
	c[2] = (struct column){"call:solver.c:97:3:MPI_Allreduce.mean", TRUE3,
			       1, 0, 0};
	c[3] = (struct column){"then:solver.c:41:9.mean", COPY, 1, 0, 0};
	c[4] = (struct column){"loop:solver.c:43:9.mean", COPY, 2, 0, 0};
	c[5] = (struct column){"loop:halo.c:80:5.mean", COPY, 0.125, 1, 1e-12};
	for (size_t j = 6; j < k; j++) {
		double u = uniform();
		if (j == 6 && step) {
			c[j] = (struct column){
			    "comm:intra:size:65536-1048575:msgs.mean", STEP, 1,
			    0, 0};
			continue;
		}
		if (j % 10 == 9) {
			size_t of = 6 + (size_t)(uniform() * (double)(j - 6));
			c[j] = (struct column){"", COPY, 1 + 9 * uniform(), of,
					       uniform() < 0.5 ? 0 : 1e-11};
			snprintf(c[j].name, sizeof(c[j].name),
				 "then:noise.c:%zu:7.mean", j);
		} else if (j % 50 == 7) {
			c[j] = (struct column){"", CONSTANT,
					       floor(pow(10, 9 * u)), 0, 0};
			snprintf(c[j].name, sizeof(c[j].name),
				 "call:init.c:%zu:3:MPI_Bcast.mean", j);
		} else {
			c[j] = (struct column){"", NOISE, pow(10, 9 * u), 0, 0};
			snprintf(c[j].name, sizeof(c[j].name),
				 "loop:noise.c:%zu:5.mean", j);
		}
	}
	for (size_t j = 0; j < k; j++)
		order[j] = j;
	for (size_t j = k - 1; j > 0; j--) {
		size_t i = (size_t)(next() % (j + 1)), t = order[j];
		order[j] = order[i];
		order[i] = t;
	}
	printf("run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,"
	       "args");
	for (size_t j = 0; j < k; j++)
		printf(",%s", c[order[j]].name);
	printf("\n");

	/* The runs, from a row seed that --first moves. */
	static const double sizes[] = {32, 48, 64, 96, 128, 160, 192, 256};
	double *x = malloc(k * sizeof(*x));
	if (!x)
		return 1;
	state = seed * 7919 + first;
	for (size_t r = 0; r < runs; r++) {
		double n = sizes[next() % 8], it = 10 + (double)(next() % 91),
		       p = (double)(1u << (next() % 5));
		for (size_t j = 0; j < k; j++) {
			switch (c[j].kind) {
			case TRUE1:
				x[j] = n * n * n * it / p;
				break;
			case TRUE2:
				x[j] = 8 * n * n * it;
				break;
			case TRUE3:
				x[j] = zero_serial && p == 1 ? 0 : it * p;
				break;
			case STEP:
				x[j] = n >= 128 ? it : 0;
				break;
			case NOISE:
				x[j] = round(c[j].scale * exp(0.5 * normal()) *
					     100) /
				       100;
				break;
			case CONSTANT:
				x[j] = c[j].scale;
				break;
			case COPY:
				x[j] = c[j].scale * x[c[j].of] *
				       (1 + c[j].jitter * normal());
				break;
			}
		}
		double y = 0.35 + 1e-8 * x[0] + 4e-8 * x[1] + 1e-3 * x[2] +
			   (step ? 4e-3 * x[6] : 0);
		y *= 1 + noise * normal();
		printf("r%zu,%s,%s,2026-11-22T04:00:00Z,,%g,1,%.6f,-n %g "
		       "--iters=%g out.dat",
		       first + r, app, build, p, y, n, it);
		for (size_t j = 0; j < k; j++)
			printf(",%.17g", x[order[j]]);
		printf("\n");
	}
	free(x);
	free(c);
	free(order);
	return 0;
}
