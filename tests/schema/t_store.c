/*
 * t-store: the store keeps what it is given. A saved model loads back
 * field by field; a second save is version 2 and the active one; another
 * handle sees the change through mpp_store_changed(); a parameters path
 * with its own fit (pintercept, pcoef) loads back and predicts without the
 * left-out term, one without refuses naming it; ingesting the same
 * rows twice is done once, a run id with other values fails and writes
 * nothing; prediction records are counted; version 1 and
 * 2 stores are migrated, one of a newer version refused.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>
#include <unistd.h>

#include "regress/params.h"
#include "schema/store.h"

#define FAIL(...)                                                              \
	do {                                                                   \
		printf(__VA_ARGS__);                                           \
		printf("\n");                                                  \
		exit(1);                                                       \
	} while (0)

/* The single integer a query gives on database file `path`; -1 on error. */
static long long sqlite_count(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long n = -1;

	if (sqlite3_open(path, &db) != SQLITE_OK) {
		sqlite3_close(db);
		return -1;
	}
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK &&
	    sqlite3_step(st) == SQLITE_ROW)
		n = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return n;
}

static mpp_model *sample_model(double intercept)
{
	mpp_model *m = mpp_model_new();
	mpp_term *t;

	m->app = strdup("jacobi");
	m->build_id = strdup("b1");
	m->method = strdup("default");
	m->fit = strdup("nnls");
	m->intercept = intercept;
	m->ntrain = 40;
	m->nfeatures_in = 300;
	m->cv_mape = 3.5;
	m->x_mape = 16.5;
	m->xdist = 0.25;
	m->rel_lo = 0.9;
	m->rel_hi = 1.2;
	m->prel_lo = 0.8;
	m->prel_hi = 1.4;
	m->coverage = 0.9;
	m->nterms = 2;
	m->terms = calloc(2, sizeof(*m->terms));
	t = &m->terms[0];
	t->feature = strdup("loop:a.c:1:1.mean");
	t->coef = 2e-6;
	t->center = 10;
	t->scale = 3;
	t->naliases = 1;
	t->aliases = malloc(sizeof(char *));
	t->aliases[0] = strdup("loop:a.c:2:1.mean");
	t->pm.log_c = 0.5;
	t->pm.nvars = 2;
	t->pm.vars = malloc(2 * sizeof(char *));
	t->pm.vars[0] = strdup("nprocs");
	t->pm.vars[1] = strdup("-n");
	t->pm.expo = malloc(2 * sizeof(double));
	t->pm.expo[0] = -1;
	t->pm.expo[1] = 3;
	t->pm.cv_mape = 1.5;
	t->pm.predictable = 1;
	t->pm.nedges = 1;
	t->pm.edges = malloc(sizeof(*t->pm.edges));
	t->pm.edges[0] = (struct mpp_edge_law){1, 0.25, 0.5};
	t = &m->terms[1];
	t->feature = strdup("call:a.c:9:3.max");
	t->coef = 0.25;
	t->scale = 1;
	t->pm.cv_mape = 80;
	m->progress_feature = strdup("loop:a.c:7:5.mean");
	m->progress.log_c = 2;
	m->progress.nvars = 1;
	m->progress.vars = malloc(sizeof(char *));
	m->progress.vars[0] = strdup("-n");
	m->progress.expo = malloc(sizeof(double));
	m->progress.expo[0] = 4;
	m->progress.cv_mape = 2.5;
	m->progress.predictable = 1;
	return m;
}

/* Turns a version 6 store into a version 5 one (the test of migrations). */
/* Version 7 (issue 16): the model's machine profile. */
/* Version 18 (issue 40): the terms' edge laws. */
#define DROP_V17 "DROP TABLE param_model_edges; "
/* Version 17 (issue 40): the extrapolation checks' distance. */
#define DROP_V16 DROP_V17 "ALTER TABLE models DROP COLUMN xdist; "
/* Version 16 (issue 37): the progress counter. */
#define DROP_V15 DROP_V16 "ALTER TABLE models DROP COLUMN progress_feature; "
/* Version 15 (issue 37): the limit-extension policy's actions. */
#define DROP_V14 DROP_V15 "DROP TABLE extensions; "
/* Version 14 (issue 40): the edge factor's groups. */
#define DROP_V13 DROP_V14 "ALTER TABLE param_ranges DROP COLUMN edge_group; "
/* Version 13 (issue 37): the progress of running jobs. */
#define DROP_V12 DROP_V13 "DROP TABLE progress; "
/* Version 12 (issue 39): the model events. */
#define DROP_V11 DROP_V12 "DROP TABLE model_events; "
/* Version 11 (issue 15): the memory regime. */
#define DROP_V10                                                               \
	DROP_V11 "ALTER TABLE models DROP COLUMN mem_beta; "                   \
		 "ALTER TABLE models DROP COLUMN mem_curve; "                  \
		 "ALTER TABLE models DROP COLUMN mem_a; "                      \
		 "ALTER TABLE models DROP COLUMN mem_b; "
/* Version 9 (issue 15): the extrapolation fit; 10: the error outside the
 * ranges. */
#define DROP_V9                                                                \
	DROP_V10 "ALTER TABLE models DROP COLUMN x_mape; "                     \
		 "ALTER TABLE models DROP COLUMN xintercept; "                 \
		 "ALTER TABLE models DROP COLUMN xpintercept; "                \
		 "ALTER TABLE model_terms DROP COLUMN xcoef; "                 \
		 "ALTER TABLE model_terms DROP COLUMN xpcoef; "
#define DROP_V8 DROP_V9 "ALTER TABLE param_ranges DROP COLUMN edge; "
#define DROP_V7 DROP_V8 "ALTER TABLE models DROP COLUMN comm_profile; "
#define DROP_V6                                                                \
	DROP_V7 "ALTER TABLE models DROP COLUMN params_law; "                  \
		"ALTER TABLE models DROP COLUMN law_a; "                       \
		"ALTER TABLE models DROP COLUMN law_b; "                       \
		"ALTER TABLE models DROP COLUMN law_log_c; "                   \
		"ALTER TABLE models DROP COLUMN law_cv_mape; "                 \
		"ALTER TABLE models DROP COLUMN xlo; "                         \
		"ALTER TABLE models DROP COLUMN xhi; "                         \
		"DROP TABLE law_vars; DROP TABLE param_ranges; "
/* ... and a version 3 one (before the jobs table). */
#define DROP_V5 "DROP TABLE machine_profiles; "
#define DROP_V4                                                                \
	"DROP TABLE jobs; DROP INDEX predictions_job; "                        \
	"DROP INDEX predictions_user_at; "

int main(void)
{
	char err[256];
	mpp_store *s, *r;
	mpp_model *m, *got, **all;
	size_t n;
	int changed;

	if (mpp_store_open("missing.db", MPP_STORE_READONLY, &s, err,
			   sizeof(err)) == MPP_OK)
		FAIL("expected opening a missing file read-only to fail");
	/* The shared default (docs/cli.md) and the open that never creates. */
	unsetenv("MPIPREDICT_DB");
	if (strcmp(mpp_store_default_path(NULL), "./models.db") ||
	    strcmp(mpp_store_default_path("x.db"), "x.db"))
		FAIL("expected ./models.db, or --db's value, as the store");
	setenv("MPIPREDICT_DB", "env.db", 1);
	if (strcmp(mpp_store_default_path(NULL), "env.db") ||
	    strcmp(mpp_store_default_path("x.db"), "x.db"))
		FAIL("expected $MPIPREDICT_DB under --db as the store");
	unsetenv("MPIPREDICT_DB");
	if (mpp_store_open_existing("missing.db", MPP_STORE_CREATE, &s, err,
				    sizeof(err)) != MPP_ENOTFOUND ||
	    !strstr(err, "missing.db: no store here") ||
	    access("missing.db", F_OK) == 0)
		FAIL("expected a missing store refused and not made: %s", err);
	if (mpp_store_open("t.db", MPP_STORE_CREATE, &s, err, sizeof(err)))
		FAIL("open: %s", err);
	if (mpp_store_open("t.db", MPP_STORE_READONLY, &r, err, sizeof(err)))
		FAIL("open read-only: %s", err);
	if (mpp_store_load_active(r, "jacobi", &got, err, sizeof(err)) !=
	    MPP_ENOTFOUND)
		FAIL("expected MPP_ENOTFOUND before any save");

	m = sample_model(0.35);
	if (mpp_store_save_model(s, m, err, sizeof(err)))
		FAIL("save: %s", err);
	if (m->version != 1 || m->id <= 0)
		FAIL("expected version 1 and an id, got %d %lld", m->version,
		     (long long)m->id);
	if (mpp_store_changed(r, &changed, err, sizeof(err)) || !changed)
		FAIL("expected the reader to see a change after a save");
	if (mpp_store_changed(r, &changed, err, sizeof(err)) || changed)
		FAIL("expected no change on the second call");
	if (mpp_store_load_active(r, "jacobi", &got, err, sizeof(err)))
		FAIL("load: %s", err);
	if (got->nterms != 2 ||
	    strcmp(got->terms[0].feature, m->terms[0].feature) ||
	    got->terms[0].coef != 2e-6 || got->terms[0].naliases != 1 ||
	    strcmp(got->terms[0].aliases[0], "loop:a.c:2:1.mean") ||
	    got->terms[0].pm.nvars != 2 || got->terms[0].pm.expo[1] != 3 ||
	    strcmp(got->terms[0].pm.vars[1], "-n") ||
	    !got->terms[0].pm.predictable || got->terms[1].pm.predictable ||
	    got->intercept != 0.35 || got->rel_hi != 1.2 ||
	    !isnan(got->cv_mape_params) || got->cv_mape != 3.5 ||
	    got->x_mape != 16.5 || got->xdist != 0.25 ||
	    strcmp(got->fit, "nnls") || got->ntrain != 40)
		FAIL("expected the model to load back as saved");
	if (got->terms[0].pm.nedges != 1 ||
	    got->terms[0].pm.edges[0].range != 1 ||
	    got->terms[0].pm.edges[0].a != 0.25 ||
	    got->terms[0].pm.edges[0].b != 0.5 || got->terms[1].pm.nedges)
		FAIL("expected term 0's edge law to load back, and none for 1");
	if (!got->progress_feature ||
	    strcmp(got->progress_feature, "loop:a.c:7:5.mean") ||
	    got->progress.log_c != 2 || got->progress.nvars != 1 ||
	    strcmp(got->progress.vars[0], "-n") || got->progress.expo[0] != 4 ||
	    !got->progress.predictable)
		FAIL("expected the progress counter and its law to load back");
	if (mpp_model_find_term(got, "loop:a.c:2:1.mean") != 0)
		FAIL("expected the alias to find term 0");
	mpp_model_free(got);

	/* Without a parameters path of its own, the unpredictable term makes
	 * predictions from parameters fail, naming it. */
	mpp_params p = {0};
	mpp_prediction pred;
	if (mpp_params_from_string("-n 10", 2, 1, &p))
		FAIL("params: out of memory");
	if (mpp_model_predict_params(m, &p, &pred, err, sizeof(err)) !=
		MPP_EINVAL ||
	    !strstr(err, "call:a.c:9:3.max"))
		FAIL("expected predict_params to name the unpredictable term, "
		     "got '%s'",
		     err);

	mpp_model_free(m);
	m = sample_model(0.5);
	m->pintercept = 0.4;
	m->pcoef = calloc(2, sizeof(double));
	m->pcoef[0] = 3e-6;
	if (mpp_store_save_model(s, m, err, sizeof(err)) || m->version != 2)
		FAIL("expected a second save to be version 2");
	if (mpp_store_load_active(r, "jacobi", &got, err, sizeof(err)) ||
	    got->version != 2 || got->intercept != 0.5)
		FAIL("expected version 2 active");
	if (!got->pcoef || got->pintercept != 0.4 || got->pcoef[0] != 3e-6 ||
	    got->pcoef[1] != 0)
		FAIL("expected the parameters path's fit to load back");
	/* 0.4 + 3e-6 * e^0.5 * 10^3 / 2, the left-out term ignored. */
	double want = 0.4 + 3e-6 * exp(0.5) * 1000 / 2;
	if (mpp_model_predict_params(got, &p, &pred, err, sizeof(err)) ||
	    fabs(pred.runtime_s - want) > 1e-12 ||
	    fabs(pred.upper_s - want * 1.4) > 1e-12)
		FAIL("expected %.9g s from parameters, got %.9g (%s)", want,
		     pred.runtime_s, err);
	mpp_params_free(&p);
	mpp_model_free(got);
	mpp_model_free(m);
	m = sample_model(1);
	free(m->app);
	m->app = strdup("another");
	if (mpp_store_save_model(s, m, err, sizeof(err)))
		FAIL("save another: %s", err);
	mpp_model_free(m);
	if (mpp_store_load_all_active(r, &all, &n, err, sizeof(err)) ||
	    n != 2 || strcmp(all[0]->app, "another") ||
	    strcmp(all[1]->app, "jacobi"))
		FAIL("expected two active models sorted by app");
	for (size_t i = 0; i < n; i++)
		mpp_model_free(all[i]);
	free(all);

	mpp_runs rs = {0};
	const char csv[] = "run_id,app,build_id,started_at,job_id,nprocs,"
			   "nnodes,runtime_s,args,f1,f2\n"
			   "r1,jacobi,b1,t,,4,1,2.5,-n 8,1,\n"
			   "r2,jacobi,b1,t,,4,1,2.5,-n 8,2,3\n";
	if (mpp_runs_parse(&rs, "csv", csv, sizeof(csv) - 1, NULL, NULL, err,
			   sizeof(err)))
		FAIL("parse: %s", err);
	if (mpp_store_add_runs(s, &rs, err, sizeof(err)))
		FAIL("add runs: %s", err);
	/* The same rows again (a body retried after a lost answer) are done
	 * already; r1 with another value is refused by name, writing nothing.
	 */
	if (mpp_store_add_runs(s, &rs, err, sizeof(err)))
		FAIL("expected the same rows again to be accepted, got '%s'",
		     err);
	mpp_runs_free(&rs);
	const char other[] = "run_id,app,build_id,started_at,job_id,nprocs,"
			     "nnodes,runtime_s,args,f1,f2\n"
			     "r3,jacobi,b1,t,,4,1,2.5,-n 8,1,\n"
			     "r1,jacobi,b1,t,,4,1,9.5,-n 8,1,\n";
	if (mpp_runs_parse(&rs, "csv", other, sizeof(other) - 1, NULL, NULL,
			   err, sizeof(err)))
		FAIL("parse: %s", err);
	err[0] = 0;
	if (mpp_store_add_runs(s, &rs, err, sizeof(err)) != MPP_EINVAL ||
	    !strstr(err, "r1"))
		FAIL("expected storing r1 with another runtime to fail naming "
		     "it, got '%s'",
		     err);
	mpp_runs_free(&rs);
	if (sqlite_count("t.db", "SELECT count(*) FROM runs WHERE "
				 "run_id = 'r3'") != 0)
		FAIL("expected nothing of a refused batch written (r3 stored)");

	mpp_prediction_rec rec[2] = {
	    {.at = 1,
	     .app = "jacobi",
	     .model_id = 1,
	     .basis = "features",
	     .runtime_s = 2,
	     .lower_s = 1,
	     .upper_s = 3},
	    {.at = 2,
	     .job_id = "77",
	     .app = "jacobi",
	     .basis = "parameters",
	     .user = "u",
	     .runtime_s = 2,
	     .lower_s = 1,
	     .upper_s = 3},
	};
	if (mpp_store_record_predictions(s, rec, 2, err, sizeof(err)))
		FAIL("record: %s", err);
	mpp_store_close(r);
	mpp_store_close(s);

	sqlite3 *db;
	/* Version 17 (before the edge laws), version 16 (before the
	 * checks' distance), version 15 (before the
	 * progress counter), version 13 (before the
	 * edge factor's groups), version 11 (before
	 * the model events), version 5 (before the
	 * run-time law and the parameter ranges),
	 * version 2 (before the parameters path's own fit) and version 1
	 * (before param_models.zero_serial) stores are migrated on open and
	 * their models load, without a parameters-path fit, a law or
	 * ranges. */
	static const char *const older[][2] = {
	    {"v17.db", DROP_V17 "PRAGMA user_version = 17"},
	    {"v16.db", DROP_V16 "PRAGMA user_version = 16"},
	    {"v15.db", DROP_V15 "PRAGMA user_version = 15"},
	    {"v13.db", DROP_V13 "PRAGMA user_version = 13"},
	    {"v11.db", DROP_V11 "PRAGMA user_version = 11"},
	    {"v5.db", DROP_V6 "PRAGMA user_version = 5"},
	    {"v2.db", DROP_V6 DROP_V5 DROP_V4
	     "ALTER TABLE models DROP COLUMN pintercept; "
	     "ALTER TABLE model_terms DROP COLUMN pcoef; "
	     "PRAGMA user_version = 2"},
	    {"v1.db", DROP_V6 DROP_V5 DROP_V4
	     "ALTER TABLE models DROP COLUMN pintercept; "
	     "ALTER TABLE model_terms DROP COLUMN pcoef; "
	     "ALTER TABLE param_models DROP COLUMN zero_serial; "
	     "PRAGMA user_version = 1"},
	};
	for (int v = 0; v < 8; v++) {
		char copy[64];
		snprintf(copy, sizeof(copy), "VACUUM INTO '%s'", older[v][0]);
		if (sqlite3_open("t.db", &db) != SQLITE_OK ||
		    sqlite3_exec(db, copy, NULL, NULL, NULL) != SQLITE_OK)
			FAIL("cannot copy t.db: %s", sqlite3_errmsg(db));
		sqlite3_close(db);
		if (sqlite3_open(older[v][0], &db) != SQLITE_OK ||
		    sqlite3_exec(db, older[v][1], NULL, NULL, NULL) !=
			SQLITE_OK)
			FAIL("cannot make %s: %s", older[v][0],
			     sqlite3_errmsg(db));
		sqlite3_close(db);
		if (mpp_store_open(older[v][0], MPP_STORE_CREATE, &s, err,
				   sizeof(err)))
			FAIL("open %s: %s", older[v][0], err);
		if (mpp_store_load_active(s, "jacobi", &got, err,
					  sizeof(err)) ||
		    got->nterms != 2 || got->terms[0].pm.zero_serial ||
		    (v > 5 && got->pcoef) || got->has_law || got->nranges ||
		    (v > 1 && got->progress_feature) ||
		    got->xdist != (v > 0 ? 0 : 0.25) ||
		    got->terms[0].pm.nedges || got->intercept != 0.5)
			FAIL("expected the model of %s to load, migrated",
			     older[v][0]);
		mpp_model_free(got);
		mpp_store_close(s);
	}

	/* A store from a newer program is refused, not rewritten. */
	if (sqlite3_open("newer.db", &db) != SQLITE_OK ||
	    sqlite3_exec(db, "PRAGMA user_version = 99", NULL, NULL, NULL) !=
		SQLITE_OK)
		FAIL("cannot make newer.db");
	sqlite3_close(db);
	if (mpp_store_open("newer.db", MPP_STORE_CREATE, &s, err,
			   sizeof(err)) != MPP_EINVAL ||
	    !strstr(err, "newer"))
		FAIL("expected a schema version 99 refused, got '%s'", err);
	printf("store: ok\n");
	return 0;
}
