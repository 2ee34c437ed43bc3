/*
 * ui_data.c: builds the staff page's snapshot from the store, on a thread
 * of its own with its own read-only SQLite connection (see ui_data.h).
 *
 * One snapshot is read inside one read transaction, so its tables agree
 * with each other. The joins to the actual run times go through grouped
 * subqueries (one row per job id), which SQLite materialises and indexes
 * on the fly: the cost is one pass over predictions and one over the
 * outcome table, on this thread, never on the event loop.
 *
 * Not for: rendering (ui.c) or any write.
 */
#include "server/ui_data.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/grow.h"
#include "server/log.h"

struct mpp_ui_store {
	sqlite3 *db;
	int refresh_ms;
	pthread_mutex_t lock; /* cur and every snapshot's refs */
	mpp_ui_data *cur;
	pthread_t thread;
	pthread_cond_t wake;
	int stopping, started;
	long long data_version;
};

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? strdup((const char *)t) : NULL;
}

static double real_col(sqlite3_stmt *st, int i)
{
	return sqlite3_column_type(st, i) == SQLITE_NULL
		   ? NAN
		   : sqlite3_column_double(st, i);
}

static void free_preds(mpp_ui_pred *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(p[i].app);
		free(p[i].job_id);
		free(p[i].user);
		free(p[i].basis);
	}
	free(p);
}

static void data_free(mpp_ui_data *d)
{
	if (d == NULL)
		return;
	for (size_t i = 0; i < d->nmodels; i++) {
		free(d->models[i].app);
		free(d->models[i].method);
		free(d->models[i].terms);
	}
	free(d->models);
	free_preds(d->points, d->npoints);
	free_preds(d->recent, d->nrecent);
	for (size_t i = 0; i < d->nusers; i++)
		free(d->users[i].user);
	free(d->users);
	for (size_t i = 0; i < d->nevents; i++) {
		free(d->events[i].app);
		free(d->events[i].kind);
		free(d->events[i].reason);
	}
	free(d->events);
	free(d);
}

/* Grows *arr (of elements of size sz) to hold n + 1. */
static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **st, char *err,
		   size_t errlen)
{
	if (sqlite3_prepare_v2(db, sql, -1, st, NULL) == SQLITE_OK)
		return 0;
	snprintf(err, errlen, "%s", sqlite3_errmsg(db));
	return -1;
}

static int read_models(sqlite3 *db, mpp_ui_data *d, char *err, size_t errlen)
{
	static const char sql[] =
	    "SELECT m.id, a.name, m.version, m.active, m.method, "
	    "m.created_at, m.ntrain, m.cv_mape, m.rel_lo, m.rel_hi, "
	    "m.coverage, m.x_mape, (SELECT count(*) FROM model_terms t WHERE "
	    "t.model_id = m.id), (SELECT group_concat(feature, ' ') FROM "
	    "(SELECT feature FROM model_terms t WHERE t.model_id = m.id "
	    "ORDER BY idx)) FROM models m JOIN apps a ON a.id = m.app_id "
	    "ORDER BY a.name, m.version DESC";
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;
	if (prepare(db, sql, &st, err, errlen))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (mpp_grow((void **)&d->models, &cap, d->nmodels,
			     sizeof *d->models, 16)) {
			rc = SQLITE_NOMEM;
			break;
		}
		mpp_ui_model *m = &d->models[d->nmodels++];
		memset(m, 0, sizeof *m);
		m->id = sqlite3_column_int64(st, 0);
		m->app = dup_col(st, 1);
		m->version = sqlite3_column_int64(st, 2);
		m->active = sqlite3_column_int(st, 3);
		m->method = dup_col(st, 4);
		m->created_at = sqlite3_column_double(st, 5);
		m->ntrain = sqlite3_column_int64(st, 6);
		m->cv_mape = real_col(st, 7);
		m->rel_lo = sqlite3_column_double(st, 8);
		m->rel_hi = sqlite3_column_double(st, 9);
		m->coverage = sqlite3_column_double(st, 10);
		m->x_mape = real_col(st, 11);
		m->nterms = sqlite3_column_int64(st, 12);
		m->terms = dup_col(st, 13);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "models: %s", sqlite3_errstr(rc));
		return -1;
	}
	return 0;
}

/* Predictions as the query gives them (its columns: id, at, app, job_id,
 * user, basis, version, runtime_s, lower_s, upper_s, actual_s). */
static int read_preds(sqlite3 *db, const char *sql, mpp_ui_pred **out,
		      size_t *n, char *err, size_t errlen)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;
	if (prepare(db, sql, &st, err, errlen))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (mpp_grow((void **)out, &cap, *n, sizeof **out, 16)) {
			rc = SQLITE_NOMEM;
			break;
		}
		mpp_ui_pred *p = &(*out)[(*n)++];
		p->id = sqlite3_column_int64(st, 0);
		p->at = sqlite3_column_double(st, 1);
		p->app = dup_col(st, 2);
		p->job_id = dup_col(st, 3);
		p->user = dup_col(st, 4);
		p->basis = dup_col(st, 5);
		p->version = sqlite3_column_int64(st, 6);
		p->runtime_s = sqlite3_column_double(st, 7);
		p->lower_s = sqlite3_column_double(st, 8);
		p->upper_s = sqlite3_column_double(st, 9);
		p->actual_s = real_col(st, 10);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "predictions: %s", sqlite3_errstr(rc));
		return -1;
	}
	return 0;
}

static long long count(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	long long n = -1;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return -1;
	if (sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return n;
}

static int read_users(sqlite3 *db, mpp_ui_data *d, char *err, size_t errlen)
{
	/* A job's prediction: the largest upper bound given for its id. A
	 * better limit (that upper bound) would have freed nodes * (limit -
	 * upper) of the reservation, counted only when the job ended within
	 * it (a limit there would not have killed it). */
	static const char sql[] =
	    "SELECT j.user, count(*), sum(j.time_limit_s), sum(j.runtime_s), "
	    "sum(q.upper IS NOT NULL AND q.upper >= j.runtime_s), "
	    "sum(CASE WHEN q.upper >= j.runtime_s AND j.time_limit_s > "
	    "q.upper THEN coalesce(j.nodes, 1) * (j.time_limit_s - q.upper) "
	    "ELSE 0 END) FROM jobs j LEFT JOIN (SELECT job_id AS jid, "
	    "max(upper_s) AS upper FROM predictions WHERE job_id IS NOT NULL "
	    "GROUP BY job_id) q ON q.jid = CAST(j.job_id AS TEXT) WHERE "
	    "j.user IS NOT NULL AND j.time_limit_s > 0 AND j.runtime_s > 0 "
	    "GROUP BY j.user ORDER BY sum(j.time_limit_s) * 1.0 / "
	    "sum(j.runtime_s) DESC, j.user";
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;
	if (prepare(db, sql, &st, err, errlen))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (mpp_grow((void **)&d->users, &cap, d->nusers,
			     sizeof *d->users, 16)) {
			rc = SQLITE_NOMEM;
			break;
		}
		mpp_ui_user *u = &d->users[d->nusers++];
		u->user = dup_col(st, 0);
		u->jobs = sqlite3_column_int64(st, 1);
		u->requested_s = sqlite3_column_double(st, 2);
		u->used_s = sqlite3_column_double(st, 3);
		u->factor = u->requested_s / u->used_s;
		u->predicted = sqlite3_column_int64(st, 4);
		u->freed_node_s = sqlite3_column_double(st, 5);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "jobs: %s", sqlite3_errstr(rc));
		return -1;
	}
	return 0;
}

/* The newest model events (store version 12), when the store has them. */
static int read_events(sqlite3 *db, mpp_ui_data *d, char *err, size_t errlen)
{
	char sql[512];
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc;

	if (count(db, "SELECT count(*) FROM sqlite_master WHERE type = "
		      "'table' AND name = 'model_events'") <= 0)
		return 0;
	snprintf(sql, sizeof sql,
		 "SELECT e.at, a.name, coalesce(m.version, -1), e.kind, "
		 "e.reason FROM model_events e JOIN apps a ON a.id = e.app_id "
		 "LEFT JOIN models m ON m.id = e.model_id ORDER BY e.id DESC "
		 "LIMIT %d",
		 MPP_UI_EVENTS);
	if (prepare(db, sql, &st, err, errlen))
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (mpp_grow((void **)&d->events, &cap, d->nevents,
			     sizeof *d->events, 16)) {
			rc = SQLITE_NOMEM;
			break;
		}
		mpp_ui_event *e = &d->events[d->nevents++];
		e->at = sqlite3_column_double(st, 0);
		e->app = dup_col(st, 1);
		e->version = sqlite3_column_int64(st, 2);
		e->kind = dup_col(st, 3);
		e->reason = dup_col(st, 4);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		snprintf(err, errlen, "model_events: %s", sqlite3_errstr(rc));
		return -1;
	}
	return 0;
}

/* The outcome table: one row per job id (jid, as text) with its actual
 * run time. */
static const char jobs_outcome[] =
    "(SELECT CAST(job_id AS TEXT) AS jid, max(runtime_s) AS actual FROM jobs "
    "WHERE job_id IS NOT NULL AND runtime_s > 0 GROUP BY 1)";
static const char runs_outcome[] =
    "(SELECT job_id AS jid, max(runtime_s) AS actual FROM runs WHERE job_id "
    "IS NOT NULL AND job_id <> '' GROUP BY 1)";

static const char pred_cols[] =
    "SELECT p.id, p.at, p.app, p.job_id, p.user, p.basis, "
    "coalesce(m.version, -1), p.runtime_s, p.lower_s, p.upper_s, o.actual "
    "FROM predictions p LEFT JOIN models m ON m.id = p.model_id ";

static mpp_ui_data *build(sqlite3 *db, char *err, size_t errlen)
{
	mpp_ui_data *d = calloc(1, sizeof *d);
	char sql[2048];
	if (d == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	d->refs = 1;
	d->built_at = (double)time(NULL);
	if (sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {
		snprintf(err, errlen, "%s", sqlite3_errmsg(db));
		free(d);
		return NULL;
	}
	/* Slurm's accounting when the store has it and it holds jobs (a
	 * store of version 4 has the table from the start, empty). */
	d->have_jobs = count(db, "SELECT count(*) FROM sqlite_master WHERE "
				 "type = 'table' AND name = 'jobs'") > 0 &&
		       count(db, "SELECT EXISTS (SELECT 1 FROM jobs)") > 0;
	const char *outcome = d->have_jobs ? jobs_outcome : runs_outcome;
	d->outcomes = d->have_jobs ? "jobs" : "runs";
	int rc = read_models(db, d, err, errlen);
	if (rc == 0)
		rc = read_events(db, d, err, errlen);
	if (rc == 0) {
		snprintf(sql, sizeof sql,
			 "%s JOIN %s o ON o.jid = p.job_id ORDER BY p.id DESC "
			 "LIMIT %d",
			 pred_cols, outcome, MPP_UI_MAX_POINTS);
		rc = read_preds(db, sql, &d->points, &d->npoints, err, errlen);
	}
	if (rc == 0) {
		snprintf(sql, sizeof sql,
			 "%s LEFT JOIN %s o ON o.jid = p.job_id ORDER BY p.id "
			 "DESC LIMIT %d",
			 pred_cols, outcome, MPP_UI_RECENT);
		rc = read_preds(db, sql, &d->recent, &d->nrecent, err, errlen);
	}
	if (rc == 0) {
		snprintf(sql, sizeof sql,
			 "SELECT count(*) FROM predictions p JOIN %s o ON "
			 "o.jid = p.job_id",
			 outcome);
		d->points_total = count(db, sql);
		d->predictions_total =
		    count(db, "SELECT count(*) FROM predictions");
	}
	if (rc == 0 && d->have_jobs)
		rc = read_users(db, d, err, errlen);
	sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
	if (rc != 0) {
		data_free(d);
		return NULL;
	}
	/* Oldest first: the charts draw time left to right. */
	for (size_t i = 0, j = d->npoints; i + 1 < j; i++, j--) {
		mpp_ui_pred t = d->points[i];
		d->points[i] = d->points[j - 1];
		d->points[j - 1] = t;
	}
	return d;
}

static long long data_version(sqlite3 *db)
{
	return count(db, "PRAGMA data_version");
}

static void install(mpp_ui_store *s, mpp_ui_data *d)
{
	pthread_mutex_lock(&s->lock);
	mpp_ui_data *old = s->cur;
	s->cur = d;
	int last = old && --old->refs == 0;
	pthread_mutex_unlock(&s->lock);
	if (last)
		data_free(old);
}

static void *refresher(void *arg)
{
	mpp_ui_store *s = arg;
	char err[256];
	int failing = 0;
	pthread_mutex_lock(&s->lock);
	while (!s->stopping) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		ts.tv_sec += s->refresh_ms / 1000;
		ts.tv_nsec += (long)(s->refresh_ms % 1000) * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		while (!s->stopping &&
		       pthread_cond_timedwait(&s->wake, &s->lock, &ts) !=
			   ETIMEDOUT)
			;
		if (s->stopping)
			break;
		pthread_mutex_unlock(&s->lock);
		long long v = data_version(s->db);
		if (v != s->data_version || failing) {
			mpp_ui_data *d = build(s->db, err, sizeof err);
			if (d) {
				s->data_version = v;
				install(s, d);
				if (failing)
					mpp_log(MPP_LOG_WARN,
						"ui: store read again");
				failing = 0;
			} else if (!failing++) {
				mpp_log(MPP_LOG_WARN,
					"ui: cannot read the store (%s); "
					"the page shows the last snapshot",
					err);
			}
		}
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

int mpp_ui_store_start(const char *db_path, int refresh_ms, mpp_ui_store **out,
		       char *err, size_t errlen)
{
	mpp_ui_store *s = calloc(1, sizeof *s);
	char why[256];
	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	s->refresh_ms = refresh_ms > 0 ? refresh_ms : 1000;
	pthread_mutex_init(&s->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&s->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (sqlite3_open_v2(db_path, &s->db, SQLITE_OPEN_READONLY, NULL) !=
	    SQLITE_OK) {
		snprintf(err, errlen, "%s: %s", db_path,
			 s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 2000);
	s->data_version = data_version(s->db);
	if ((s->cur = build(s->db, why, sizeof why)) == NULL) {
		snprintf(err, errlen, "%s: %s", db_path, why);
		goto fail;
	}
	if (pthread_create(&s->thread, NULL, refresher, s) != 0) {
		snprintf(err, errlen, "cannot start the page's thread");
		goto fail;
	}
	s->started = 1;
	*out = s;
	return 0;
fail:
	mpp_ui_store_stop(s);
	return -1;
}

void mpp_ui_store_stop(mpp_ui_store *s)
{
	if (s == NULL)
		return;
	if (s->started) {
		pthread_mutex_lock(&s->lock);
		s->stopping = 1;
		pthread_cond_signal(&s->wake);
		pthread_mutex_unlock(&s->lock);
		pthread_join(s->thread, NULL);
	}
	sqlite3_close(s->db);
	install(s, NULL);
	pthread_cond_destroy(&s->wake);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

const mpp_ui_data *mpp_ui_acquire(mpp_ui_store *s)
{
	pthread_mutex_lock(&s->lock);
	mpp_ui_data *d = s->cur;
	d->refs++;
	pthread_mutex_unlock(&s->lock);
	return d;
}

void mpp_ui_release(mpp_ui_store *s, const mpp_ui_data *d)
{
	mpp_ui_data *m = (mpp_ui_data *)d;
	pthread_mutex_lock(&s->lock);
	int last = --m->refs == 0;
	pthread_mutex_unlock(&s->lock);
	if (last)
		data_free(m);
}
