/*
 * retrain.c: the retraining thread (retrain.h).
 */
#include "server/retrain.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "server/child.h"
#include "server/log.h"
#include "server/metrics.h"

/* What the thread remembers of an app between polls: its last attempt,
 * so that a failed one is not retried at every poll. */
struct app_state {
	char *name;
	double attempt_at;           /* 0: none since the daemon started */
	long long attempt_runs;      /* new runs counted at that attempt */
	double attempt_last_trained; /* the app's last training then */
};

struct mpp_retrain {
	mpp_retrain_config c;
	char *db_path, *trainer;
	char margin[32];
	sqlite3 *db;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int stopping;
	struct app_state *apps;
	size_t napps;
	double started_at;
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct app_state *app_state(mpp_retrain *r, const char *name)
{
	for (size_t i = 0; i < r->napps; i++)
		if (strcmp(r->apps[i].name, name) == 0)
			return &r->apps[i];
	struct app_state *more =
	    realloc(r->apps, (r->napps + 1) * sizeof *r->apps);
	char *copy = strdup(name);
	if (more == NULL || copy == NULL) {
		if (more)
			r->apps = more;
		free(copy);
		return NULL;
	}
	r->apps = more;
	r->apps[r->napps] = (struct app_state){.name = copy};
	return &r->apps[r->napps++];
}

/* Sleeps ms or until stopped; returns non-zero when stopping. */
static int pause_ms(mpp_retrain *r, unsigned long ms)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += (time_t)(ms / 1000);
	until.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&r->mu);
	while (!r->stopping &&
	       pthread_cond_timedwait(&r->cv, &r->mu, &until) != ETIMEDOUT)
		;
	int stop = r->stopping;
	pthread_mutex_unlock(&r->mu);
	return stop;
}

/* The last line of what fd (a memfd) holds, at most cap - 1 bytes, with
 * control bytes as '?': the trainer's summary or its error. */
static void last_line(int fd, char *out, size_t cap)
{
	out[0] = '\0';
	off_t end = lseek(fd, 0, SEEK_END);
	if (end <= 0)
		return;
	char buf[4096];
	off_t from =
	    end > (off_t)sizeof buf - 1 ? end - (off_t)sizeof buf + 1 : 0;
	ssize_t n = pread(fd, buf, (size_t)(end - from), from);
	if (n <= 0)
		return;
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
		n--;
	buf[n] = '\0';
	char *line = strrchr(buf, '\n');
	line = line ? line + 1 : buf;
	size_t i = 0;
	for (; line[i] && i + 1 < cap; i++)
		out[i] = (unsigned char)line[i] < 0x20 ? '?' : line[i];
	out[i] = '\0';
}

/* Runs the trainer for app and waits for it (or for a stop). Returns its
 * exit status, -1 when it could not be started or was stopped. */
static int run_trainer(mpp_retrain *r, const char *app, char *line, size_t cap)
{
	int out = memfd_create("mpipredict-train.out", MFD_CLOEXEC);
	int err = memfd_create("mpipredict-train.err", MFD_CLOEXEC);
	char *argv[] = {
	    r->trainer,     "--db",         r->db_path, "--app",   (char *)app,
	    "--from-store", "--challenger", "--margin", r->margin, NULL};
	pid_t pid;
	int rc = mpp_child_spawn(argv, 0, out, err, &pid);
	int status = -1;
	if (rc != 0) {
		snprintf(line, cap, "cannot run %s: %s", r->trainer,
			 strerror(rc));
		goto out;
	}
	/* Requests come first: the trainer yields the cores to them. */
	setpriority(PRIO_PROCESS, (id_t)pid, 10);
	int stopped = 0;
	double killed_at = 0;
	for (;;) {
		int ws;
		pid_t w = waitpid(pid, &ws, WNOHANG);
		if (w == pid) {
			if (!stopped && WIFEXITED(ws))
				status = WEXITSTATUS(ws);
			break;
		}
		if (w < 0 && errno != EINTR)
			break;
		if (pause_ms(r, 50) && !stopped) {
			kill(pid, SIGTERM);
			stopped = 1;
			killed_at = now_s();
		}
		if (stopped && now_s() - killed_at > 5)
			kill(pid, SIGKILL);
	}
	if (stopped) {
		snprintf(line, cap, "stopped with the daemon");
		goto out;
	}
	last_line(status == 0 ? out : err, line, cap);
	if (line[0] == '\0' && status != 0)
		last_line(out, line, cap);
out:
	if (out >= 0)
		close(out);
	if (err >= 0)
		close(err);
	return status;
}

/* Whether app is due: rows new runs, or interval_s since its last
 * training (or since the daemon started, for an app never trained) with
 * at least one. After an attempt that stored nothing, counted from that
 * attempt instead. */
static int due(const mpp_retrain *r, const struct app_state *st,
	       double last_trained, long long new_runs, double now)
{
	if (new_runs <= 0)
		return 0;
	long long base = 0;
	double since = last_trained > 0 ? last_trained : r->started_at;
	if (st->attempt_at > 0 && st->attempt_last_trained == last_trained) {
		base = st->attempt_runs;
		since = st->attempt_at;
	}
	if (r->c.rows > 0 && new_runs - base >= (long long)r->c.rows)
		return 1;
	return r->c.interval_s > 0 && now - since >= (double)r->c.interval_s &&
	       new_runs > base;
}

/* Per app: its newest training (any version) and the runs ingested since.
 * One read transaction, a pass over each table. */
static const char news_sql[] =
    "SELECT a.name, coalesce(m.last, 0), "
    "  (SELECT count(*) FROM runs r WHERE r.app_id = a.id "
    "     AND r.ingested_at > coalesce(m.last, 0)) "
    "FROM apps a LEFT JOIN (SELECT app_id, max(created_at) AS last "
    "  FROM models GROUP BY app_id) m ON m.app_id = a.id "
    "ORDER BY a.name";

/* One look at the store; trains what is due, one app at a time. */
static void poll_once(mpp_retrain *r)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(r->db, news_sql, -1, &st, NULL) != SQLITE_OK) {
		mpp_log(MPP_LOG_WARN, "retrain: %s: %s", r->db_path,
			sqlite3_errmsg(r->db));
		return;
	}
	/* Collected first, so that no read transaction stays open while a
	 * trainer writes. */
	struct due_app {
		char *name;
		double last;
		long long runs;
	} *list = NULL;
	size_t n = 0;
	double now = now_s();
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		double last = sqlite3_column_double(st, 1);
		long long runs = sqlite3_column_int64(st, 2);
		struct app_state *as = name ? app_state(r, name) : NULL;
		if (as == NULL || !due(r, as, last, runs, now))
			continue;
		struct due_app *more = realloc(list, (n + 1) * sizeof *list);
		if (more == NULL)
			break;
		list = more;
		list[n] = (struct due_app){strdup(name), last, runs};
		if (list[n].name)
			n++;
	}
	sqlite3_finalize(st);
	for (size_t i = 0; i < n; i++) {
		struct app_state *as = app_state(r, list[i].name);
		char line[512];
		if (as == NULL ||
		    __atomic_load_n(&r->stopping, __ATOMIC_RELAXED))
			break;
		as->attempt_at = now_s();
		as->attempt_runs = list[i].runs;
		as->attempt_last_trained = list[i].last;
		mpp_log(MPP_LOG_INFO, "retrain: %s: %lld new runs, training",
			list[i].name, list[i].runs);
		int status = run_trainer(r, list[i].name, line, sizeof line);
		if (status == 0) {
			mpp_metrics_retrain(0);
			mpp_log(MPP_LOG_NOTICE, "retrain: %s", line);
		} else if (status > 0 || line[0] != '\0') {
			mpp_metrics_retrain(1);
			mpp_log(MPP_LOG_WARN,
				"retrain: %s: failed (exit %d), the active "
				"model is unchanged: %s",
				list[i].name, status, line);
		}
	}
	for (size_t i = 0; i < n; i++)
		free(list[i].name);
	free(list);
}

static void *loop(void *arg)
{
	mpp_retrain *r = arg;
	while (!pause_ms(r, r->c.poll_ms))
		poll_once(r);
	return NULL;
}

int mpp_retrain_start(const mpp_retrain_config *c, mpp_retrain **out, char *err,
		      size_t errlen)
{
	*out = NULL;
	if (c->rows == 0 && c->interval_s == 0)
		return 0;
	if (access(c->trainer, X_OK) != 0) {
		snprintf(err, errlen,
			 "retrain: the trainer %s cannot be run (%s); give "
			 "its path with --retrain-trainer, or turn "
			 "retraining off with --retrain-rows 0 "
			 "--retrain-interval 0",
			 c->trainer, strerror(errno));
		return -1;
	}
	mpp_retrain *r = calloc(1, sizeof *r);
	if (r == NULL) {
		snprintf(err, errlen, "retrain: out of memory");
		return -1;
	}
	r->c = *c;
	r->db_path = strdup(c->db_path);
	r->trainer = strdup(c->trainer);
	snprintf(r->margin, sizeof r->margin, "%g", c->margin);
	r->started_at = now_s();
	if (r->c.poll_ms == 0)
		r->c.poll_ms = 1000;
	pthread_mutex_init(&r->mu, NULL);
	pthread_cond_init(&r->cv, NULL);
	if (r->db_path == NULL || r->trainer == NULL ||
	    sqlite3_open_v2(c->db_path, &r->db, SQLITE_OPEN_READONLY, NULL) !=
		SQLITE_OK) {
		snprintf(err, errlen, "retrain: %s: %s", c->db_path,
			 r->db ? sqlite3_errmsg(r->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(r->db, 5000);
	if (pthread_create(&r->thread, NULL, loop, r) != 0) {
		snprintf(err, errlen, "retrain: cannot start its thread");
		goto fail;
	}
	*out = r;
	return 0;
fail:
	sqlite3_close(r->db);
	free(r->db_path);
	free(r->trainer);
	free(r);
	return -1;
}

void mpp_retrain_stop(mpp_retrain *r)
{
	if (r == NULL)
		return;
	pthread_mutex_lock(&r->mu);
	__atomic_store_n(&r->stopping, 1, __ATOMIC_RELAXED);
	pthread_cond_broadcast(&r->cv);
	pthread_mutex_unlock(&r->mu);
	pthread_join(r->thread, NULL);
	sqlite3_close(r->db);
	for (size_t i = 0; i < r->napps; i++)
		free(r->apps[i].name);
	free(r->apps);
	free(r->db_path);
	free(r->trainer);
	pthread_mutex_destroy(&r->mu);
	pthread_cond_destroy(&r->cv);
	free(r);
}
