#!/usr/bin/env bash
# A running job's progress reaches the daemon (issue 37): a program built
# with mpipredict-cc, run at 2 ranks with a daemon configured,
# SLURM_JOB_ID set and MPIPREDICT_PROGRESS_S=1, running until the test
# has seen a post (at most 60 s; about 2 s here, so no timing is assumed): rank
# 0's helper thread has mpipredict-collect --progress post its counters
# (POST /v1/progress), the daemon stores them and answers GET
# /v1/jobs/{id}; the job's output and status are those of a run without
# it, and no progress file is left. With no daemon configured, or
# MPIPREDICT_PROGRESS_S=0, or no SLURM_JOB_ID, nothing is sent and no file
# is made. mpipredict-collect --progress-interval reads the setting.
. "$MPP_SRC/tests/collector/forward.sh"

cat >slow.c <<'C'
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	double x = 1, y = 0, stop = 0, all;
	int i, rank, max = argc > 1 ? 10 * atoi(argv[1]) : 30;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	/* Tenths of a second until ./stop exists or argv[1] seconds. */
	for (i = 0; i < max && !stop; i++) {
		usleep(100000);
		MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
		x = rank == 0 && access("stop", F_OK) == 0;
		MPI_Allreduce(&x, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
		stop = all;
		x = 1;
	}
	if (rank == 0)
		printf("sum %g\n", y);
	MPI_Finalize();
	return 0;
}
C
# shellcheck disable=SC2086
mpipredict-cc mpicc ${MPP_TEST_CFLAGS:-} -O1 -o slow slow.c >build.log 2>&1 ||
	fail "expected mpipredict-cc to build slow.c: $(tail -n 5 build.log)"
progress_files() { find "$TMPDIR" -maxdepth 1 -name 'mpp-progress.*' | wc -l; }
posts() { sqlite3 "$DB" "SELECT count(*) FROM progress WHERE job_id = '$1'"; }

# The setting: the environment, the file, the default, 0 without a daemon.
[ "$(mpipredict-collect --progress-interval)" = 0 ] ||
	fail "expected interval 0 with no daemon configured"
printf '[client]\nurl = http://127.0.0.1:1\nprogress_s = 7\n' >client.conf
[ "$(mpipredict-collect --progress-interval)" = 7 ] || fail "expected the file's progress_s 7"
[ "$(MPIPREDICT_PROGRESS_S=2 mpipredict-collect --progress-interval)" = 2 ] ||
	fail "expected MPIPREDICT_PROGRESS_S to win over the file"
printf '[client]\nurl = http://127.0.0.1:1\n' >client.conf
[ "$(mpipredict-collect --progress-interval)" = 60 ] || fail "expected the default 60"
printf '[client]\nurl = http://127.0.0.1:1\nprogress_s = soon\n' >client.conf
mpipredict-collect --progress-interval >/dev/null 2>err.txt
[ $? = 2 ] && grep -q "client.conf:3: progress_s 'soon' is not a number of seconds" err.txt ||
	fail "expected exit 2 naming client.conf:3 and progress_s, got $(cat err.txt)"
# A fraction (a benchmark's seconds-long runs want several posts), not
# below 0.1 s: each post is a process.
printf '[client]\nurl = http://127.0.0.1:1\nprogress_s = 0.25\n' >client.conf
[ "$(mpipredict-collect --progress-interval)" = 0.25 ] || fail "expected the file's progress_s 0.25"
for bad in 0.05 -1 nan inf 1e9 1,5; do
	MPIPREDICT_PROGRESS_S=$bad mpipredict-collect --progress-interval >/dev/null 2>err.txt
	[ $? = 2 ] && grep -q "MPIPREDICT_PROGRESS_S '$bad' is not a number of seconds: 0 (off), or 0.1 to 86400" err.txt ||
		fail "expected exit 2 for MPIPREDICT_PROGRESS_S=$bad, got $(cat err.txt)"
done
rm client.conf

# Which loops keep their counts in registers until they end (a host):
# not a loop that calls MPI or a function of another file (its count must
# move while the job runs), still a loop calling a function of this file
# or of the C library (a hot loop's counts stay out of memory).
cat >loops.c <<'C'
#include <math.h>
#include <mpi.h>
void nap(void);
static int twice(int v) { return 2 * v; }
int main(int argc, char **argv)
{
	int i, s = 0;
	double d = 0;
	MPI_Init(&argc, &argv);
	for (i = 0; i < argc * 9; i++)
		nap();
	for (i = 0; i < argc * 9; i++)
		MPI_Barrier(MPI_COMM_WORLD);
	for (i = 0; i < argc * 9; i++)
		s += twice(i);
	for (i = 0; i < argc * 9; i++)
		d += sqrt(i);
	MPI_Finalize();
	return s + (int)d;
}
C
# shellcheck disable=SC2046
mpipredict-instrument -o ins loops.c -- $(mpicc --showme:compile) >ins.log 2>&1 ||
	fail "expected mpipredict-instrument to rewrite loops.c: $(cat ins.log)"
hosts=$(grep -c '__mpp_l[0-9]* = 0; for (i = 0; i < argc \* 9' ins/loops.c)
[ "$hosts" = 2 ] || fail "expected the loops calling twice() and sqrt() to keep their counts in locals and those calling nap() and MPI_Barrier() not (2 hosts), got $hosts: $(grep -n 'argc \* 9' ins/loops.c)"

start_daemon --token-file token
mpirun -np 2 ./slow >off.txt 2>&1 || fail "expected the program to run: $(cat off.txt)"

SLURM_JOB_ID=4242 MPIPREDICT_PROGRESS_S=1 MPIPREDICT_URL=$URL \
	MPIPREDICT_TOKEN_FILE=$PWD/token MPIPREDICT_TIME_LIMIT_S=600 \
	mpirun -np 2 -x SLURM_JOB_ID -x MPIPREDICT_PROGRESS_S -x MPIPREDICT_URL \
	-x MPIPREDICT_TOKEN_FILE -x MPIPREDICT_TIME_LIMIT_S ./slow 60 >on.txt 2>&1 &
job=$!
for _ in $(seq 600); do
	[ "$(posts 4242)" = 1 ] && break
	sleep 0.1
done
touch stop
wait "$job"
rc=$?
rm stop
[ "$(posts 4242)" = 1 ] || fail "expected the daemon to have stored job 4242's progress while it ran"
[ "$rc" = 0 ] || fail "expected exit 0 with progress on, got $rc: $(cat on.txt)"
cmp -s on.txt off.txt || fail "expected the output of a run without progress, got: $(head -c 300 on.txt)"
got=$(sqlite3 "$DB" "SELECT app, nprocs, time_limit_s, elapsed_s > 0.5, elapsed_s < 60 FROM progress WHERE job_id = '4242'")
[ "$got" = "slow|2|600.0|1|1" ] ||
	fail "expected app slow, 2 ranks, the limit 600 and 0.5 s < elapsed < 60 s, got $got"
calls=$(sqlite3 "$DB" "SELECT features FROM progress WHERE job_id = '4242'" |
	jq '."mpi:MPI_Allreduce:calls.mean"')
awk -v c="$calls" 'BEGIN { exit !(c >= 1) }' ||
	fail "expected the Allreduce calls made by a tick (at least 1), got $calls"
# The loop in main that drives the run makes MPI calls: its own count is
# kept in memory (not in a register until the loop ends), so it moves
# while the job runs.
iters=$(sqlite3 "$DB" "SELECT features FROM progress WHERE job_id = '4242'" |
	jq '."loop:slow.c:14:2.mean"')
awk -v c="$iters" 'BEGIN { exit !(c >= 1) }' ||
	fail "expected main's loop's count to move while the job runs (at least 1 by a tick), got $iters"
st=$(req GET /v1/jobs/4242)
expect_status 200 "$st" "GET /v1/jobs/4242"
[ "$(jq -r '[.app, .time_limit_s] | @csv' body)" = '"slow",600' ] ||
	fail "expected the job's app and limit in its answer, got $(cat body)"
[ "$(progress_files)" = 0 ] || fail "expected no progress file left, got $(ls "$TMPDIR")"

# No daemon configured: nothing sent, no file.
SLURM_JOB_ID=4243 MPIPREDICT_PROGRESS_S=1 mpirun -np 2 -x SLURM_JOB_ID -x MPIPREDICT_PROGRESS_S \
	./slow >none.txt 2>&1 || fail "expected exit 0 without a daemon: $(cat none.txt)"
cmp -s none.txt off.txt || fail "expected the plain output without a daemon, got $(head -c 300 none.txt)"
# Progress off, and no job id: nothing either.
SLURM_JOB_ID=4244 MPIPREDICT_PROGRESS_S=0 MPIPREDICT_URL=$URL MPIPREDICT_TOKEN_FILE=$PWD/token \
	mpirun -np 2 -x SLURM_JOB_ID -x MPIPREDICT_PROGRESS_S -x MPIPREDICT_URL -x MPIPREDICT_TOKEN_FILE \
	./slow >zero.txt 2>&1 || fail "expected exit 0 with MPIPREDICT_PROGRESS_S=0"
MPIPREDICT_PROGRESS_S=1 MPIPREDICT_URL=$URL MPIPREDICT_TOKEN_FILE=$PWD/token \
	mpirun -np 2 -x MPIPREDICT_PROGRESS_S -x MPIPREDICT_URL -x MPIPREDICT_TOKEN_FILE \
	./slow >nojob.txt 2>&1 || fail "expected exit 0 without SLURM_JOB_ID"
sleep 1
[ "$(sqlite3 "$DB" 'SELECT group_concat(job_id) FROM progress')" = 4242 ] ||
	fail "expected only job 4242's progress stored, got $(sqlite3 "$DB" 'SELECT group_concat(job_id) FROM progress')"
[ "$(progress_files)" = 0 ] || fail "expected no progress file made, got $(ls "$TMPDIR")"
stop_daemon
echo "a running job's counters reach the daemon every MPIPREDICT_PROGRESS_S; nothing without a daemon"
