-- schema.sql: mpipredict's SQLite store, version 18 (PRAGMA user_version).
--
-- schema/store.c embeds this file and runs it on an empty database, in one
-- transaction; an older database is brought forward by the migration steps
-- in store.c (1 -> 2: param_models.zero_serial; 2 -> 3: models.pintercept
-- and model_terms.pcoef; 3 -> 4: jobs; 4 -> 5: machine_profiles;
-- 5 -> 6: the run-time law, law_vars, param_ranges, xlo and xhi;
-- 6 -> 7: models.comm_profile; 7 -> 8: param_ranges.edge; 8 -> 9:
-- the extrapolation fit, models.xintercept, xpintercept and
-- model_terms.xcoef, xpcoef; 9 -> 10: models.x_mape; 10 -> 11: the
-- memory regime, models.mem_beta and mem_curve; 11 -> 12: model_events;
-- 12 -> 13: progress; 13 -> 14: param_ranges.edge_group; 14 -> 15:
-- extensions; 15 -> 16: models.progress_feature; 16 -> 17: models.xdist;
-- 17 -> 18: param_model_edges).
-- It holds
-- models (versioned, one active per app), the ingested run rows in long
-- format, the audit of answered predictions, the actual run times of
-- finished jobs, the machine profiles of mpipredict-calibrate, and the
-- history of which model version was made active, held or refused, and why.
-- WAL mode is turned on by store.c when it opens the file (a PRAGMA that
-- cannot run inside a transaction).

CREATE TABLE apps (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	created_at REAL NOT NULL
);

-- One row per trained model version. At most one active row per app.
CREATE TABLE models (
	id INTEGER PRIMARY KEY,
	app_id INTEGER NOT NULL REFERENCES apps(id),
	version INTEGER NOT NULL,
	active INTEGER NOT NULL DEFAULT 0 CHECK (active IN (0, 1)),
	build_id TEXT NOT NULL,
	method TEXT NOT NULL,
	fit TEXT NOT NULL,
	created_at REAL NOT NULL,
	intercept REAL NOT NULL,
	ntrain INTEGER NOT NULL,
	nfeatures_in INTEGER NOT NULL,
	cv_mape REAL,          -- percent; NULL when unknown
	cv_mape_params REAL,   -- percent; NULL when the model has no params path
	rel_lo REAL NOT NULL,
	rel_hi REAL NOT NULL,
	prel_lo REAL NOT NULL,
	prel_hi REAL NOT NULL,
	coverage REAL NOT NULL,
	-- The parameters path's own intercept when it was refitted without
	-- the kept terms that job parameters cannot predict; NULL: it uses
	-- intercept and the terms' coef.
	pintercept REAL,
	-- The run-time law (regress/model.h): runtime = law_a + law_b *
	-- exp(law_log_c + sum expo * log(var)) over law_vars; NULL: none.
	-- params_law = 1: it is the parameters path.
	params_law INTEGER NOT NULL DEFAULT 0,
	law_a REAL,
	law_b REAL,
	law_log_c REAL,
	law_cv_mape REAL,
	-- Interval factors of an answer from parameters outside the
	-- training ranges (param_ranges); NULL: prel_lo, prel_hi.
	xlo REAL,
	xhi REAL,
	-- The machine profile (JSON) of a model that keeps model:comm_s, for
	-- its placement re-evaluation (regress/placement.h); its traffic laws
	-- are param_models rows with idx -1..-4. NULL: none.
	comm_profile TEXT,
	-- The extrapolation fit of a ridge model (regress/model.h xcoef):
	-- NNLS on the same terms, for answers outside a training range;
	-- xpintercept the parameters path's when it has a fit of its own.
	-- NULL: the same coefficients in and out of range.
	xintercept REAL,
	xpintercept REAL,
	-- The error (percent) an answer outside the training ranges can
	-- expect, from training's extrapolation checks. NULL: not measured.
	x_mape REAL,
	-- How far past their ranges (mpp_model_xdistance) those checks
	-- answered: farther answers get xlo, xhi to the power distance /
	-- xdist. NULL: the fixed factors at every distance.
	xdist REAL,
	-- The memory regime (regress/memory.h): answers scale by 1 + mem_beta
	-- (slowdown - 1) on the curve mem_curve (JSON, profile_json.h MEM);
	-- a rank's peak memory is mem_a + mem_b * the power law of the
	-- param_models row with idx -5. NULL: none.
	mem_beta REAL,
	mem_curve TEXT,
	mem_a REAL,
	mem_b REAL,
	-- The progress counter of a running job (regress/model.h
	-- progress_feature); its total's law is the param_models row with
	-- idx -6. NULL: none.
	progress_feature TEXT,
	UNIQUE (app_id, version)
);
CREATE UNIQUE INDEX models_one_active ON models(app_id) WHERE active = 1;

-- The kept terms of a model, in order (idx).
CREATE TABLE model_terms (
	model_id INTEGER NOT NULL REFERENCES models(id),
	idx INTEGER NOT NULL,
	feature TEXT NOT NULL,
	coef REAL NOT NULL,
	center REAL NOT NULL,
	scale REAL NOT NULL,
	pcoef REAL, -- coefficient in the parameters path (models.pintercept)
	xcoef REAL, -- in the extrapolation fit (models.xintercept)
	xpcoef REAL, -- ... of the parameters path (models.xpintercept)
	PRIMARY KEY (model_id, idx)
) WITHOUT ROWID;

-- Folded duplicates of a term: features that count the same thing.
CREATE TABLE term_aliases (
	model_id INTEGER NOT NULL REFERENCES models(id),
	idx INTEGER NOT NULL,
	alias TEXT NOT NULL,
	PRIMARY KEY (model_id, idx, alias)
) WITHOUT ROWID;

-- Per term: log(x) = log_c + sum expo * log(param). idx < 0: the traffic
-- law -1 - idx of models.comm_profile (regress/model.h comm_laws).
CREATE TABLE param_models (
	model_id INTEGER NOT NULL REFERENCES models(id),
	idx INTEGER NOT NULL,
	log_c REAL NOT NULL,
	cv_mape REAL,
	predictable INTEGER NOT NULL,
	zero_serial INTEGER NOT NULL DEFAULT 0, -- x = 0 when nprocs = 1
	PRIMARY KEY (model_id, idx)
) WITHOUT ROWID;

CREATE TABLE param_model_vars (
	model_id INTEGER NOT NULL REFERENCES models(id),
	idx INTEGER NOT NULL,
	pos INTEGER NOT NULL,
	var TEXT NOT NULL,
	expo REAL NOT NULL,
	PRIMARY KEY (model_id, idx, pos)
) WITHOUT ROWID;

-- Per term, past the range of a group of parameters (pos: the group's
-- first range in param_ranges): log(x) gains a + (b - 1) * z, z the
-- group's part of the term's power law (regress/model.h edge laws).
CREATE TABLE param_model_edges (
	model_id INTEGER NOT NULL REFERENCES models(id),
	idx INTEGER NOT NULL,
	pos INTEGER NOT NULL,
	a REAL NOT NULL,
	b REAL NOT NULL,
	PRIMARY KEY (model_id, idx, pos)
) WITHOUT ROWID;

-- The run-time law's exponents, one row per parameter.
CREATE TABLE law_vars (
	model_id INTEGER NOT NULL REFERENCES models(id),
	pos INTEGER NOT NULL,
	var TEXT NOT NULL,
	expo REAL NOT NULL,
	PRIMARY KEY (model_id, pos)
) WITHOUT ROWID;

-- The training range of each parameter all training runs showed, and
-- its group: the pos of the first range of the parameters equal or
-- collinear with it over the training runs, one size in the distance past
-- the ranges (NULL: a group of its own). edge: the edge factor of models
-- trained before it was dropped (regress/README.md), no longer written
-- nor read.
CREATE TABLE param_ranges (
	model_id INTEGER NOT NULL REFERENCES models(id),
	pos INTEGER NOT NULL,
	name TEXT NOT NULL,
	lo REAL NOT NULL,
	hi REAL NOT NULL,
	edge REAL NOT NULL DEFAULT 1,
	edge_group INTEGER,
	PRIMARY KEY (model_id, pos)
) WITHOUT ROWID;

-- Ingested run rows; their features in long format (run x feature -> value).
CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	run_id TEXT NOT NULL UNIQUE,
	app_id INTEGER NOT NULL REFERENCES apps(id),
	build_id TEXT NOT NULL,
	started_at TEXT,
	job_id TEXT,
	nprocs REAL NOT NULL,
	nnodes REAL NOT NULL,
	runtime_s REAL NOT NULL,
	args TEXT,
	ingested_at REAL NOT NULL
);

CREATE TABLE features (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE
);

CREATE TABLE run_values (
	run INTEGER NOT NULL REFERENCES runs(id),
	feature INTEGER NOT NULL REFERENCES features(id),
	value REAL NOT NULL,
	PRIMARY KEY (run, feature)
) WITHOUT ROWID;

-- Audit of answered predictions.
CREATE TABLE predictions (
	id INTEGER PRIMARY KEY,
	at REAL NOT NULL,
	job_id TEXT,
	app TEXT NOT NULL,
	model_id INTEGER,
	basis TEXT NOT NULL,
	user TEXT,
	partition TEXT,
	runtime_s REAL NOT NULL,
	lower_s REAL NOT NULL,
	upper_s REAL NOT NULL
);
CREATE INDEX predictions_app_at ON predictions(app, at);

-- Finished jobs as the batch system reports them (mpipredict-jobcomp):
-- one row per job id, updated when the job is reported again. runtime_s
-- is end - start (0 when it never started); time_limit_s NULL when
-- unlimited; user is the user name, else "uid:N". app is the app the
-- daemon predicted for this job id (predictions.app), else the job name.
-- Joined with predictions by job_id. Pruned to the last jobs of each user
-- (by end_at) by the ingest: this is what the history predictor reads.
CREATE TABLE jobs (
	id INTEGER PRIMARY KEY,
	job_id TEXT NOT NULL UNIQUE,
	user TEXT NOT NULL,
	uid INTEGER,
	account TEXT,
	partition TEXT,
	app TEXT,
	nodes INTEGER,
	ntasks INTEGER,
	time_limit_s REAL,
	submit_at REAL,
	start_at REAL,
	end_at REAL,
	runtime_s REAL NOT NULL,
	state TEXT NOT NULL,
	updated_at REAL NOT NULL
);
CREATE INDEX jobs_user_end ON jobs(user, end_at);
CREATE INDEX predictions_job ON predictions(job_id);
CREATE INDEX predictions_user_at ON predictions(user, at);

-- Machine profiles measured by mpipredict-calibrate (calibrate/README.md):
-- the contention-aware LogGPS parameters per level, as the JSON document
-- regress/profile_json.h describes. The newest of a machine is its profile.
CREATE TABLE machine_profiles (
	id INTEGER PRIMARY KEY,
	machine TEXT NOT NULL,
	created_at TEXT NOT NULL,
	profile TEXT NOT NULL
);
CREATE INDEX machine_profiles_machine ON machine_profiles(machine, id);

-- What happened to an app's model versions, oldest first: a training's
-- outcome (promoted, rejected: worse than the active model, drift: held
-- as a candidate because its answers moved beyond both intervals, failed:
-- nothing stored, model_id NULL) and an admin's promote and rollback
-- (mpipredict-model). The MAPEs are percent on holdout_runs held-back runs
-- (NULL: not compared).
CREATE TABLE model_events (
	id INTEGER PRIMARY KEY,
	app_id INTEGER NOT NULL REFERENCES apps(id),
	model_id INTEGER REFERENCES models(id),
	at REAL NOT NULL,
	kind TEXT NOT NULL CHECK (kind IN ('promoted', 'rejected', 'drift',
		'promoted_by_admin', 'rollback', 'failed')),
	reason TEXT NOT NULL,
	champion_mape REAL,
	challenger_mape REAL,
	holdout_runs INTEGER
);
CREATE INDEX model_events_app ON model_events(app_id, id);

-- The latest progress of each running job (POST /v1/progress, issue 37):
-- rank 0's counters as a JSON object (features), the seconds since
-- MPI_Init when they were read, the job's limit when known (NULL: not).
CREATE TABLE progress (
	job_id TEXT PRIMARY KEY,
	run_id TEXT NOT NULL,
	app TEXT NOT NULL,
	build_id TEXT NOT NULL,
	args TEXT NOT NULL,
	nprocs INTEGER NOT NULL,
	nnodes INTEGER NOT NULL,
	elapsed_s REAL NOT NULL,
	time_limit_s REAL,
	received_at REAL NOT NULL,
	features TEXT NOT NULL
);
CREATE INDEX progress_received ON progress(received_at);

-- The limit-extension policy's actions (mpipredictd --extend on, issue
-- 37), one row each: outcome extended, over_cap, reservation or failed;
-- the job's limit before and after (NULL: not known or not changed), the
-- need past the limit and the cap, in seconds; detail: what was done or
-- why not, as the user and the log are told.
CREATE TABLE extensions (
	id INTEGER PRIMARY KEY,
	job_id TEXT NOT NULL,
	at REAL NOT NULL,
	outcome TEXT NOT NULL,
	old_limit_s REAL,
	new_limit_s REAL,
	need_s REAL,
	cap_s REAL,
	detail TEXT NOT NULL
);
CREATE INDEX extensions_job ON extensions(job_id);

PRAGMA user_version = 18;
