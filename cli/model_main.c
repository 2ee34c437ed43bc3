/*
 * model_main.c: mpipredict-model, an admin's view of each app's model
 * versions and the steps that made them active, held or refused
 * (model_events), and the two steps an admin takes by hand: promote a
 * version, roll back to the one active before.
 *
 * It only reads and writes the store through schema/store.h; a running
 * daemon sees an active-model change by itself (hot reload). Exit 0 on
 * success, 1 on a usage error, 2 on an unknown app or version or a store
 * error.
 */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema/store.h"

static const char usage[] =
    "usage: mpipredict-model [--db FILE] [--json] list [--app NAME]\n"
    "       mpipredict-model [--db FILE] [--json] show --app NAME "
    "[--version N]\n"
    "       mpipredict-model [--db FILE] [--json] promote --app NAME "
    "--version N\n"
    "       mpipredict-model [--db FILE] [--json] rollback --app NAME\n"
    "       mpipredict-model [--db FILE] [--json] events [--app NAME]\n"
    "\n"
    "See and undo what happened to each app's model versions.\n"
    "\n"
    "  list       each version: state (active, candidate: held as a "
    "drift,\n"
    "             rejected: worse than the active one, retired: active "
    "once),\n"
    "             trained at, runs, CV MAPE, its last event\n"
    "  show       one version (default: the active one) and its events\n"
    "  promote    make a version active (event promoted_by_admin)\n"
    "  rollback   make the version active before the current one active "
    "again\n"
    "             (event rollback; a second rollback goes one further "
    "back)\n"
    "  events     every promotion, refusal, drift, failure and admin "
    "step,\n"
    "             oldest first\n"
    "\n"
    "  --db FILE      the store (default $MPIPREDICT_DB, else "
    "./models.db;\n"
    "                 never created)\n"
    "  --app NAME     the app\n"
    "  --version N    a model version; --version alone prints the "
    "program's\n"
    "  --json         print JSON\n"
    "  -h, --help     this text\n"
    "\n"
    "A running mpipredictd serves a newly active version without a "
    "restart.\n"
    "Exit status: 0 done, 1 usage error, 2 the store is missing or "
    "refused\n"
    "the step.\n";

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
							     ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mpipredict-model: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, " (see --help)\n");
	va_end(ap);
	return 1;
}

static int is_count(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	return *s && !*end && v > 0 && v < 1000000000;
}

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *jstr(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* "2026-11-28T15:50:19Z", or "-" when unknown. */
static const char *when(double t, char *buf, size_t len)
{
	time_t sec = (time_t)t;
	struct tm tm;

	if (!isfinite(t) || !gmtime_r(&sec, &tm)) {
		snprintf(buf, len, "-");
		return buf;
	}
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

struct out {
	json_t *arr; /* --json: rows gathered, else NULL */
	int shown;
	int pick, found_active; /* show: the version to show */
};

static json_t *version_json(const mpp_model_version *v)
{
	char t[32];

	return json_pack(
	    "{s:s, s:i, s:I, s:s, s:s, s:I, s:o, s:s, s:s, "
	    "s:o, s:o, s:o}",
	    "app", v->app, "version", v->version, "model_id",
	    (json_int_t)v->model_id, "state", v->state, "trained_at",
	    when(v->created_at, t, sizeof(t)), "runs", (json_int_t)v->ntrain,
	    "cv_mape_pct", jnum(v->cv_mape), "build_id", v->build_id, "method",
	    v->method, "last_event", jstr(v->last_kind), "last_reason",
	    jstr(v->last_reason), "last_at",
	    v->last_kind ? json_string(when(v->last_at, t, sizeof(t)))
			 : json_null());
}

static int list_row(void *ctx, const mpp_model_version *v)
{
	struct out *o = ctx;
	char t[32], cv[32];

	if (o->arr)
		return json_array_append_new(o->arr, version_json(v)) ? 1 : 0;
	if (!o->shown++)
		printf("%-16s %7s  %-9s  %-20s  %5s  %7s  %s\n", "app",
		       "version", "state", "trained", "runs", "cv_mape",
		       "last event");
	snprintf(cv, sizeof(cv), isfinite(v->cv_mape) ? "%.2f %%" : "-",
		 v->cv_mape);
	printf("%-16s %7d  %-9s  %-20s  %5lld  %7s  %s%s%s\n", v->app,
	       v->version, v->state, when(v->created_at, t, sizeof(t)),
	       (long long)v->ntrain, cv, v->last_kind ? v->last_kind : "-",
	       v->last_kind ? ": " : "", v->last_kind ? v->last_reason : "");
	return 0;
}

static json_t *event_json(const mpp_model_event *e)
{
	char t[32];

	return json_pack(
	    "{s:I, s:s, s:o, s:s, s:s, s:s, s:o, s:o, s:o}", "id",
	    (json_int_t)e->id, "app", e->app, "version",
	    e->version ? json_integer(e->version) : json_null(), "at",
	    when(e->at, t, sizeof(t)), "kind", e->kind, "reason", e->reason,
	    "champion_mape_pct", jnum(e->champion_mape), "challenger_mape_pct",
	    jnum(e->challenger_mape), "holdout_runs",
	    e->holdout_runs >= 0 ? json_integer(e->holdout_runs) : json_null());
}

static int event_row(void *ctx, const mpp_model_event *e)
{
	struct out *o = ctx;
	char t[32], v[32];

	if (o->arr)
		return json_array_append_new(o->arr, event_json(e)) ? 1 : 0;
	snprintf(v, sizeof(v), e->version ? "version %d" : "no version",
		 e->version);
	printf("%s  %s  %s  %s: %s\n", when(e->at, t, sizeof(t)), e->app, v,
	       e->kind, e->reason);
	o->shown++;
	return 0;
}

/* show without --version: the active version, else the newest (versions
 * come in ascending order). */
static int pick_version(void *ctx, const mpp_model_version *v)
{
	struct out *o = ctx;
	int active = strcmp(v->state, "active") == 0;

	if (active || !o->found_active)
		o->pick = v->version;
	o->found_active |= active;
	return 0;
}

static int show_version(void *ctx, const mpp_model_version *v)
{
	struct out *o = ctx;
	char t[32];

	if (o->arr)
		return json_array_append_new(o->arr, version_json(v)) ? 1 : 0;
	printf("app %s, version %d (model id %lld): %s\n", v->app, v->version,
	       (long long)v->model_id, v->state);
	printf("trained at %s on %lld runs of build %s, method %s",
	       when(v->created_at, t, sizeof(t)), (long long)v->ntrain,
	       v->build_id, v->method);
	if (isfinite(v->cv_mape))
		printf(", CV MAPE %.2f %%", v->cv_mape);
	printf("\nevents:\n");
	return 0;
}

static int store_error(const char *db, const char *err)
{
	fprintf(stderr, "mpipredict-model: %s: %s\n", db, err);
	return 2;
}

static void print_json(json_t *doc)
{
	json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(10));
	printf("\n");
	json_decref(doc);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"app", required_argument, NULL, 'a'},
	    {"version", required_argument, NULL, 'v'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *db = NULL, *app = NULL, *cmd;
	int version = 0, json = 0, opt, rc;
	char err[1024];

	/* --version names a model version when a number follows it, else
	 * it asks for the program's (the convention of every command). */
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			break;
		if (strcmp(argv[i], "--version") == 0 &&
		    (i + 1 >= argc || !is_count(argv[i + 1]))) {
			printf("mpipredict-model " MPP_VERSION "\n");
			return 0;
		}
	}
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'd':
			db = optarg;
			break;
		case 'a':
			app = optarg;
			break;
		case 'v':
			if (!is_count(optarg))
				return usage_error("--version: '%s' is not a "
						   "model version (1, 2, ...)",
						   optarg);
			version = atoi(optarg);
			break;
		case 'j':
			json = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case ':':
			return usage_error("option '%s' needs a value",
					   argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return usage_error("%s", "no command given (list, show, "
					 "promote, rollback, events)");
	if (optind + 1 < argc)
		return usage_error("unexpected argument '%s'",
				   argv[optind + 1]);
	cmd = argv[optind];
	if (strcmp(cmd, "list") && strcmp(cmd, "show") &&
	    strcmp(cmd, "promote") && strcmp(cmd, "rollback") &&
	    strcmp(cmd, "events"))
		return usage_error("unknown command '%s' (list, show, promote, "
				   "rollback, events)",
				   cmd);
	if (!app && strcmp(cmd, "list") && strcmp(cmd, "events"))
		return usage_error("%s needs --app NAME", cmd);
	if (version && strcmp(cmd, "show") && strcmp(cmd, "promote"))
		return usage_error("%s takes no --version", cmd);
	if (!version && strcmp(cmd, "promote") == 0)
		return usage_error("%s", "promote needs --version N");

	mpp_store *s;
	int ro = !strcmp(cmd, "list") || !strcmp(cmd, "show") ||
		 !strcmp(cmd, "events");
	db = mpp_store_default_path(db);
	if (mpp_store_open_existing(db, ro ? MPP_STORE_READONLY : 0, &s, err,
				    sizeof(err))) {
		/* The store's message names the file. */
		fprintf(stderr, "mpipredict-model: %s\n", err);
		return 2;
	}

	struct out o = {.arr = json ? json_array() : NULL};
	rc = 0;
	if (strcmp(cmd, "list") == 0) {
		rc = mpp_store_each_version(s, app, 0, list_row, &o, err,
					    sizeof(err));
		if (rc == MPP_OK && o.arr)
			print_json(json_pack("{s:O}", "versions", o.arr));
		else if (rc == MPP_OK && !o.shown)
			printf("no model stored in %s\n", db);
	} else if (strcmp(cmd, "events") == 0) {
		rc = mpp_store_each_event(s, app, 0, 0, event_row, &o, err,
					  sizeof(err));
		if (rc == MPP_OK && o.arr)
			print_json(json_pack("{s:O}", "events", o.arr));
		else if (rc == MPP_OK && !o.shown)
			printf("no model events in %s\n", db);
	} else if (strcmp(cmd, "show") == 0) {
		if (!version) {
			rc = mpp_store_each_version(s, app, 0, pick_version, &o,
						    err, sizeof(err));
			version = o.pick;
		}
		struct out ev = {.arr = json ? json_array() : NULL};
		if (rc == MPP_OK)
			rc = mpp_store_each_version(s, app, version,
						    show_version, &o, err,
						    sizeof(err));
		if (rc == MPP_OK)
			rc = mpp_store_each_event(s, app, version, 0, event_row,
						  &ev, err, sizeof(err));
		if (rc == MPP_OK && o.arr)
			print_json(json_pack("{s:O, s:O}", "version",
					     json_array_get(o.arr, 0), "events",
					     ev.arr));
		else if (rc == MPP_OK && !ev.shown)
			printf("(none)\n");
		json_decref(ev.arr);
	} else if (strcmp(cmd, "promote") == 0) {
		int previous;
		rc = mpp_store_promote(s, app, version, &previous, err,
				       sizeof(err));
		if (rc == MPP_OK && o.arr)
			print_json(json_pack(
			    "{s:s, s:i, s:o, s:b}", "app", app,
			    "active_version", version, "previous_version",
			    previous ? json_integer(previous) : json_null(),
			    "changed", previous != version));
		else if (rc == MPP_OK && previous == version)
			printf("%s: version %d is already active\n", app,
			       version);
		else if (rc == MPP_OK && previous)
			printf("%s: version %d active (was version %d)\n", app,
			       version, previous);
		else if (rc == MPP_OK)
			printf("%s: version %d active (none was)\n", app,
			       version);
	} else {
		int from, to;
		rc = mpp_store_rollback(s, app, &from, &to, err, sizeof(err));
		if (rc == MPP_OK && o.arr)
			print_json(json_pack("{s:s, s:i, s:i}", "app", app,
					     "active_version", to,
					     "previous_version", from));
		else if (rc == MPP_OK)
			printf("%s: version %d active again (rolled back from "
			       "version %d)\n",
			       app, to, from);
	}
	json_decref(o.arr);
	mpp_store_close(s);
	if (rc)
		return store_error(db, err);
	if (fflush(stdout)) {
		fprintf(stderr, "mpipredict-model: cannot write the output\n");
		return 2;
	}
	return 0;
}
