/*
 * predict_main.c: mpipredict-predict, the active model of an app applied to
 * measured run rows (--features) or to a job's parameters (--args,
 * --ntasks, --nodes). Prints `run_id,predicted_s,lower_s,upper_s` lines
 * (CSV; the run_id is empty for a prediction from parameters).
 * Exit 0 on success, 1 on a usage error, 2 on bad input or a store error.
 */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regress/comm_feature.h"
#include "regress/model.h"
#include "regress/params.h"
#include "regress/runs.h"
#include "schema/store.h"

static const char usage[] =
    "usage: mpipredict-predict --db FILE --app NAME --features FILE.csv\n"
    "       mpipredict-predict --db FILE --app NAME --args \"ARGS\" "
    "--ntasks N [--nodes M]\n"
    "       mpipredict-predict --db FILE --app NAME --used-features\n"
    "\n"
    "Predict run times with the app's active model, from measured features\n"
    "(one line per run row; its runtime_s is ignored) or from a job's\n"
    "parameters (one line, empty run_id). Output: "
    "run_id,predicted_s,lower_s,upper_s\n"
    "--used-features prints the features the active model reads, one a\n"
    "line: MPIPREDICT_LEAN=FILE at build time plants only those counters\n"
    "(a lean production build).\n"
    "An answer outside the training range of a parameter (from --args,\n"
    "or a row's own args) is named on stderr with the parameters, and has\n"
    "the wider interval of extrapolation.\n";

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
							     ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mpipredict-predict: ");
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

static void put_line(const char *run_id, const mpp_prediction *p)
{
	put_field(run_id);
	printf(",%.6g,%.6g,%.6g\n", p->runtime_s, p->lower_s, p->upper_s);
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

static int positive(const char *s, double *out)
{
	char *end;

	*out = strtod(s, &end);
	return *s && !*end && isfinite(*out) && *out > 0;
}

static int from_features(const mpp_model *m, const char *path,
			 const char *profile)
{
	mpp_runs rs = {0};
	mpp_kv *kv;
	char err[512];
	size_t nset;
	int rc = 0;

	rs.include_failed = 1; /* a row to predict, whatever its status */
	if (mpp_runs_read_file(&rs, path, warn_stderr, NULL, err,
			       sizeof(err))) {
		fprintf(stderr, "mpipredict-predict: %s\n", err);
		return 2;
	}
	/* The derived model:comm_s, as training computed it. */
	if (profile &&
	    mpp_runs_add_comm_feature_json(&rs, "machine profile", profile,
					   &nset, err, sizeof(err))) {
		fprintf(stderr, "mpipredict-predict: %s\n", err);
		mpp_runs_free(&rs);
		return 2;
	}
	kv = malloc((rs.nfeatures + 1) * sizeof(*kv));
	if (!kv) {
		mpp_runs_free(&rs);
		fprintf(stderr, "mpipredict-predict: out of memory\n");
		return 2;
	}
	/* Check every row first: nothing is printed when one is bad. */
	mpp_prediction *out = malloc((rs.nruns + 1) * sizeof(*out));
	for (size_t r = 0; out && r < rs.nruns && rc == 0; r++) {
		const mpp_run *run = &rs.runs[r];
		size_t n = 0;
		for (size_t f = 0; f < rs.nfeatures; f++) {
			if (isnan(run->values[f]))
				continue;
			kv[n].name = rs.features[f];
			kv[n++].value = run->values[f];
		}
		/* The run's parameters judge the range, as in training. */
		mpp_params p = {0};
		int known = mpp_params_from_string(run->args, run->nprocs,
						   run->nnodes, &p) == MPP_OK;
		int bad = mpp_model_predict_features(
		    m, kv, n, known ? &p : NULL, &out[r], err, sizeof(err));
		mpp_params_free(&p);
		if (bad) {
			fprintf(stderr, "mpipredict-predict: %s: run %s: %s\n",
				path, run->run_id, err);
			rc = 2;
		} else if (!mpp_model_has_build(m, run->build_id)) {
			fprintf(stderr,
				"mpipredict-predict: %s: run %s: build %s, the "
				"model was trained on build %s\n",
				path, run->run_id, run->build_id, m->build_id);
		}
	}
	if (!out) {
		fprintf(stderr, "mpipredict-predict: out of memory\n");
		rc = 2;
	}
	size_t edged = 0;
	for (size_t r = 0; rc == 0 && r < rs.nruns; r++) {
		put_line(rs.runs[r].run_id, &out[r]);
		edged += out[r].edge != 1;
	}
	/* Outside the training range, as the --args path says it: one
	 * line per run. */
	for (size_t r = 0; rc == 0 && r < rs.nruns; r++)
		say_extrapolated(path, rs.runs[r].run_id, &out[r]);
	if (edged)
		fprintf(stderr,
			"mpipredict-predict: edge factor applied to %zu of %zu "
			"runs (above a parameter's training range)\n",
			edged, rs.nruns);
	free(out);
	free(kv);
	mpp_runs_free(&rs);
	return rc;
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
	    {"used-features", no_argument, NULL, 'u'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const char *db = NULL, *app = NULL, *features = NULL, *args = NULL;
	double ntasks = -1, nodes = -1;
	int opt, rc, used = 0;
	char err[512], *profile = NULL;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
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
	if (!db || !app)
		return usage_error("%s", "--db and --app are required");
	if (used && (features || args || ntasks > 0))
		return usage_error("%s", "--used-features takes no --features, "
					 "--args or --ntasks");
	if (!used && !features == !(args || ntasks > 0))
		return usage_error("%s", "give either --features or --args "
					 "with --ntasks");
	if (!used && !features && ntasks < 0)
		return usage_error("%s", "--args needs --ntasks");

	mpp_store *s;
	mpp_model *m;
	if (mpp_store_open(db, MPP_STORE_READONLY, &s, err, sizeof(err))) {
		fprintf(stderr, "mpipredict-predict: %s\n", err);
		return 2;
	}
	rc = mpp_store_load_active(s, app, &m, err, sizeof(err));
	if (rc == 0 && mpp_store_load_profile(s, NULL, &profile, err,
					      sizeof(err)) != MPP_OK)
		profile = NULL;
	mpp_store_close(s);
	if (rc) {
		fprintf(stderr, "mpipredict-predict: %s: %s\n", db, err);
		return 2;
	}
	if (used) {
		/* Every name a term reads: its feature and the folded
		 * duplicates that count the same thing. */
		for (size_t i = 0; i < m->nterms; i++) {
			printf("%s\n", m->terms[i].feature);
			for (size_t j = 0; j < m->terms[i].naliases; j++)
				printf("%s\n", m->terms[i].aliases[j]);
		}
		rc = fflush(stdout) ? 2 : 0;
	} else if (features) {
		rc = from_features(m, features, profile);
	} else {
		mpp_params p;
		mpp_prediction out;
		rc =
		    mpp_params_from_string(args ? args : "", ntasks, nodes, &p);
		if (rc == 0 &&
		    mpp_model_predict_params(m, &p, &out, err, sizeof(err))) {
			fprintf(stderr, "mpipredict-predict: app %s: %s\n", app,
				err);
			rc = 2;
		} else if (rc == 0) {
			put_line("", &out);
			say_extrapolated(NULL, NULL, &out);
			if (out.edge != 1)
				fprintf(stderr,
					"mpipredict-predict: edge factor %.4g "
					"applied (above a parameter's "
					"training range)\n",
					out.edge);
		} else {
			fprintf(stderr, "mpipredict-predict: out of memory\n");
			rc = 2;
		}
		mpp_params_free(&p);
	}
	mpp_model_free(m);
	free(profile);
	return rc;
}
