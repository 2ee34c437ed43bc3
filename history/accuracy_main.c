/*
 * accuracy_main.c: mpipredict-accuracy, how right the daemon's predictions
 * were for the jobs that have finished: the jobs table joined with the
 * predictions audit by job id, grouped by app, user or basis. Prints a
 * tab-separated table (header first), or one JSON object with --json.
 * Exit 0 on success (an empty table included), 1 on a usage error, 2 when
 * the store is missing or cannot be read (docs/cli.md).
 */
#include <getopt.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/status.h"
#include "schema/store.h"

static const char usage[] =
    "usage: mpipredict-accuracy [--db FILE] [--by app|user|basis] "
    "[--json]\n"
    "\n"
    "For each app (default), user or prediction basis: the finished jobs\n"
    "that were predicted at submission, the mean absolute error (s), the\n"
    "mean absolute percentage error, the share predicted below the actual\n"
    "run time and the share whose actual run time fell inside the\n"
    "predicted interval. Columns: key, jobs, mae_s, mape_pct, under,\n"
    "inside (tab-separated, one header line).\n"
    "\n"
    "  --db FILE   the store (default $MPIPREDICT_DB, else ./models.db;\n"
    "              never created)\n"
    "  --by KEY    group by app (default), user or basis\n"
    "  --json      one JSON object: {\"by\": KEY, \"rows\": [{\"key\",\n"
    "              \"jobs\", \"mae_s\", \"mape_pct\", \"under\", "
    "\"inside\"}]}\n"
    "  -h, --help  this text;  --version  the version\n"
    "\n"
    "Exit status: 0 done, 1 usage error, 2 the store is missing or cannot\n"
    "be read.\n";

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
							     ...)
{
	va_list ap;

	fprintf(stderr, "mpipredict-accuracy: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see --help)\n");
	return 1;
}

/* ctx: the JSON array of rows, or NULL for the table. */
static int row(void *ctx, const mpp_accuracy_row *r)
{
	json_t *rows = ctx;

	if (rows)
		return json_array_append_new(
			   rows,
			   json_pack("{s:s, s:I, s:f, s:f, s:f, s:f}", "key",
				     r->key ? r->key : "", "jobs",
				     (json_int_t)r->njobs, "mae_s", r->mae_s,
				     "mape_pct", r->mape, "under",
				     r->under_share, "inside", r->inside_share))
			   ? MPP_ENOMEM
			   : 0;
	printf("%s\t%lld\t%.1f\t%.1f\t%.3f\t%.3f\n", r->key ? r->key : "",
	       (long long)r->njobs, r->mae_s, r->mape, r->under_share,
	       r->inside_share);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"by", required_argument, NULL, 'b'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0}};
	const char *db = NULL, *by = "app";
	mpp_store *s;
	json_t *rows = NULL;
	char err[512];
	int c, rc, as_json = 0;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'b':
			by = optarg;
			if (strcmp(by, "app") && strcmp(by, "user") &&
			    strcmp(by, "basis"))
				return usage_error("--by: '%s' is not app, "
						   "user or basis",
						   optarg);
			break;
		case 'j':
			as_json = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("mpipredict-accuracy %s\n", MPP_VERSION);
			return 0;
		case ':':
			return usage_error("%s needs a value",
					   argv[optind - 1]);
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	db = mpp_store_default_path(db);
	rc = mpp_store_open_existing(db, MPP_STORE_READONLY, &s, err,
				     sizeof(err));
	if (rc) {
		fprintf(stderr, "mpipredict-accuracy: %s\n", err);
		return 2;
	}
	if (as_json)
		rows = json_array();
	else
		printf("%s\tjobs\tmae_s\tmape_pct\tunder\tinside\n", by);
	rc = as_json && !rows
		 ? MPP_ENOMEM
		 : mpp_store_accuracy(s, by, row, rows, err, sizeof(err));
	if (rc)
		fprintf(stderr, "mpipredict-accuracy: %s\n",
			rc == MPP_ENOMEM ? "out of memory" : err);
	mpp_store_close(s);
	if (rc == MPP_OK && as_json) {
		json_t *o = json_pack("{s:s, s:o}", "by", by, "rows", rows);

		rows = NULL;
		if (!o || json_dumpf(o, stdout, JSON_COMPACT) ||
		    putchar('\n') == EOF)
			rc = MPP_ENOMEM;
		json_decref(o);
	}
	json_decref(rows);
	return rc ? 2 : 0;
}
