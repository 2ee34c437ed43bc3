/*
 * predict_main.c: mpipredict-predict, the active model of an app applied to
 * measured run rows (--features), to a job's parameters (--args, --ntasks,
 * --nodes) or to a batch script (--script, read by the daemon's own
 * reader, server/script.h). Prints a table for a person (run_id,
 * predicted_s, lower_s, upper_s and the Slurm limit the answer suggests),
 * JSON with --json, or the bare CSV lines scripts read with --csv.
 * Exit 0 on success, 1 on a usage error, 2 on bad input or a store error.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/answer.h"
#include "regress/comm_feature.h"
#include "regress/model.h"
#include "regress/params.h"
#include "regress/runs.h"
#include "schema/store.h"
#include "server/script.h"

static const char usage[] =
    "usage: mpipredict-predict [--db FILE] --app NAME --features FILE.csv\n"
    "       mpipredict-predict [--db FILE] --app NAME --args \"ARGS\" "
    "--ntasks N [--nodes M]\n"
    "       mpipredict-predict [--db FILE] [--app NAME] --script "
    "JOB.sbatch\n"
    "       mpipredict-predict [--db FILE] --app NAME --used-features\n"
    "\n"
    "Predict run times with the app's active model: from measured features\n"
    "(one answer per run row; its runtime_s is ignored), from a job's\n"
    "parameters, or from a batch script as mpipredictd reads the one Slurm\n"
    "sends: the launcher line (srun, mpirun, mpiexec) gives the program\n"
    "and its arguments, #SBATCH -n/-N or the launcher's -n the ranks and\n"
    "nodes, `#MPIPREDICT app=NAME` the app (else the program's name), and\n"
    "`#MPIPREDICT param N=...` lines or MPIPREDICT_PARAMS= the declared\n"
    "parameters. --ntasks, --nodes and --app given with --script win.\n"
    "\n"
    "Options:\n"
    "  --db FILE        the store (default $MPIPREDICT_DB, else ./models.db;\n"
    "                   never created)\n"
    "  --json           one JSON object: the app, the model version and\n"
    "                   each answer (runtime_s, lower_s, upper_s, limit,\n"
    "                   limit_s, extrapolated) or its error\n"
    "  --csv            the data format: run_id,predicted_s,lower_s,upper_s\n"
    "                   lines, no header (run_id empty from parameters)\n"
    "  --used-features  the features the active model reads, one a line\n"
    "                   and one per term (not its aliases): MPIPREDICT_LEAN=\n"
    "                   FILE at build time plants only those counters\n"
    "                   (a lean production build)\n"
    "  -h, --help       this text;  --version  the program's version\n"
    "\n"
    "Output: a header, then one line per answer: run_id (- from parameters\n"
    "or a script), predicted_s, lower_s, upper_s (the interval), and limit:\n"
    "the time to give sbatch --time, the upper bound rounded up to the next\n"
    "whole minute, as D-HH:MM:SS. A row that cannot be answered is a line\n"
    "`RUN  refused: REASON`; the other rows are still answered (exit 2).\n"
    "An answer outside the training range of a parameter is named on\n"
    "stderr with the parameters, and has the interval of extrapolation,\n"
    "never narrower than the one inside the range (see docs/design.md).\n"
    "\n"
    "Exit status: 0 answered; 1 usage; 2 bad input, no such store or app,\n"
    "or a row refused.\n";

static const char *prog = "mpipredict-predict";

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
							     ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (see --help)\n");
	va_end(ap);
	return 1;
}

static void warn_stderr(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "mpipredict-predict: %s (skipped)\n", msg);
}

enum { OUT_HUMAN, OUT_CSV, OUT_JSON };

/* One answer, or why there is none. */
struct answer {
	const char *run_id; /* "" from parameters or a script */
	int ok;
	mpp_prediction p;
	char err[512];
};

/* A CSV field, quoted when it must be (RFC 4180). */
static void put_field(const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, stdout);
		return;
	}
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

/* The parameters of an answer outside their training range, on stderr
 * (stdout keeps its columns): "mpipredict-predict: [PATH: run RUN: ]
 * extrapolated: A, B (...)"; nothing when it is in range. */
static void say_extrapolated(const char *path, const char *run,
			     const mpp_prediction *p)
{
	if (!p->nextrapolated)
		return;
	fputs("mpipredict-predict: ", stderr);
	if (run)
		fprintf(stderr, "%s: run %s: ", path, run);
	fputs("extrapolated: ", stderr);
	for (size_t i = 0; i < p->nextrapolated; i++)
		fprintf(stderr, "%s%s", i ? ", " : "", p->extrapolated[i]);
	fputs(" (outside the training range: the wider interval)\n", stderr);
}

static void print_human(const struct answer *a, size_t n)
{
	int w = 6; /* strlen("run_id") */
	for (size_t i = 0; i < n; i++)
		if ((int)strlen(a[i].run_id) > w)
			w = (int)strlen(a[i].run_id);
	printf("%-*s  %11s  %11s  %11s  %s\n", w, "run_id", "predicted_s",
	       "lower_s", "upper_s", "limit");
	for (size_t i = 0; i < n; i++) {
		const char *id = a[i].run_id[0] ? a[i].run_id : "-";
		char limit[32];
		if (!a[i].ok) {
			printf("%-*s  refused: %s\n", w, id, a[i].err);
			continue;
		}
		mpp_slurm_limit(a[i].p.upper_s, limit, sizeof(limit));
		printf("%-*s  %11.4g  %11.4g  %11.4g  %s\n", w, id,
		       a[i].p.runtime_s, a[i].p.lower_s, a[i].p.upper_s,
		       limit[0] ? limit : "-");
	}
}

static void print_csv(const struct answer *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!a[i].ok)
			continue;
		put_field(a[i].run_id);
		printf(",%.6g,%.6g,%.6g\n", a[i].p.runtime_s, a[i].p.lower_s,
		       a[i].p.upper_s);
	}
}

/* The JSON object; job is the script's reading (NULL: none). */
static int print_json(const mpp_model *m, const struct answer *a, size_t n,
		      const char *script, const mpp_script_job *job,
		      const char *args)
{
	json_t *o = json_object(), *arr = json_array();
	json_object_set_new(o, "app", json_string(m->app));
	json_object_set_new(o, "model_version", json_integer(m->version));
	if (job) {
		json_t *j = json_object(), *argv = json_array();
		json_object_set_new(j, "script", json_string(script));
		json_object_set_new(
		    j, "exe", job->exe ? json_string(job->exe) : json_null());
		for (size_t i = 0; i < job->argc; i++)
			json_array_append_new(argv, json_string(job->argv[i]));
		json_object_set_new(j, "args", argv);
		json_object_set_new(j, "ntasks",
				    job->ntasks > 0 ? json_real(job->ntasks)
						    : json_null());
		json_object_set_new(j, "nodes",
				    job->nnodes > 0 ? json_real(job->nnodes)
						    : json_null());
		json_object_set_new(j, "declared",
				    job->declared ? json_string(job->declared)
						  : json_null());
		json_object_set_new(o, "job", j);
	} else if (args) {
		json_object_set_new(o, "args", json_string(args));
	}
	for (size_t i = 0; i < n; i++) {
		json_t *e = json_object();
		json_object_set_new(e, "run_id", json_string(a[i].run_id));
		if (!a[i].ok) {
			json_object_set_new(e, "error", json_string(a[i].err));
			json_array_append_new(arr, e);
			continue;
		}
		char limit[32];
		long long ls =
		    mpp_slurm_limit(a[i].p.upper_s, limit, sizeof(limit));
		json_object_set_new(e, "runtime_s",
				    json_real(a[i].p.runtime_s));
		json_object_set_new(e, "lower_s", json_real(a[i].p.lower_s));
		json_object_set_new(e, "upper_s", json_real(a[i].p.upper_s));
		json_object_set_new(e, "limit",
				    ls > 0 ? json_string(limit) : json_null());
		json_object_set_new(e, "limit_s",
				    ls > 0 ? json_integer(ls) : json_null());
		json_object_set_new(e, "basis",
				    json_string(mpp_path_name(a[i].p.path)));
		json_t *x = json_array();
		for (size_t k = 0; k < a[i].p.nextrapolated; k++)
			json_array_append_new(
			    x, json_string(a[i].p.extrapolated[k]));
		json_object_set_new(e, "extrapolated", x);
		json_array_append_new(arr, e);
	}
	json_object_set_new(o, "answers", arr);
	int rc = json_dumpf(o, stdout, JSON_INDENT(2)) ? 2 : 0;
	putchar('\n');
	json_decref(o);
	return rc;
}

static int positive(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return *s && !*end && isfinite(*out) && *out > 0;
}

/* Answers each row of path on its own: a refused row (a missing feature,
 * an answer the model refuses) is said on its line, and the others are
 * answered all the same. *a gets the answers (rs keeps the run ids). */
static int from_features(const mpp_model *m, const char *path,
			 const char *profile, mpp_runs *rs, struct answer **a,
			 size_t *n)
{
	mpp_kv *kv;
	char err[512];
	size_t nset;

	rs->include_failed = 1; /* a row to predict, whatever its status */
	if (mpp_runs_read_file(rs, path, warn_stderr, NULL, err, sizeof(err))) {
		fprintf(stderr, "mpipredict-predict: %s\n", err);
		return 2;
	}
	/* The derived model:comm_s, as training computed it. */
	if (profile &&
	    mpp_runs_add_comm_feature_json(rs, "machine profile", profile,
					   &nset, err, sizeof(err))) {
		fprintf(stderr, "mpipredict-predict: %s\n", err);
		return 2;
	}
	kv = malloc((rs->nfeatures + 1) * sizeof(*kv));
	*a = calloc(rs->nruns + 1, sizeof(**a));
	if (!kv || !*a) {
		free(kv);
		fprintf(stderr, "mpipredict-predict: out of memory\n");
		return 2;
	}
	*n = rs->nruns;
	int rc = 0;
	for (size_t r = 0; r < rs->nruns; r++) {
		const mpp_run *run = &rs->runs[r];
		struct answer *x = &(*a)[r];
		size_t k = 0;
		x->run_id = run->run_id;
		for (size_t f = 0; f < rs->nfeatures; f++) {
			if (isnan(run->values[f]))
				continue;
			kv[k].name = rs->features[f];
			kv[k++].value = run->values[f];
		}
		/* The run's parameters judge the range, as in training. */
		mpp_params p = {0};
		int known = mpp_params_from_string(run->args, run->nprocs,
						   run->nnodes, &p) == MPP_OK;
		x->ok = !mpp_model_predict_features(
		    m, kv, k, known ? &p : NULL, &x->p, x->err, sizeof(x->err));
		mpp_params_free(&p);
		if (!x->ok) {
			fprintf(stderr, "mpipredict-predict: %s: run %s: %s\n",
				path, run->run_id, x->err);
			rc = 2;
			continue;
		}
		if (!mpp_model_has_build(m, run->build_id))
			fprintf(stderr,
				"mpipredict-predict: %s: run %s: build %s, the "
				"model was trained on build %s\n",
				path, run->run_id, run->build_id, m->build_id);
		say_extrapolated(path, run->run_id, &x->p);
	}
	free(kv);
	return rc;
}

/* The file at path, NUL-terminated, into *text (*len bytes). */
static int read_all(const char *path, char **text, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);

	if (!f || !b) {
		if (f)
			fclose(f);
		free(b);
		return -1;
	}
	for (size_t got; (got = fread(b + n, 1, cap - n - 1, f)) > 0;) {
		n += got;
		if (n + 1 == cap) {
			char *nb = realloc(b, cap *= 2);
			if (!nb) {
				free(b);
				fclose(f);
				return -1;
			}
			b = nb;
		}
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(b);
		return -1;
	}
	b[n] = '\0';
	*text = b;
	*len = n;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *b = strrchr(path, '/');
	return b ? b + 1 : path;
}

/* What the script says, for a person, on stderr before the answer: the
 * questions "did it read my job right?" come first. */
static void say_job(const char *script, const char *app,
		    const mpp_script_job *job, double ntasks, double nodes)
{
	fprintf(stderr, "mpipredict-predict: %s: app %s, ", script, app);
	if (ntasks > 0)
		fprintf(stderr, "%g ranks", ntasks);
	else
		fputs("ranks not given", stderr);
	if (nodes > 0)
		fprintf(stderr, " on %g nodes", nodes);
	fputs(", arguments \"", stderr);
	for (size_t i = 0; i < job->argc; i++)
		fprintf(stderr, "%s%s", i ? " " : "", job->argv[i]);
	fputc('"', stderr);
	if (job->declared)
		fprintf(stderr, ", declared %s", job->declared);
	fputc('\n', stderr);
}

/* The known apps nearest `app` first, as "a, b, c" (at most 8). */
static void known_apps(mpp_store *s, const char *app, char *buf, size_t len)
{
	mpp_model **ms = NULL;
	size_t n = 0, used = 0;
	char err[256];

	buf[0] = '\0';
	if (mpp_store_load_all_active(s, &ms, &n, err, sizeof(err)))
		return;
	const char **names = malloc((n ? n : 1) * sizeof(*names));
	for (size_t i = 0; names && i < n; i++)
		names[i] = ms[i]->app;
	if (names)
		mpp_names_nearest(app, names, n);
	for (size_t i = 0; names && i < n && i < 8 && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s",
					 i ? ", " : "", names[i]);
	free(names);
	for (size_t i = 0; i < n; i++)
		mpp_model_free(ms[i]);
	free(ms);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"app", required_argument, NULL, 'a'},
	    {"features", required_argument, NULL, 'f'},
	    {"args", required_argument, NULL, 'g'},
	    {"ntasks", required_argument, NULL, 'n'},
	    {"nodes", required_argument, NULL, 'N'},
	    {"script", required_argument, NULL, 's'},
	    {"used-features", no_argument, NULL, 'u'},
	    {"json", no_argument, NULL, 'j'},
	    {"csv", no_argument, NULL, 'c'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const char *db = NULL, *app = NULL, *features = NULL, *args = NULL,
		   *script = NULL;
	double ntasks = -1, nodes = -1;
	int opt, rc, used = 0, out = OUT_HUMAN;
	char err[512], *profile = NULL;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'a':
			app = optarg;
			break;
		case 'f':
			features = optarg;
			break;
		case 'g':
			args = optarg;
			break;
		case 's':
			script = optarg;
			break;
		case 'n':
			if (!positive(optarg, &ntasks))
				return usage_error("--ntasks: '%s' is not a "
						   "positive number",
						   optarg);
			break;
		case 'N':
			if (!positive(optarg, &nodes))
				return usage_error("--nodes: '%s' is not a "
						   "positive number",
						   optarg);
			break;
		case 'u':
			used = 1;
			break;
		case 'j':
			out = OUT_JSON;
			break;
		case 'c':
			out = OUT_CSV;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("mpipredict-predict " MPP_VERSION "\n");
			return 0;
		case ':':
			return usage_error("option '%s' needs a value",
					   argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!app && !script)
		return usage_error("%s",
				   "--app is required (or give --script)");
	if (used && (features || args || script || ntasks > 0))
		return usage_error("%s", "--used-features takes no --features, "
					 "--args, --script or --ntasks");
	if (!used &&
	    (!!features + !!(args || (ntasks > 0 && !script)) + !!script) != 1)
		return usage_error("%s", "give one of --features, --args "
					 "with --ntasks, or --script");
	if (!used && !features && !script && ntasks < 0)
		return usage_error("%s", "--args needs --ntasks");

	/* The script first: a job the reader cannot read needs no store. */
	mpp_script_job job;
	memset(&job, 0, sizeof(job));
	job.ntasks = job.nnodes = -1;
	if (script) {
		char *text;
		size_t len;
		if (read_all(script, &text, &len)) {
			fprintf(stderr,
				"mpipredict-predict: %s: cannot read: %m\n",
				script);
			return 2;
		}
		rc = mpp_script_parse(text, len, &job, err, sizeof(err));
		free(text);
		if (rc) {
			fprintf(stderr, "mpipredict-predict: %s: %s\n", script,
				err);
			mpp_script_job_free(&job);
			return 2;
		}
		if (!app)
			app = job.app   ? job.app
			      : job.exe ? base_name(job.exe)
					: NULL;
		if (!app) {
			fprintf(stderr,
				"mpipredict-predict: %s: no launcher line "
				"(srun, mpirun, mpiexec) names the program; "
				"add one, or #MPIPREDICT app=NAME, or give "
				"--app\n",
				script);
			mpp_script_job_free(&job);
			return 2;
		}
	}

	mpp_store *s;
	mpp_model *m;
	db = mpp_store_default_path(db);
	if (mpp_store_open_existing(db, MPP_STORE_READONLY, &s, err,
				    sizeof(err))) {
		fprintf(stderr, "mpipredict-predict: %s\n", err);
		mpp_script_job_free(&job);
		return 2;
	}
	rc = mpp_store_load_active(s, app, &m, err, sizeof(err));
	if (rc == MPP_ENOTFOUND) {
		/* Bounded so that the whole line fits err. */
		char known[256];
		known_apps(s, app, known, sizeof(known));
		snprintf(
		    err, sizeof(err),
		    "no model for app '%.200s'; known: %s (mpipredict-model "
		    "list)",
		    app,
		    known[0] ? known
			     : "none: train one with "
			       "mpipredict-train");
	}
	if (rc == 0 && mpp_store_load_profile(s, NULL, &profile, err,
					      sizeof(err)) != MPP_OK)
		profile = NULL;
	mpp_store_close(s);
	if (rc) {
		fprintf(stderr, "mpipredict-predict: %s: %s\n", db, err);
		mpp_script_job_free(&job);
		return 2;
	}
	mpp_runs rs = {0};
	struct answer one = {.run_id = ""}, *a = &one;
	size_t n = 1;
	if (used) {
		/* One name per term, its feature: a lean build plants
		 * what this lists, and the folded duplicates (aliases)
		 * count the same thing, so planting them is only cost (a
		 * term with 693 aliases once planted 354 counters, not 3:
		 * issue 34). A row holding the feature is enough for the
		 * term. */
		for (size_t i = 0; i < m->nterms; i++)
			printf("%s\n", m->terms[i].feature);
		rc = fflush(stdout) ? 2 : 0;
		n = 0;
	} else if (features) {
		a = NULL;
		n = 0;
		rc = from_features(m, features, profile, &rs, &a, &n);
		if (!a)
			n = 0;
	} else {
		mpp_params p = {0};
		double nt = ntasks > 0 ? ntasks : job.ntasks,
		       nn = nodes > 0 ? nodes : job.nnodes;
		if (script) {
			/* As the daemon reads a script (server/api.c):
			 * the launcher line's arguments, then the
			 * declared parameters over them. */
			say_job(script, app, &job, nt, nn);
			rc = mpp_params_from_argv((const char *const *)job.argv,
						  job.argc, nt, nn, &p);
			if (rc == MPP_OK && job.declared)
				rc = mpp_params_declare(&p, job.declared);
		} else {
			rc = mpp_params_from_string(args ? args : "", nt, nn,
						    &p);
		}
		if (rc == MPP_OK) {
			one.ok = !mpp_model_predict_params(
			    m, &p, &one.p, one.err, sizeof(one.err));
			if (!one.ok) {
				fprintf(stderr,
					"mpipredict-predict: app %s: %s\n", app,
					one.err);
				rc = 2;
			} else {
				say_extrapolated(NULL, NULL, &one.p);
			}
		} else {
			fprintf(stderr, "mpipredict-predict: out of memory\n");
			rc = 2;
			n = 0;
		}
		mpp_params_free(&p);
	}
	/* Only refused answers: the messages said it, no empty table. */
	size_t nok = 0;
	for (size_t i = 0; i < n; i++)
		nok += a[i].ok;
	if (n && out == OUT_JSON) {
		int jr =
		    print_json(m, a, n, script, script ? &job : NULL, args);
		rc = rc ? rc : jr;
	} else if (nok && out == OUT_CSV) {
		print_csv(a, n);
	} else if (nok) {
		print_human(a, n);
	}
	if (a != &one)
		free(a);
	mpp_runs_free(&rs);
	mpp_script_job_free(&job);
	mpp_model_free(m);
	free(profile);
	return rc;
}
