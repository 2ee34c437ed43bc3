/*
 * rng.h: the deterministic random numbers of the synthetic-run generators
 * (gen_runs.c, gen_md.c): splitmix64 over one static state, uniform in
 * (0, 1) and standard normal (Box-Muller). Each generator sets `state`
 * from its --seed; the same seed gives the same rows. Test code only.
 */
#ifndef MPP_TESTS_REGRESS_RNG_H
#define MPP_TESTS_REGRESS_RNG_H

#include <math.h>
#include <stdint.h>

static uint64_t state;

static uint64_t next(void)
{
	uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double uniform(void)
{
	return ((double)(next() >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(void)
{
	return sqrt(-2 * log(uniform())) * cos(2 * M_PI * uniform());
}

#endif
