/*
 * params.h: what a job submission shows, as named numbers.
 *
 * Training reads them from a run row (nprocs, nnodes, args); the daemon from
 * a request or a batch script. Both must name them the same way, so this is
 * the one place that turns a command line into parameters:
 *
 *   "nprocs", "nnodes"     the task and node counts;
 *   "-n", "--size", ...    an option followed by a number (`-n 512`,
 *                          `--size 512`) or joined by '=' (`--size=512`);
 *                          the name is the option as written;
 *   "#1", "#2", ...        a number among the positional arguments, by its
 *                          1-based position among all positional arguments
 *                          (`./app 64 out.txt 10` gives #1=64 and #3=10);
 *   "N", "nx", ...         a positional NAME=NUMBER (NAME a C identifier:
 *                          `./app nx=100`), and the parameters a job
 *                          declares (issue 15): `#MPIPREDICT param N=20000
 *                          NB=192` in a batch script, or MPIPREDICT_PARAMS=
 *                          "N=20000 NB=192" in the job's environment, which
 *                          the collector appends to the run row's args, so
 *                          that training and the daemon see the same names.
 * A token is a number when strtod() consumes all of it and it is finite.
 * An option followed by a non-number is a flag; the next token is positional.
 * Values <= 0 are kept here; the power-law fits skip them.
 *
 * Ownership: an mpp_params owns its names; free it with mpp_params_free().
 */
#ifndef MPP_PARAMS_H
#define MPP_PARAMS_H

#include <stddef.h>

typedef struct mpp_params {
	size_t n;
	char **names;
	double *values;
} mpp_params;

/* argv[0..argc) are the program's arguments, without the program name.
 * nprocs/nnodes < 0 mean unknown (then not set). Returns 0, or MPP_ENOMEM. */
int mpp_params_from_argv(const char *const *argv, size_t argc, double nprocs,
			 double nnodes, mpp_params *out);

/* The same from a run row's `args` field (arguments joined by spaces). */
int mpp_params_from_string(const char *args, double nprocs, double nnodes,
			   mpp_params *out);

/* 1 when tok[0..len) is a declaration NAME=NUMBER, else 0. */
int mpp_params_declared_ok(const char *tok, size_t len);

/* How a job gives the parameter `name` that a prediction needs and its
 * job did not show, for the message that says it is missing: the ranks
 * and nodes by the job's counts, "#K" as the K-th positional argument, an
 * option on the command line (`-n 64`), a C identifier declared
 * (`#MPIPREDICT param N=...`, MPIPREDICT_PARAMS) or on the command line.
 * example: a value the training runs had (NAN: none shown). Writes one
 * clause into buf ("give it on the command line as the training runs
 * did (-n 64)"). */
void mpp_params_hint(const char *name, double example, char *buf, size_t len);

/* Add declared parameters ("N=20000 NB=192", whitespace-separated
 * NAME=NUMBER) to p, replacing values of the same names. MPP_EINVAL on a
 * token of another shape (p may then hold the tokens before it),
 * MPP_ENOMEM. */
int mpp_params_declare(mpp_params *p, const char *decl);

/* Value of `name`, or NULL when absent. */
const double *mpp_params_get(const mpp_params *p, const char *name);

void mpp_params_free(mpp_params *p);

#endif
