/*
 * ti.h: time-independent traces as libmpipredict's trace mode writes them
 * (collector/trace.h), in memory; their conversion into what SimGrid's
 * replay accepts; and the scaling of their computation to an input and a
 * rank count that were never run.
 *
 * Not for: running SimGrid (replay.c) or the platform (platform.c).
 * Ownership: a mpp_trace owns its actions; mpp_trace_free releases them.
 */
#ifndef MPP_SIM_TI_H
#define MPP_SIM_TI_H

#include <stddef.h>

#include "server/strmap.h"

struct mpp_act {
	char name[32];
	char *args;   /* the tokens after the name, or "" */
	double flops; /* compute: flops at 1e9 flop/s; else 0 */
	int site;     /* index in the trace's sites, -1: none */
};

struct mpp_trace {
	int nranks;
	struct mpp_act **a; /* a[r][i] */
	size_t *n;
	double wall; /* slowest rank's "# wall" (0 when absent) */
	char args[4096];
	/* Call sites: "<object>\t0x<offset>" as traced, and what addr2line
	 * made of each ("file.c:123", NULL: unresolved). */
	char **site_key, **site_at;
	size_t nsites, capsites;
	mpp_strmap site_of; /* site_key -> index: a skeleton of 1024 ranks has
			     * 10^4 keys, one object per rank (SMPI's copies) */
	int sited; /* every call but init and finalize has a resolved site */
};

/* Read DIR/meta and DIR/rank-<r>.ti for every rank. Consecutive compute
 * lines are merged. A call without a "# @" line takes the site of the
 * call before it (a resolved wildcard receive, a start's requests).
 * Call sites are resolved with addr2line on the objects they name.
 * Returns 0, or -1 with err naming file and line (a peer that is not a
 * rank of the run included). */
int mpp_trace_read(const char *dir, struct mpp_trace *t, char *err,
		   size_t errlen);
void mpp_trace_free(struct mpp_trace *t);

/* Resolve t's unresolved sites again, in `prog` for objects that no
 * longer exist (SMPI runs each rank from a copy of the program that it
 * deletes). */
void mpp_trace_sites(struct mpp_trace *t, const char *prog);

/* Whether a and b make the same MPI calls in the same order on every
 * rank, by name: computation, tests (a poll finishes when the timing
 * says) and resolved wildcard receives (placed by which message came
 * first) left out. 0 when they do; else 1, with msg naming the rank and
 * the first call that differs. */
int mpp_trace_same_calls(const struct mpp_trace *a, const struct mpp_trace *b,
			 char *msg, size_t len);

/* Segments are matched by the source locations of the calls around them
 * when every trace has them (a build with -g), else by the calls' names.
 * Decides for the scaling and the noise that follow; returns 1 for
 * sites, 0 for names (a trace without sites), -1 for names because the
 * sites do not match (less than half the skeleton's kinds are in any
 * training trace: builds whose compilers place calls on other lines), 2
 * when no training trace calls MPI between MPI_Init and MPI_Finalize
 * (one segment each: nothing to match, by sites or by names). */
int mpp_trace_match_sites(const struct mpp_trace *skel,
			  const struct mpp_trace *train, size_t ntrain);

/* Scale the computation of `skel` (a trace of the target input and rank
 * count, its computation benchmarked by SMPI) so that each segment kind's
 * total matches what the single-rank traces `train[0..ntrain)` give for
 * the target input (per-segment power law in the parameters that vary
 * among them), spread over the ranks and occurrences as SMPI measured
 * them. Traces of the same arguments are repeats: their median per
 * segment kind, or their minimum when `use_min` (the least disturbed run
 * on a shared machine). `target_args` are the target's program
 * arguments. Writes one line per segment kind to `report` when not NULL.
 * Returns 0, or -1 with err. */
int mpp_trace_scale(struct mpp_trace *skel, const struct mpp_trace *train,
		    size_t ntrain, const char *target_args, int use_min,
		    char *report, size_t replen, char *err, size_t errlen);

/* After mpp_trace_scale: set the scaled computation's total from counted
 * work instead of the time laws. work[j] is training run j's counted work
 * (its loop counters summed over the ranks; <= 0: unknown). The target's
 * work comes from the counters' power law in the parameters; the cost per
 * unit (traced computation / work, median or minimum over the repeats)
 * from the input with the most work at the target's rank count (with none
 * there, the one whose work per rank is nearest the target's). A code
 * whose cost per iteration grows while its data leave a cache and then
 * stays (cg: 8.5 ns per point at -n 24, 11.7 at -n 40 and -n 52) is
 * over-predicted by a time law that extrapolates the growth. Every
 * compute action of skel is multiplied by one factor (*factor), so the
 * kinds keep the laws' shares. With a work unknown for some input,
 * nothing changes (*factor 1, said in report). Returns 0, or -1 with
 * err. */
int mpp_trace_work_cost(struct mpp_trace *skel, const struct mpp_trace *train,
			size_t ntrain, const double *work,
			const char *target_args, int use_min, double *factor,
			char *report, size_t replen, char *err, size_t errlen);
/* The training traces whose machine noise a target of `nranks` ranks
 * takes (mpp_trace_noise): at the largest rank count not above `nranks`,
 * the largest input, all its repeats. Writes up to `max` of them to
 * `out`; returns how many (0: no trace at `nranks` or fewer ranks). */
size_t mpp_trace_noise_sources(const struct mpp_trace *train, size_t ntrain,
			       int nranks, const struct mpp_trace **out,
			       size_t max);

/* Give the segments of each kind of the scaled `skel` the timing of the
 * same kind's segments in `src[0..nsrc)`, a block of the run from each,
 * position by position (rank r takes rank r mod the source's ranks),
 * keeping each kind's total. *changed: segments reshaped. Returns 0, or
 * -1 with err. */
int mpp_trace_noise(struct mpp_trace *skel, const struct mpp_trace *const *src,
		    size_t nsrc, size_t *changed, char *err, size_t errlen);

/* How far the whole run's computation law (mpp_trace_scale's) is off,
 * from the traces alone: the training input nearest the target (log
 * distance over the law's variables and the rank count; *near: one of
 * its traces) predicted by the law fitted on the other inputs. *per: its
 * error |log(law / traced)| over its distance from the nearest other
 * input (NAN: one input, or no law); *dist: the target's distance from
 * it. Returns 0, or -1 out of memory. */
int mpp_trace_law_error(const struct mpp_trace *train, size_t ntrain,
			const char *target_args, int nranks, int use_min,
			double *per, double *dist, size_t *near);

/* Write DIR/r<r>.ti (replayable actions) and DIR/list. Returns the number
 * of actions dropped or approximated in *approx. */
int mpp_trace_write_replay(const struct mpp_trace *t, const char *dir,
			   size_t *approx, char *err, size_t errlen);

/* Total computation (seconds) of rank r. */
double mpp_trace_compute(const struct mpp_trace *t, int r);

#endif
