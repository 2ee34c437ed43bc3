/*
 * app_args.h: command-line helpers shared by the example MPI applications in
 * tests/apps/ (prime, jacobi3d, is, cg). They are test programs for
 * mpipredict, not part of it: nothing here is installed or linked into the
 * project's own programs.
 *
 * The applications parse their arguments before MPI_Init, so that a usage
 * error neither starts MPI nor leaves a run row behind when the program is
 * instrumented. Only the process that will become rank 0 prints, so that a
 * usage error under `mpirun -np 4` shows one message, not four.
 */
#ifndef APP_ARGS_H
#define APP_ARGS_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

/* True unless a launcher told this process it is not rank 0 (OpenMPI sets
 * OMPI_COMM_WORLD_RANK, MPICH's hydra PMI_RANK, PMIx launchers PMIX_RANK). */
static inline int app_first_process(void)
{
	static const char *const vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK",
					   "PMIX_RANK"};
	for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
		const char *v = getenv(vars[i]);
		if (v != NULL && *v != '\0')
			return atoi(v) == 0;
	}
	return 1;
}

/* Parse `text`, the value of option `name`, as an integer in [min, max].
 * Returns 0 and sets *out, or prints one line naming the option and returns
 * -1. */
static inline int app_long(const char *prog, const char *name, const char *text,
			   long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0' || v < min || v > max) {
		if (app_first_process())
			fprintf(stderr,
				"%s: %s: expected an integer in [%ld, %ld], "
				"got '%s'\n",
				prog, name, min, max, text);
		return -1;
	}
	*out = v;
	return 0;
}

/* The same for a floating-point value in [min, max]. */
static inline int app_double(const char *prog, const char *name,
			     const char *text, double min, double max,
			     double *out)
{
	char *end;
	errno = 0;
	double v = strtod(text, &end);
	if (errno != 0 || end == text || *end != '\0' || !(v >= min) ||
	    !(v <= max)) {
		if (app_first_process())
			fprintf(stderr,
				"%s: %s: expected a number in [%g, %g], got "
				"'%s'\n",
				prog, name, min, max, text);
		return -1;
	}
	*out = v;
	return 0;
}

/* One line naming an unknown option or a missing value, as getopt_long
 * reports it through optopt/argv (call with opterr = 0). */
static inline void app_bad_option(const char *prog, const char *arg)
{
	if (app_first_process())
		fprintf(
		    stderr,
		    "%s: unknown option or missing value: %s (try --help)\n",
		    prog, arg);
}

#endif
