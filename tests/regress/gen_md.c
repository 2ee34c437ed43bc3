/*
 * gen-md: synthetic run rows of a molecular-dynamics code, for the test of
 * a stable choice of terms (issue 15, requirement 3). Not for anything
 * but the tests and benches of regress/. Deterministic for a given --seed:
 * two seeds are two sessions of runs of the same design.
 *
 * A run with box size s (-s), steps n (--steps) on p ranks has
 *   loop:md_force.c:212:5.mean   = 27 s^3 n / p      (pair forces)
 *   loop:md_comm.c:88:9.mean     = 6 s^2.1 n / p^0.7 (halo atoms)
 *   loop:md_setup.c:40:3.mean    = s^3 / p           (lattice set-up)
 *   loop:md_main.c:150:2.mean    = n                 (time steps)
 * and run time 0.3 + F x_force + H x_halo seconds, times (1 + noise),
 * where F and H make the force and halo shares equal at s = 24, n = 100,
 * p = 1 (--force-share changes that). Over the training sizes (s from 12
 * to 32) a single term, force or halo, fits the times almost equally; at
 * larger s the force term's share grows, so the two single-term models
 * part. The other columns are distractors: lognormal noise, a constant.
 *
 * usage: gen-md [--runs N] [--seed S] [--noise F] [--smin A] [--smax B]
 *               [--force-share X] [--first I]
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rng.h"

#define NDISTRACT 12

int main(int argc, char **argv)
{
	size_t runs = 60, first = 0;
	unsigned long seed = 1;
	unsigned pranks = 4;
	double noise = 0.03, smin = 12, smax = 32, fshare = 0.5;

	for (int i = 1; i + 1 < argc; i += 2) {
		const char *o = argv[i], *v = argv[i + 1];
		if (!strcmp(o, "--runs"))
			runs = strtoul(v, NULL, 10);
		else if (!strcmp(o, "--seed"))
			seed = strtoul(v, NULL, 10);
		else if (!strcmp(o, "--noise"))
			noise = atof(v);
		else if (!strcmp(o, "--smin"))
			smin = atof(v);
		else if (!strcmp(o, "--smax"))
			smax = atof(v);
		else if (!strcmp(o, "--force-share"))
			fshare = atof(v);
		else if (!strcmp(o, "--ranks-levels"))
			pranks = (unsigned)strtoul(v, NULL, 10);
		else if (!strcmp(o, "--first"))
			first = strtoul(v, NULL, 10);
		else {
			fprintf(stderr, "gen-md: unknown option %s\n", o);
			return 1;
		}
	}
	if (argc % 2 == 0 || !(smin > 0 && smax >= smin) || fshare <= 0 ||
	    fshare > 1) {
		fprintf(stderr, "gen-md: bad arguments (--help: see the "
				"source's opening comment)\n");
		return 1;
	}
	/* Coefficients: at s = 24, n = 100, p = 1 the two terms take
	 * fshare and 1 - fshare of 10 s. */
	double F = 10 * fshare / (27 * pow(24, 3) * 100),
	       H = 10 * (1 - fshare) / (6 * pow(24, 2.1) * 100),
	       scale[NDISTRACT];

	state = 4242;
	for (size_t j = 0; j < NDISTRACT; j++)
		scale[j] = pow(10, 1 + 7 * uniform());
	printf("run_id,app,build_id,started_at,job_id,nprocs,nnodes,runtime_s,"
	       "args,loop:md_force.c:212:5.mean,loop:md_comm.c:88:9.mean,"
	       "loop:md_setup.c:40:3.mean,loop:md_main.c:150:2.mean,"
	       "call:md_main.c:20:3:MPI_Bcast.mean");
	for (size_t j = 0; j < NDISTRACT; j++)
		printf(",loop:md_io.c:%zu:5.mean", 100 + 10 * j);
	printf("\n");
	state = seed * 7919 + first;
	for (size_t r = 0; r < runs; r++) {
		/* Sizes drawn on a log scale, steps 50..400, p in 1..8. */
		double s = round(smin * pow(smax / smin, uniform())),
		       n = 50 + 10 * (double)(next() % 36),
		       p = (double)(1u << (next() % pranks));
		double force = 27 * s * s * s * n / p,
		       halo = round(6 * pow(s, 2.1) * n / pow(p, 0.7));
		double y =
		    (0.3 + F * force + H * halo) * (1 + noise * normal());
		printf("md%zu,md,b1,2026-11-24T04:00:00Z,,%g,1,%.6f,-s %g "
		       "--steps %g,%.17g,%.17g,%.17g,%g,7",
		       first + r, p, y, s, n, force, halo, s * s * s / p, n);
		for (size_t j = 0; j < NDISTRACT; j++)
			printf(",%.4g", scale[j] * exp(0.5 * normal()));
		printf("\n");
	}
	return 0;
}
