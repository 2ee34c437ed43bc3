/*
 * answer.h: what turns a prediction into something a person acts on, the
 * same in mpipredict-predict and mpipredictd's answer: the Slurm time
 * limit an answer suggests, and the known names nearest a mistyped one.
 * Nothing here reads a model or a store.
 */
#ifndef MPP_COMMON_ANSWER_H
#define MPP_COMMON_ANSWER_H

#include <stddef.h>

/* The time limit to give Slurm for an answer whose upper bound is
 * upper_s: rounded up to the next whole minute (at least one minute, as
 * Slurm's own limits count minutes), written as D-HH:MM:SS ("0-00:14:00")
 * into buf. Returns the limit in seconds, or -1 (buf "") when upper_s is
 * not a finite positive time or the limit would pass 100 years. */
long long mpp_slurm_limit(double upper_s, char *buf, size_t len);

/* Orders names[0..n) in place, the nearest `name` first: the names that
 * contain it (case folded: "test_HPCCG" for "hpccg"), then those it
 * contains ("cg"), then the others, each group by edit distance
 * (Levenshtein, case folded). Ties keep their order. */
void mpp_names_nearest(const char *name, const char **names, size_t n);

#endif
