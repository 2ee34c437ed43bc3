/*
 * extend.c: the limit-extension policy (see extend.h).
 *
 * The ingest thread only queues a job (mpp_extend_consider); the worker
 * thread asks Slurm for the job's state, limit, run time, start and nodes
 * (`scontrol -o show job N`: Slurm's own limit, which may differ from the
 * one the job posted, e.g. after an admin's change), decides, checks the
 * reservations, and acts with scontrol update. What the worker remembers
 * of each job (extended, told over the cap or about a reservation, failed
 * attempts) keeps it to one extension and one message per job; it is held
 * in memory only: after a restart, Slurm's limit, which already includes
 * an extension, makes the job in time.
 *
 * scontrol's output is key=value words (`-o`: one line per record);
 * Slurm's times are local, as scontrol prints them.
 */
#include "server/extend.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/status.h"
#include "schema/store.h"
#include "server/child.h"
#include "server/log.h"
#include "server/metrics.h"
#include "server/ui_svg.h"

enum {
	MAX_PENDING = 4096, /* queued jobs; more are dropped until it drains */
	MAX_FAILS = 3,      /* scontrol failures before a job is left alone */
	OUT_MAX = 1 << 16,  /* scontrol output read */
};

#define FORGET_S (2 * 86400.0) /* a job's memory after its last post */

struct pending {
	char job_id[72];
	double received_at, elapsed_s, remaining_s, upper_s;
};

/* What the worker did for a job. */
struct jobstate {
	char job_id[72];
	int extended, told, fails;
	double seen_at;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	pthread_t thread;
	int on, stopping;
	mpp_extend_config c;
	char *db_path, *scontrol;
	struct pending *q;
	size_t nq;
	struct jobstate *js;
	size_t njs, capjs;
} X = {.lock = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

static double wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Under X.lock: the job's state, made when missing (NULL: out of
 * memory). Old ones are dropped first. */
static struct jobstate *state_locked(const char *job_id, int make)
{
	double now = wall_now();
	size_t k = 0;

	for (size_t i = 0; i < X.njs; i++)
		if (now - X.js[i].seen_at <= FORGET_S)
			X.js[k++] = X.js[i];
	X.njs = k;
	for (size_t i = 0; i < X.njs; i++)
		if (!strcmp(X.js[i].job_id, job_id))
			return &X.js[i];
	if (!make)
		return NULL;
	if (X.njs == X.capjs) {
		size_t cap = X.capjs ? 2 * X.capjs : 64;
		struct jobstate *v = realloc(X.js, cap * sizeof *v);

		if (!v)
			return NULL;
		X.js = v;
		X.capjs = cap;
	}
	memset(&X.js[X.njs], 0, sizeof X.js[X.njs]);
	snprintf(X.js[X.njs].job_id, sizeof X.js[X.njs].job_id, "%s", job_id);
	X.js[X.njs].seen_at = now;
	return &X.js[X.njs++];
}

void mpp_extend_consider(const char *job_id, double received_at,
			 double elapsed_s, double remaining_s, double upper_s,
			 double limit_s)
{
	struct jobstate *st;
	size_t i;

	if (!X.on || !isfinite(upper_s) || !isfinite(remaining_s) ||
	    !isfinite(elapsed_s))
		return;
	/* Only a plain Slurm job id (123, 123_4, 123+1) reaches scontrol's
	 * command line: nothing that could read as an option. */
	if (job_id[0] < '0' || job_id[0] > '9' || strlen(job_id) >= 72)
		return;
	/* In time by the limit the job itself posted, with a tenth to
	 * spare (the program started after the job did): no need to ask
	 * Slurm. An unknown limit is asked for. */
	if (limit_s > 0 && elapsed_s + upper_s <= 0.9 * limit_s)
		return;
	pthread_mutex_lock(&X.lock);
	st = state_locked(job_id, 0);
	if (st) {
		st->seen_at = wall_now();
		if (st->extended || st->fails >= MAX_FAILS) {
			pthread_mutex_unlock(&X.lock);
			return;
		}
	}
	for (i = 0; i < X.nq; i++)
		if (!strcmp(X.q[i].job_id, job_id))
			break;
	if (i == X.nq && X.nq < MAX_PENDING)
		snprintf(X.q[X.nq++].job_id, sizeof X.q[0].job_id, "%s",
			 job_id);
	if (i < X.nq) {
		X.q[i].received_at = received_at;
		X.q[i].elapsed_s = elapsed_s;
		X.q[i].remaining_s = remaining_s;
		X.q[i].upper_s = upper_s;
		pthread_cond_signal(&X.cv);
	}
	pthread_mutex_unlock(&X.lock);
}

/* ---- running scontrol ---------------------------------------------------- */

/* Runs scontrol with args (argv[0] is set here), its stdout into out (at
 * most outcap - 1 bytes, NUL-terminated), stderr's last line into why.
 * Killed past the timeout. Returns its exit status, or -1 (why says). */
static int run_scontrol(char *const args[], char *out, size_t outcap, char *why,
			size_t whylen)
{
	char *argv[16];
	int fo = memfd_create("scontrol.out", MFD_CLOEXEC);
	int fe = memfd_create("scontrol.err", MFD_CLOEXEC);
	double t0 = wall_now();
	int status = -1, rc, ws, killed = 0;
	size_t n = 0;
	pid_t pid;

	out[0] = '\0';
	why[0] = '\0';
	argv[0] = X.scontrol;
	for (n = 0; args[n] && n < 14; n++)
		argv[n + 1] = args[n];
	argv[n + 1] = NULL;
	if (fo < 0 || fe < 0) {
		snprintf(why, whylen, "memfd_create: %s", strerror(errno));
		goto out;
	}
	rc = mpp_child_spawn(argv, 1, fo, fe, &pid);
	if (rc != 0) {
		snprintf(why, whylen, "cannot run %s: %s", X.scontrol,
			 strerror(rc));
		goto out;
	}
	for (;;) {
		pid_t w = waitpid(pid, &ws, WNOHANG);

		if (w == pid) {
			if (!killed && WIFEXITED(ws))
				status = WEXITSTATUS(ws);
			break;
		}
		if (w < 0 && errno != EINTR)
			break;
		if (!killed && wall_now() - t0 > X.c.timeout_s) {
			kill(pid, SIGKILL);
			killed = 1;
		}
		struct timespec ts = {0, 10 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	if (killed) {
		snprintf(why, whylen, "%s %s: no answer within %g s",
			 X.scontrol, args[0], X.c.timeout_s);
		status = -1;
		goto out;
	}
	{
		ssize_t got = pread(fo, out, outcap - 1, 0);

		out[got > 0 ? got : 0] = '\0';
	}
	if (status != 0) {
		char e[512];
		ssize_t got = pread(fe, e, sizeof e - 1, 0);
		char *nl;

		e[got > 0 ? got : 0] = '\0';
		while ((nl = strrchr(e, '\n')) && nl[1] == '\0')
			*nl = '\0';
		nl = strrchr(e, '\n');
		snprintf(why, whylen, "%s %s exited with %d: %s", X.scontrol,
			 args[0], status, nl ? nl + 1 : e);
	}
out:
	if (fo >= 0)
		close(fo);
	if (fe >= 0)
		close(fe);
	return status;
}

/* ---- reading scontrol's words ----------------------------------------------
 */

/* The value of key in a line of key=value words (the first such word),
 * copied into v; -1 when missing. */
static int word(const char *line, const char *key, char *v, size_t vlen)
{
	size_t kl = strlen(key);

	for (const char *p = line; *p;) {
		p += strspn(p, " \t");
		if (!strncmp(p, key, kl) && p[kl] == '=') {
			size_t n = strcspn(p + kl + 1, " \t\n");

			snprintf(v, vlen, "%.*s", (int)n, p + kl + 1);
			return 0;
		}
		p += strcspn(p, " \t\n");
		if (*p == '\n')
			p++;
	}
	return -1;
}

/* [D-]HH:MM:SS, MM:SS or a number of minutes, in seconds; -1 for
 * UNLIMITED, Partition_Limit or anything else. */
static double duration(const char *v)
{
	long d = 0, a = 0, b = 0, c = 0;
	char *end;

	if (strchr(v, '-')) {
		d = strtol(v, &end, 10);
		if (*end != '-')
			return -1;
		v = end + 1;
	}
	if (sscanf(v, "%ld:%ld:%ld", &a, &b, &c) == 3)
		return (double)(((d * 24 + a) * 60 + b) * 60 + c);
	if (sscanf(v, "%ld:%ld", &a, &b) == 2)
		return (double)((d * 24 * 60 + a) * 60 + b);
	a = strtol(v, &end, 10);
	if (end != v && *end == '\0')
		return (double)(a * 60);
	return -1;
}

/* scontrol's local time, as unix time; -1 when not a time. */
static double local_time(const char *v)
{
	struct tm tm;
	char *end;

	memset(&tm, 0, sizeof tm);
	end = strptime(v, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!end || *end)
		return -1;
	tm.tm_isdst = -1;
	return (double)mktime(&tm);
}

/* Seconds as H:MM:SS. */
static void hms(char *out, size_t len, double s)
{
	long t = (long)ceil(s);

	snprintf(out, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60, t % 60);
}

/* Host names of a Slurm host list (scontrol show hostnames), one per
 * line, into out; -1 with why. */
static int hostnames(const char *list, char *out, size_t outcap, char *why,
		     size_t whylen)
{
	char *args[] = {"show", "hostnames", (char *)list, NULL};

	return run_scontrol(args, out, outcap, why, whylen) == 0 ? 0 : -1;
}

/* Whether two newline-separated name lists share a name. */
static int share(const char *a, const char *b)
{
	for (const char *p = a; *p;) {
		size_t n = strcspn(p, "\n");

		if (n > 0)
			for (const char *q = b; *q;) {
				size_t m = strcspn(q, "\n");

				if (m == n && !strncmp(p, q, n))
					return 1;
				q += m + (q[m] == '\n');
			}
		p += n + (p[n] == '\n');
	}
	return 0;
}

/* Whether a reservation starts on the job's nodes after now and before
 * end: 1 with its name and start in what, 0 none, -1 cannot tell (why). */
static int reservation_in_way(const char *nodes, double now, double end,
			      char *what, size_t wlen, char *why, size_t whylen)
{
	char *out = malloc(OUT_MAX), *mine = malloc(OUT_MAX),
	     *theirs = malloc(OUT_MAX);
	char *args[] = {"-o", "show", "reservation", NULL};
	char name[256], start[64], rnodes[4096];
	int found = -1;

	if (!out || !mine || !theirs) {
		snprintf(why, whylen, "out of memory");
		goto out;
	}
	/* "No reservations in the system" is a zero exit too. */
	if (run_scontrol(args, out, OUT_MAX, why, whylen) != 0)
		goto out;
	if (hostnames(nodes, mine, OUT_MAX, why, whylen) < 0)
		goto out;
	found = 0;
	for (char *line = strtok(out, "\n"); line && found == 0;
	     line = strtok(NULL, "\n")) {
		double t;

		if (word(line, "ReservationName", name, sizeof name) < 0 ||
		    word(line, "StartTime", start, sizeof start) < 0 ||
		    word(line, "Nodes", rnodes, sizeof rnodes) < 0)
			continue;
		t = local_time(start);
		if (t < 0) {
			snprintf(why, whylen,
				 "reservation %s: StartTime '%s' is not a time",
				 name, start);
			found = -1;
			break;
		}
		if (t <= now || t >= end)
			continue;
		if (strcmp(rnodes, "ALL") &&
		    hostnames(rnodes, theirs, OUT_MAX, why, whylen) < 0) {
			found = -1;
			break;
		}
		if (!strcmp(rnodes, "ALL") || share(mine, theirs)) {
			snprintf(what, wlen,
				 "reservation %s starts on its "
				 "nodes at %s",
				 name, start);
			found = 1;
		}
	}
out:
	free(out);
	free(mine);
	free(theirs);
	return found;
}

/* ---- acting -------------------------------------------------------------- */

static void audit(const char *job_id, int outcome, double old_s, double new_s,
		  double need_s, double cap_s, const char *detail)
{
	static const char *const names[] = {"extended", "over_cap",
					    "reservation", "failed"};
	mpp_extension_rec r = {
	    .job_id = job_id,
	    .outcome = names[outcome],
	    .detail = detail,
	    .at = wall_now(),
	    .old_limit_s = old_s,
	    .new_limit_s = new_s,
	    .need_s = need_s,
	    .cap_s = cap_s,
	};
	mpp_store *s = NULL;
	char err[512];

	mpp_metrics_extension(outcome);
	if (mpp_store_open(X.db_path, 0, &s, err, sizeof err) != MPP_OK ||
	    mpp_store_put_extension(s, &r, err, sizeof err) != MPP_OK)
		mpp_log(MPP_LOG_ERROR, "extend: job %s: audit row: %s", job_id,
			err);
	if (s)
		mpp_store_close(s);
}

/* Sets the job's Comment; -1 with why. */
static int set_comment(const char *job_id, const char *text, char *why,
		       size_t whylen)
{
	char a1[96], a2[1300], out[256];
	char *args[] = {"update", a1, a2, NULL};

	snprintf(a1, sizeof a1, "JobId=%s", job_id);
	snprintf(a2, sizeof a2, "Comment=%s", text);
	return run_scontrol(args, out, sizeof out, why, whylen) == 0 ? 0 : -1;
}

/* One queued job: decide and act. told: the user was told already why
 * the job is not extended (not again, nor audited again). Returns what
 * the job's state becomes: 'e' extended, 't' told (over cap or
 * reservation), 'f' failed, 0 nothing. */
static int handle(const struct pending *p, int told)
{
	char *out = malloc(OUT_MAX);
	char state[64], lim[64], run[64], start[64], nodes[4096];
	char why[600], msg[1200], a[64], b[64], what[400];
	double limit_s, run_s, since, left, end, need, cap, now, new_s, start_t;
	long new_min;
	int rc = 0;
	char *args[] = {"-o", "show", "job", (char *)p->job_id, NULL};

	if (!out)
		return 0;
	if (run_scontrol(args, out, OUT_MAX, why, sizeof why) != 0) {
		mpp_log(MPP_LOG_WARN, "extend: job %s: %s", p->job_id, why);
		audit(p->job_id, MPP_EXT_FAILED, NAN, NAN, NAN, NAN, why);
		rc = 'f';
		goto out;
	}
	now = wall_now();
	if (word(out, "JobState", state, sizeof state) < 0 ||
	    strcmp(state, "RUNNING") != 0)
		goto out; /* ended, suspended, requeued: nothing to extend */
	if (word(out, "TimeLimit", lim, sizeof lim) < 0 ||
	    word(out, "RunTime", run, sizeof run) < 0 ||
	    word(out, "StartTime", start, sizeof start) < 0 ||
	    word(out, "NodeList", nodes, sizeof nodes) < 0) {
		snprintf(why, sizeof why,
			 "scontrol show job: no TimeLimit, RunTime, StartTime "
			 "or NodeList");
		mpp_log(MPP_LOG_WARN, "extend: job %s: %s", p->job_id, why);
		audit(p->job_id, MPP_EXT_FAILED, NAN, NAN, NAN, NAN, why);
		rc = 'f';
		goto out;
	}
	limit_s = duration(lim);
	run_s = duration(run);
	start_t = local_time(start);
	if (limit_s <= 0 || run_s < 0 || start_t < 0)
		goto out; /* unlimited: nothing to extend */
	/* The time left at the upper bound of its interval, less what
	 * passed since the post, after the job's own run time (which counts
	 * the script's time before the program). */
	since = fmax(0, now - p->received_at);
	left = fmax(0, p->upper_s - since);
	end = run_s + left;
	if (end <= limit_s)
		goto out; /* in time: left alone */
	need = end - limit_s;
	cap = fmin(X.c.cap_pct / 100 * limit_s, X.c.cap_s);
	if (need > cap) {
		/* Over the cap at the upper bound only: the interval is too
		 * wide to say (early on, before the job's own pace is
		 * known); a later post decides. Told only when the
		 * prediction itself needs more than the cap. */
		need = run_s + fmax(0, p->remaining_s - since) - limit_s;
		if (need <= cap)
			goto out;
		rc = 't';
		if (told)
			goto out;
		hms(a, sizeof a, need);
		hms(b, sizeof b, cap);
		snprintf(msg, sizeof msg,
			 "mpipredict: predicted to need %s beyond your limit, "
			 "more than the site's cap %s; not extended",
			 a, b);
		if (set_comment(p->job_id, msg, why, sizeof why) < 0) {
			mpp_log(MPP_LOG_WARN, "extend: job %s: %s", p->job_id,
				why);
			audit(p->job_id, MPP_EXT_FAILED, limit_s, NAN, need,
			      cap, why);
			rc = 'f';
			goto out;
		}
		mpp_log(MPP_LOG_NOTICE, "extend: job %s: %s", p->job_id,
			msg + 12);
		audit(p->job_id, MPP_EXT_OVER_CAP, limit_s, NAN, need, cap,
		      msg);
		rc = 't';
		goto out;
	}
	/* Slurm's limits are whole minutes: round up, never down, so the
	 * new limit is above the old one (end > limit_s). */
	new_min = (long)ceil(end / 60);
	new_s = (double)new_min * 60;
	switch (reservation_in_way(nodes, now, start_t + new_s, what,
				   sizeof what, why, sizeof why)) {
	case -1:
		mpp_log(MPP_LOG_WARN,
			"extend: job %s: cannot check the reservations: %s",
			p->job_id, why);
		audit(p->job_id, MPP_EXT_FAILED, limit_s, NAN, need, cap, why);
		rc = 'f';
		goto out;
	case 1:
		rc = 't';
		if (told)
			goto out;
		hms(a, sizeof a, need);
		snprintf(msg, sizeof msg,
			 "mpipredict: predicted to need %s beyond your limit; "
			 "not extended: %s",
			 a, what);
		if (set_comment(p->job_id, msg, why, sizeof why) < 0)
			mpp_log(MPP_LOG_WARN, "extend: job %s: %s", p->job_id,
				why);
		mpp_log(MPP_LOG_NOTICE, "extend: job %s: %s", p->job_id,
			msg + 12);
		audit(p->job_id, MPP_EXT_RESERVATION, limit_s, NAN, need, cap,
		      msg);
		rc = 't';
		goto out;
	}
	{
		char a1[96], a2[64], o2[256];
		char *up[] = {"update", a1, a2, NULL};

		snprintf(a1, sizeof a1, "JobId=%s", p->job_id);
		snprintf(a2, sizeof a2, "TimeLimit=%ld", new_min);
		if (run_scontrol(up, o2, sizeof o2, why, sizeof why) != 0) {
			mpp_log(MPP_LOG_WARN, "extend: job %s: %s", p->job_id,
				why);
			audit(p->job_id, MPP_EXT_FAILED, limit_s, NAN, need,
			      cap, why);
			rc = 'f';
			goto out;
		}
	}
	hms(a, sizeof a, end);
	snprintf(msg, sizeof msg,
		 "mpipredict: limit extended by %ld min: predicted to need %s",
		 new_min - (long)(limit_s / 60), a);
	if (set_comment(p->job_id, msg, why, sizeof why) < 0)
		mpp_log(MPP_LOG_WARN, "extend: job %s: %s", p->job_id, why);
	mpp_log(MPP_LOG_NOTICE, "extend: job %s: limit %s -> %ld min: %s",
		p->job_id, lim, new_min, msg + 12);
	audit(p->job_id, MPP_EXT_EXTENDED, limit_s, new_s, need, cap, msg);
	rc = 'e';
out:
	free(out);
	return rc;
}

static void *worker(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&X.lock);
	for (;;) {
		struct pending p;
		struct jobstate *st;
		int told, r;

		while (!X.stopping && X.nq == 0)
			pthread_cond_wait(&X.cv, &X.lock);
		if (X.stopping)
			break;
		p = X.q[0];
		memmove(X.q, X.q + 1, (X.nq - 1) * sizeof *X.q);
		X.nq--;
		st = state_locked(p.job_id, 1);
		told = st ? st->told : 0;
		if (st && (st->extended || st->fails >= MAX_FAILS))
			continue;
		pthread_mutex_unlock(&X.lock);
		r = handle(&p, told);
		pthread_mutex_lock(&X.lock);
		st = state_locked(p.job_id, 1);
		if (!st)
			continue;
		if (r == 'e')
			st->extended = 1;
		else if (r == 'f')
			st->fails++;
		else if (r == 't')
			st->told = 1;
	}
	pthread_mutex_unlock(&X.lock);
	return NULL;
}

int mpp_extend_start(const mpp_extend_config *c, char *err, size_t errlen)
{
	X.c = *c;
	X.db_path = strdup(c->db_path);
	X.scontrol = strdup(c->scontrol);
	X.q = calloc(MAX_PENDING, sizeof *X.q);
	if (!X.db_path || !X.scontrol || !X.q) {
		snprintf(err, errlen, "extend: out of memory");
		return -1;
	}
	X.stopping = 0;
	if (pthread_create(&X.thread, NULL, worker, NULL) != 0) {
		snprintf(err, errlen, "extend: cannot start its thread");
		return -1;
	}
	X.on = 1;
	return 0;
}

void mpp_extend_stop(void)
{
	if (!X.on)
		return;
	pthread_mutex_lock(&X.lock);
	X.stopping = 1;
	X.on = 0;
	pthread_cond_signal(&X.cv);
	pthread_mutex_unlock(&X.lock);
	pthread_join(X.thread, NULL);
	free(X.db_path);
	free(X.scontrol);
	free(X.q);
	free(X.js);
	X.js = NULL;
	X.njs = X.capjs = 0;
}

/* ---- the staff page ------------------------------------------------------ */

static void page_secs(FILE *f, double s)
{
	char b[64];

	if (!isfinite(s)) {
		fputs("-", f);
		return;
	}
	hms(b, sizeof b, s);
	fputs(b, f);
}

static int page_row(void *ctx, const mpp_extension_rec *r)
{
	FILE *f = ctx;
	time_t t = (time_t)r->at;
	struct tm tm;
	char when[64];

	gmtime_r(&t, &tm);
	strftime(when, sizeof when, "%Y-%m-%d %H:%M:%SZ", &tm);
	fprintf(f, "<tr><td>%s</td><td>", when);
	mpp_html_text(f, r->job_id ? r->job_id : "");
	fputs("</td><td>", f);
	mpp_html_text(f, r->outcome ? r->outcome : "");
	fputs("</td><td>", f);
	page_secs(f, r->old_limit_s);
	fputs("</td><td>", f);
	page_secs(f, r->new_limit_s);
	fputs("</td><td>", f);
	page_secs(f, r->need_s);
	fputs("</td><td>", f);
	page_secs(f, r->cap_s);
	fputs("</td><td>", f);
	mpp_html_text(f, r->detail ? r->detail : "");
	fputs("</td></tr>", f);
	return 0;
}

void mpp_extend_page(FILE *f, const char *db_path)
{
	mpp_store *s = NULL;
	char err[512];

	fputs("<h2>Limit extensions</h2>", f);
	if (!X.on) {
		fputs("<p class=\"note\">The limit-extension policy is off "
		      "(mpipredictd --extend on).</p>",
		      f);
		return;
	}
	fprintf(f,
		"<p class=\"note\">The policy's actions, newest first (up to "
		"50): a running job predicted to outlive its limit by at most "
		"%g %% of it and %g s is extended through scontrol.</p>",
		X.c.cap_pct, X.c.cap_s);
	fputs("<table id=\"extensions\"><tr><th>when</th><th>job</th>"
	      "<th>outcome</th><th>limit</th><th>new limit</th><th>need</th>"
	      "<th>cap</th><th>what the user was told</th></tr>",
	      f);
	if (!db_path ||
	    mpp_store_open(db_path, MPP_STORE_READONLY, &s, err, sizeof err) !=
		MPP_OK ||
	    mpp_store_each_extension(s, 50, page_row, f, err, sizeof err) !=
		MPP_OK)
		mpp_log(MPP_LOG_WARN, "extend: page: %s",
			db_path ? err : "no store");
	if (s)
		mpp_store_close(s);
	fputs("</table>", f);
}
