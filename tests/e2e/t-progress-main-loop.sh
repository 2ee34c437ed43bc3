#!/usr/bin/env bash
# Issue 37: a running job's progress from the loop that drives the run,
# not from a set-up loop done at the start. A program in hpcg's shape
# (a set-up loop over the problem once, then time steps, each a sweep
# over it and an MPI_Allreduce), built with mpipredict-cc, run at 10
# sizes and trained; then run as a job with progress posts every 0.1 s,
# held half-way through its steps (rank 0 waits for a file before step
# 10 of 20).
# Checked: training names the sweep's loop as the progress counter (it
# counts n x steps; the set-up loop n); held half-way, GET
# /v1/jobs/{id} answers on that counter (basis "counter", or "rate" when
# a post came before the hold) with progress
# 0.5 +- 0.05 (its total's law in n against the count posted: 10 of 20
# sweeps).
# Nothing here depends on the machine's speed: the progress comes from
# counts, and the job waits for the test at a known step.
set -u
. "$MPP_SRC/tests/e2e/lib.sh"
e2e_need mpipredict-cc mpipredict-train mpipredictd
fail=0
trap 'touch go; e2e_stop_daemon' EXIT

cat >steps.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	int rank, steps = 20;
	double *a = malloc((size_t)n * sizeof *a), sum = 0, g;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	for (long i = 0; i < n; i++) /* set-up, once */
		a[i] = 1.0 / (double)(i + 1);
	for (int t = 0; t < steps; t++) {
		double local = 0;
		if (t == steps / 2 && rank == 0)
			while (access("go", F_OK) != 0)
				usleep(20000);
		for (long i = 0; i < n; i++) /* the sweep */
			local += a[i] * a[i] * (t + 1);
		MPI_Allreduce(&local, &g, 1, MPI_DOUBLE, MPI_SUM,
			      MPI_COMM_WORLD);
		sum += g;
	}
	if (rank == 0)
		printf("sum %g\n", sum);
	free(a);
	MPI_Finalize();
	return 0;
}
C
# shellcheck disable=SC2086
mpipredict-cc mpicc -O2 $MPP_TEST_CFLAGS steps.c -o steps >build.log 2>&1 ||
	{ echo "mpipredict-cc failed: $(tail -5 build.log)"; exit 1; }
sweep=$(grep -n '/\* the sweep \*/' steps.c | cut -d: -f1)
touch go
for n in 200000 300000 400000 500000 600000 700000 800000 900000 1000000 1200000; do
	MPIPREDICT_RUNS=$PWD/runs/ mpirun -np 1 ./steps "$n" >out.txt 2>&1 ||
		{ echo "steps $n: exit $?: $(tail -3 out.txt)"; exit 1; }
done
mpipredict-train --db models.db --json runs/steps.csv >train.json 2>err.txt ||
	{ echo "mpipredict-train: $(cat err.txt)"; exit 1; }
pf=$(jq -r '.models[0].progress_counter.feature' train.json)
[ "$pf" = "loop:steps.c:$sweep:3.mean" ] ||
	bad "expected the sweep (steps.c:$sweep) as the progress counter, got '$pf'"

printf 's3cr3t\n' >token
pfile=$(mktemp)
mpipredictd --db models.db --listen 127.0.0.1:0 --port-file "$pfile" --token-file token 2>daemon.log &
E2E_PID=$!
for _ in $(seq 100); do
	port=$(cat "$pfile" 2>/dev/null)
	[ -n "$port" ] && curl -sf "http://127.0.0.1:$port/healthz" >/dev/null && break
	sleep 0.1
done
rm -f "$pfile"
E2E_URL=http://127.0.0.1:$port
rm go
n=700000
SLURM_JOB_ID=5151 MPIPREDICT_PROGRESS_S=0.1 MPIPREDICT_URL=$E2E_URL MPIPREDICT_TOKEN_FILE=$PWD/token \
	MPIPREDICT_RUNS=$PWD/job/ mpirun -np 1 -x SLURM_JOB_ID -x MPIPREDICT_PROGRESS_S -x MPIPREDICT_URL \
	-x MPIPREDICT_TOKEN_FILE -x MPIPREDICT_RUNS ./steps $n >job.txt 2>&1 &
job=$!
# Held at step 10: wait for a post that shows the 10 sweeps done.
done_n=
for _ in $(seq 600); do
	done_n=$(sqlite3 models.db "SELECT features FROM progress WHERE job_id = '5151'" 2>/dev/null |
		jq --arg f "$pf" '.[$f] // empty' 2>/dev/null)
	[ "${done_n%.*}" = $((10 * n)) ] && break
	sleep 0.1
done
[ "${done_n%.*}" = $((10 * n)) ] || bad "expected a post with 10 sweeps of $n done, last got '${done_n:-none}'"
curl -s "$E2E_URL/v1/jobs/5151" >answer.json
jq -e '(.progress_basis == "counter" or .progress_basis == "rate") and (.progress - 0.5 | fabs) <= 0.05' answer.json >/dev/null ||
	bad "expected progress 0.5 +- 0.05 on the progress counter half-way, got $(jq -c '{progress, progress_basis}' answer.json)"
touch go
wait "$job" || bad "expected the job to finish: $(tail -3 job.txt)"
exit $fail
