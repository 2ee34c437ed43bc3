/*
 * progress.c: rank 0's helper thread that hands a running job's counters
 * to mpipredict-collect --progress (see progress.h).
 * Not for: the HTTP request and the configuration file (collect.c and
 * common/client.c, in the sender process); what the counters are
 * (runtime.c writes them through the callback).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector/forward.h"
#include "collector/progress.h"

#define PFX "mpipredict: "

static struct {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	int running, stop;
	mpp_progress_write_fn write;
	char prog[PATH_MAX], path[PATH_MAX];
	pid_t sender; /* the last sender, until reaped; 0: none */
} pg = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

/* The interval the client configuration gives (mpipredict-collect
 * --progress-interval prints it): seconds, a fraction allowed, 0 for
 * none or on any failure (the configuration's own mistakes are the
 * forwarder's to report). */
static double interval(void)
{
	char *argv[] = {"mpipredict-collect", "--progress-interval", NULL};
	char buf[32], *end;
	size_t n = 0;
	ssize_t r;
	int fd[2], st = -1;
	double v;
	locale_t c;
	pid_t pid, got;

	if (pipe2(fd, O_CLOEXEC) != 0)
		return 0;
	if (mpp_spawn_detached(pg.prog, argv, fd[1], &pid) != 0) {
		close(fd[0]);
		close(fd[1]);
		return 0;
	}
	close(fd[1]);
	while (n < sizeof buf - 1 &&
	       ((r = read(fd[0], buf + n, sizeof buf - 1 - n)) > 0 ||
		(r < 0 && errno == EINTR)))
		if (r > 0)
			n += (size_t)r;
	close(fd[0]);
	while ((got = waitpid(pid, &st, 0)) < 0 && errno == EINTR)
		;
	buf[n] = '\0';
	/* A program that reaps every child (a SIGCHLD handler's waitpid(-1))
	 * may have taken its status: then the printed line decides. */
	if (got == pid && (!WIFEXITED(st) || WEXITSTATUS(st) != 0))
		return 0;
	/* In the C locale: the program's own setlocale() may want a comma
	 * where mpipredict-collect printed a point. */
	c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
	if (c == (locale_t)0)
		return 0;
	v = strtod_l(buf, &end, c);
	freelocale(c);
	if (end == buf || (*end != '\n' && *end) || !(v > 0) || v > 86400)
		return 0;
	return v;
}

/* Whether the last sender is still at work (reaps it when done). */
static int sender_busy(void)
{
	pid_t r;

	if (!pg.sender)
		return 0;
	r = waitpid(pg.sender, NULL, WNOHANG);
	if (r == 0)
		return 1;
	pg.sender = 0; /* done, or not ours any more (ECHILD) */
	return 0;
}

static void tick(void)
{
	char *argv[] = {"mpipredict-collect", "--progress", "--quiet", pg.path,
			NULL};
	char err[512];

	if (sender_busy())
		return;
	if (pg.write(pg.path, err, sizeof err) < 0)
		return;
	if (mpp_spawn_detached(pg.prog, argv, -1, &pg.sender) != 0)
		pg.sender = 0;
}

static void *run(void *arg)
{
	struct timespec at;
	double p = interval();
	long step_ns;

	(void)arg;
	if (p <= 0)
		return NULL;
	step_ns = (long)((p - (double)(long)p) * 1e9);
	pthread_mutex_lock(&pg.lock);
	clock_gettime(CLOCK_MONOTONIC, &at);
	while (!pg.stop) {
		at.tv_sec += (time_t)p;
		at.tv_nsec += step_ns;
		if (at.tv_nsec >= 1000000000L) {
			at.tv_sec++;
			at.tv_nsec -= 1000000000L;
		}
		while (!pg.stop &&
		       pthread_cond_timedwait(&pg.wake, &pg.lock, &at) == 0)
			;
		if (pg.stop)
			break;
		/* Unlocked: the counters and the spawn take a while, and
		 * MPI_Finalize must not wait behind them for the lock. */
		pthread_mutex_unlock(&pg.lock);
		tick();
		pthread_mutex_lock(&pg.lock);
	}
	pthread_mutex_unlock(&pg.lock);
	return NULL;
}

void mpp_progress_start(const char *run_id, mpp_progress_write_fn write)
{
	const char *job = getenv("SLURM_JOB_ID");
	const char *env = getenv("MPIPREDICT_PROGRESS_S");
	const char *tmp = getenv("TMPDIR");
	pthread_condattr_t ca;
	sigset_t all, old;
	int n;

	if (!job || !*job || (env && !strcmp(env, "0")) ||
	    !mpp_forward_enabled())
		return;
	if (mpp_forward_collect_path(pg.prog, sizeof pg.prog) < 0)
		return; /* the forwarder says so at the end, once */
	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(pg.path, sizeof pg.path, "%s/mpp-progress.%s", tmp,
		     run_id);
	if (n < 0 || (size_t)n >= sizeof pg.path)
		return;
	pg.write = write;
	/* The timed wait runs on CLOCK_MONOTONIC: a clock step must not
	 * stop or flood the posts. */
	if (pthread_condattr_init(&ca) != 0)
		return;
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_destroy(&pg.wake);
	pthread_cond_init(&pg.wake, &ca);
	pthread_condattr_destroy(&ca);
	/* No signal of the program's is ever delivered to this thread: its
	 * handlers may assume the threads it made. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&pg.thread, NULL, run, NULL) == 0)
		pg.running = 1;
	else
		fprintf(stderr, PFX "cannot start the progress thread; no "
				    "progress will be sent\n");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

void mpp_progress_stop(void)
{
	if (!pg.running)
		return;
	pthread_mutex_lock(&pg.lock);
	pg.stop = 1;
	pthread_cond_signal(&pg.wake);
	pthread_mutex_unlock(&pg.lock);
	pthread_join(pg.thread, NULL);
	pg.running = 0;
	unlink(pg.path);
	sender_busy(); /* reaped when already done */
}
