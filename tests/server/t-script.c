/*
 * t-script: the batch-script reader (server/script.c) finds the launcher
 * line, skips the launcher's options and their values, and takes task and
 * node counts from the launcher or #SBATCH lines. Each case's expectation
 * was written by hand from the shell and launcher documentation.
 */
#include <stdio.h>
#include <string.h>

#include "regress/model.h"
#include "server/script.h"

struct tcase {
	const char *name, *script;
	const char *app, *launcher, *exe, *args; /* args joined by '|' */
	double ntasks, nnodes;
};

static const struct tcase cases[] = {
    {"srun with joined and separate values",
     "#!/bin/bash\n#SBATCH -N 2\nsrun -n 4 --mpi=pmix -c 2 ./jacobi 512 "
     "--iters=10\n",
     NULL, "srun", "./jacobi", "512|--iters=10", 4, 2},
    {"sbatch counts when srun says none",
     "#SBATCH --ntasks=16\n#SBATCH --nodes 4\nmodule load x\nsrun "
     "/opt/app/bin/lulesh -s 30\n",
     NULL, "srun", "/opt/app/bin/lulesh", "-s|30", 16, 4},
    {"getopt short joined value", "srun -n8 -N1 ./a.out\n", NULL, "srun",
     "./a.out", "", 8, 1},
    {"mpirun -np and two-value -mca",
     "export OMP_NUM_THREADS=1\nmpirun -np 8 -mca btl self,tcp "
     "--bind-to core --oversubscribe ./cg -n 100\n",
     NULL, "mpirun", "./cg", "-n|100", 8, -1},
    {"mpiexec hydra with -genv and -ppn",
     "mpiexec -genv FOO bar -ppn 2 -n 6 ./ep 7\n", NULL, "mpiexec", "./ep", "7",
     6, -1},
    {"nodes times tasks per node",
     "#SBATCH -N 3\n#SBATCH --ntasks-per-node=4\nsrun ./x\n", NULL, "srun",
     "./x", "", 12, 3},
    {"app directive, assignments, prefixes, redirections",
     "#MPIPREDICT app=heat\nOMP=1 time srun --ntasks 2 ./heat_v2 'a b' "
     "\"c\\\"d\" 2>err.txt >out.txt && echo done\n",
     "heat", "srun", "./heat_v2", "a b|c\"d", 2, -1},
    {"line continuation and comments",
     "# srun -n 99 ./wrong\necho start # srun ./wrong\nsrun -n 4 \\\n  "
     "./right 1 \\\n  2 # trailing\n",
     NULL, "srun", "./right", "1|2", 4, -1},
    {"first launcher wins; here-document body skipped",
     "cat <<EOF > input\nsrun ./not-this\nEOF\n/usr/bin/mpirun.openmpi "
     "-n 2 ./this\nsrun ./later\n",
     NULL, "mpirun", "./this", "", 2, -1},
    {"no launcher", "#SBATCH -n 4\n./serial 3\n", NULL, NULL, NULL, "", 4, -1},
    {"pipeline and -- separator", "srun -n 2 -- ./p x | tee log\n", NULL,
     "srun", "./p", "x", 2, -1},
    {"node range takes its minimum", "#SBATCH -N 2-4\nsrun ./r\n", NULL, "srun",
     "./r", "", -1, 2},
};

static int check_str(const char *name, const char *what, const char *want,
		     const char *got)
{
	if ((want == NULL) != (got == NULL) ||
	    (want && strcmp(want, got) != 0)) {
		printf("%s: %s: expected %s, got %s\n", name, what,
		       want ? want : "(none)", got ? got : "(none)");
		return 1;
	}
	return 0;
}

int main(void)
{
	int fail = 0;
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		const struct tcase *c = &cases[i];
		mpp_script_job job;
		char err[256] = "";
		int rc = mpp_script_parse(c->script, strlen(c->script), &job,
					  err, sizeof err);
		if (rc != 0) {
			printf("%s: expected success, got %d (%s)\n", c->name,
			       rc, err);
			fail = 1;
			continue;
		}
		char args[512] = "";
		for (size_t k = 0; k < job.argc; k++) {
			if (k)
				strcat(args, "|");
			strncat(args, job.argv[k],
				sizeof args - strlen(args) - 2);
		}
		fail |= check_str(c->name, "app", c->app, job.app);
		fail |=
		    check_str(c->name, "launcher", c->launcher, job.launcher);
		fail |= check_str(c->name, "exe", c->exe, job.exe);
		fail |= check_str(c->name, "args", c->args, args);
		if (job.ntasks != c->ntasks || job.nnodes != c->nnodes) {
			printf("%s: expected ntasks=%g nnodes=%g, got %g %g\n",
			       c->name, c->ntasks, c->nnodes, job.ntasks,
			       job.nnodes);
			fail = 1;
		}
		mpp_script_job_free(&job);
	}

	/* An unterminated quote on the launcher line is an error naming the
	 * line; elsewhere it is none of our business. */
	const char *bad = "echo 'fine\nsrun -n 2 ./x 'oops\n";
	mpp_script_job job;
	char err[256] = "";
	int rc = mpp_script_parse(bad, strlen(bad), &job, err, sizeof err);
	if (rc != MPP_EINVAL || strstr(err, "line 2") == NULL) {
		printf("unterminated quote: expected MPP_EINVAL naming line 2, "
		       "got %d '%s'\n",
		       rc, err);
		fail = 1;
	}
	if (rc == 0)
		mpp_script_job_free(&job);
	if (!fail)
		printf("%zu scripts read as expected\n",
		       sizeof cases / sizeof *cases);
	return fail;
}
