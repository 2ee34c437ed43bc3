/*
 * accuracy_main.c: mpipredict-accuracy, how right the daemon's predictions
 * were for the jobs that have finished: the jobs table joined with the
 * predictions audit by job id, grouped by app, user or basis. Prints a
 * tab-separated table (header first). Exit 0 on success (an empty table
 * included), 1 on a usage error, 2 when the store cannot be read.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/status.h"
#include "schema/store.h"

static const char usage[] =
    "usage: mpipredict-accuracy --db FILE [--by app|user|basis]\n"
    "\n"
    "For each app (default), user or prediction basis: the finished jobs\n"
    "that were predicted at submission, the mean absolute error (s), the\n"
    "mean absolute percentage error, the share predicted below the actual\n"
    "run time and the share whose actual run time fell inside the\n"
    "predicted interval. Columns: key, jobs, mae_s, mape_pct, under,\n"
    "inside (tab-separated, one header line).\n"
    "\n"
    "  --help, --version\n";

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

static int row(void *ctx, const mpp_accuracy_row *r)
{
	(void)ctx;
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
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0}};
	const char *db = NULL, *by = "app";
	mpp_store *s;
	char err[512];
	int c, rc;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
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
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("mpipredict-accuracy %s\n", MPP_VERSION);
			return 0;
		default:
			return usage_error("unknown option '%s'",
					   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (!db)
		return usage_error("--db is required");
	rc = mpp_store_open(db, MPP_STORE_READONLY, &s, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "mpipredict-accuracy: %s\n", err);
		return 2;
	}
	printf("%s\tjobs\tmae_s\tmape_pct\tunder\tinside\n", by);
	rc = mpp_store_accuracy(s, by, row, NULL, err, sizeof(err));
	if (rc)
		fprintf(stderr, "mpipredict-accuracy: %s\n", err);
	mpp_store_close(s);
	return rc ? 2 : 0;
}
