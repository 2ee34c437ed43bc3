/*
 * script.h: what a Slurm batch script says about the MPI job it launches.
 *
 * Finds the first launcher line (srun, mpirun, mpiexec, by basename, after
 * variable assignments and `exec`/`time`/`env` prefixes), skips the
 * launcher's own options and their values (`-n 4`, `--ntasks=4`, `-np 4`,
 * `--mpi=pmix`, `-mca btl self`, ...) and keeps the executable and its
 * arguments. Task and node counts come from the launcher's options, else
 * from `#SBATCH -n/--ntasks/-N/--nodes/--ntasks-per-node` lines. A
 * `#MPIPREDICT app=NAME` line names the app explicitly. Declared
 * parameters (regress/params.h): `#MPIPREDICT param N=20000 NB=192` lines
 * and `MPIPREDICT_PARAMS="N=20000 NB=192"` assignments (`export` or not)
 * before or on the launcher line; the last assignment wins, param lines
 * add to it.
 *
 * The shell syntax understood is what such lines use: words, quotes,
 * backslashes, line continuations, comments, `;`, `&&`, `||`, `|`, `&` and
 * redirections (skipped with their target). Nothing is expanded: `$EXE`
 * stays `$EXE`. Not a shell; not for running anything.
 *
 * Ownership: the job owns its strings; free it with mpp_script_job_free().
 */
#ifndef MPP_SERVER_SCRIPT_H
#define MPP_SERVER_SCRIPT_H

#include <stddef.h>

typedef struct mpp_script_job {
	char *app;      /* from #MPIPREDICT app=NAME, or NULL */
	char *launcher; /* "srun", "mpirun", "mpiexec" as found, or NULL */
	char *exe;      /* the executable as written, or NULL */
	char **argv;    /* its arguments, argc of them */
	size_t argc;
	double ntasks;  /* -1 when the script does not say */
	double nnodes;  /* -1 when the script does not say */
	char *declared; /* "N=20000 NB=192": declared parameters, or NULL */
} mpp_script_job;

/* Parses text[0..len). Returns 0 (a script with no launcher line is not an
 * error: launcher and exe are NULL), MPP_EINVAL for an unterminated quote
 * on a line that matters or a declared parameter that is not NAME=NUMBER
 * (err names the line), or MPP_ENOMEM. */
int mpp_script_parse(const char *text, size_t len, mpp_script_job *out,
		     char *err, size_t errlen);

void mpp_script_job_free(mpp_script_job *job);

#endif
