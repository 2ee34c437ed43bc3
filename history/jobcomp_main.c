/*
 * jobcomp_main.c: mpipredict-jobcomp, finished jobs' actual run times into
 * the store's jobs table. Slurm runs it as its jobcomp/script (JobCompLoc,
 * through a two-line wrapper that adds --db), one job per run, the record
 * in the environment; --from reads a spool of records, one per line.
 * A malformed or half-written record gets one log line and is skipped; a
 * job id seen again updates its row. Exit 0 on success (records skipped
 * from a spool included), 1 on a usage error, 2 when the one record of
 * the environment is malformed or the store fails.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "history/jobcomp.h"
#include "common/status.h"
#include "schema/store.h"

static const char usage[] =
    "usage: mpipredict-jobcomp --db FILE [--keep N] [--log FILE] "
    "[--from FILE]\n"
    "\n"
    "Store finished jobs' actual run times in the jobs table of FILE.\n"
    "Without --from, one job from the environment, as Slurm's\n"
    "jobcomp/script hands it (JOBID, UID, USERNAME, JOBSTATE, SUBMIT,\n"
    "START, END, LIMIT, PROCS, NODECNT, PARTITION, ACCOUNT, JOBNAME).\n"
    "With --from FILE (- for stdin): one record per line, the same\n"
    "KEY=VALUE fields separated by tabs; a line without its end of line\n"
    "is half-written and skipped.\n"
    "\n"
    "  --keep N    keep each user's last N jobs (default 64), delete older\n"
    "  --log FILE  append log lines to FILE (default stderr; Slurm sends a\n"
    "              jobcomp script's stderr to /dev/null)\n"
    "  --help, --version\n";

static FILE *log_out;

__attribute__((format(printf, 1, 2))) static void logline(const char *fmt, ...)
{
	va_list ap;

	fprintf(log_out, "mpipredict-jobcomp: ");
	va_start(ap, fmt);
	vfprintf(log_out, fmt, ap);
	va_end(ap);
	fputc('\n', log_out);
	fflush(log_out);
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt,
							     ...)
{
	va_list ap;

	fprintf(stderr, "mpipredict-jobcomp: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, " (see --help)\n");
	return 1;
}

static const char *env_get(void *ctx, const char *key)
{
	(void)ctx;
	return getenv(key);
}

/* One spool line split in place into KEY=VALUE fields. */
typedef struct fields {
	char *key[64], *val[64];
	int n;
} fields;

static const char *line_get(void *ctx, const char *key)
{
	const fields *f = ctx;

	for (int i = 0; i < f->n; i++)
		if (strcmp(f->key[i], key) == 0)
			return f->val[i];
	return NULL;
}

static int split(char *line, fields *f, char *err, size_t errlen)
{
	char *save = NULL, *tok;

	f->n = 0;
	for (tok = strtok_r(line, "\t", &save); tok;
	     tok = strtok_r(NULL, "\t", &save)) {
		char *eq = strchr(tok, '=');
		if (!eq || eq == tok) {
			snprintf(err, errlen, "field '%.40s' is not KEY=VALUE",
				 tok);
			return -1;
		}
		if (f->n == 64) {
			snprintf(err, errlen, "more than 64 fields");
			return -1;
		}
		*eq = '\0';
		f->key[f->n] = tok;
		f->val[f->n++] = eq + 1;
	}
	return 0;
}

static int from_spool(mpp_store *s, const char *path, int keep)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	mpp_jobcomp *recs = NULL;
	mpp_job_rec *rows = NULL;
	char **lines = NULL, *line = NULL, err[512];
	size_t n = 0, cap = 0, linecap = 0, lineno = 0, skipped = 0;
	ssize_t len;
	int rc = MPP_OK;

	if (!f) {
		logline("%s: cannot open", path);
		return MPP_EIO;
	}
	while ((len = getline(&line, &linecap, f)) > 0) {
		fields fl;
		lineno++;
		if (line[len - 1] != '\n') {
			logline("%s:%zu: half-written record (no end of "
				"line), skipped",
				path, lineno);
			skipped++;
			continue;
		}
		line[--len] = '\0';
		if (len && line[len - 1] == '\r')
			line[--len] = '\0';
		if (len == 0 || line[0] == '#')
			continue;
		if (n == cap) {
			size_t nc = cap ? 2 * cap : 64;
			mpp_jobcomp *g = realloc(recs, nc * sizeof(*g));
			char **gl = g ? realloc(lines, nc * sizeof(*gl)) : NULL;
			if (g)
				recs = g;
			if (!gl) {
				rc = MPP_ENOMEM;
				break;
			}
			lines = gl;
			cap = nc;
		}
		lines[n] = line;
		line = NULL;
		linecap = 0;
		if (split(lines[n], &fl, err, sizeof(err)) ||
		    mpp_jobcomp_parse(line_get, &fl, &recs[n], err,
				      sizeof(err))) {
			logline("%s:%zu: %s, skipped", path, lineno, err);
			free(lines[n]);
			skipped++;
			continue;
		}
		n++;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	if (rc == MPP_OK && n) {
		rows = malloc(n * sizeof(*rows));
		if (!rows)
			rc = MPP_ENOMEM;
		/* A "uid:N" user lives in its record, which realloc moved. */
		for (size_t i = 0; rows && i < n; i++) {
			rows[i] = recs[i].rec;
			if (recs[i].user[0])
				rows[i].user = recs[i].user;
		}
		if (rows)
			rc = mpp_store_put_jobs(s, rows, n, keep, err,
						sizeof(err));
		if (rc && rc != MPP_ENOMEM)
			logline("%s", err);
	}
	if (rc == MPP_ENOMEM)
		logline("out of memory");
	if (rc == MPP_OK)
		printf("stored %zu jobs, skipped %zu records\n", n, skipped);
	for (size_t i = 0; i < n; i++)
		free(lines[i]);
	free(lines);
	free(recs);
	free(rows);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"keep", required_argument, NULL, 'k'},
	    {"log", required_argument, NULL, 'l'},
	    {"from", required_argument, NULL, 'f'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0}};
	const char *db = NULL, *from = NULL, *logpath = NULL;
	long keep = 64;
	mpp_store *s;
	char err[512], *end;
	int c, rc;

	log_out = stderr;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case 'k':
			keep = strtol(optarg, &end, 10);
			if (!*optarg || *end || keep < 1 || keep > 1000000)
				return usage_error("--keep: '%s' is not a "
						   "count from 1 to 1000000",
						   optarg);
			break;
		case 'l':
			logpath = optarg;
			break;
		case 'f':
			from = optarg;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("mpipredict-jobcomp %s\n", MPP_VERSION);
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
	if (logpath && !(log_out = fopen(logpath, "a"))) {
		log_out = stderr;
		logline("%s: cannot open the log, logging to stderr", logpath);
	}
	rc = mpp_store_open(db, MPP_STORE_CREATE, &s, err, sizeof(err));
	if (rc) {
		logline("%s", err);
		return 2;
	}
	if (from) {
		rc = from_spool(s, from, (int)keep);
	} else {
		mpp_jobcomp j;
		rc = mpp_jobcomp_parse(env_get, NULL, &j, err, sizeof(err));
		if (rc)
			logline("job %s: %s, skipped",
				getenv("JOBID") ? getenv("JOBID") : "?", err);
		else if ((rc = mpp_store_put_jobs(s, &j.rec, 1, (int)keep, err,
						  sizeof(err))))
			logline("job %s: %s", j.rec.job_id, err);
	}
	mpp_store_close(s);
	if (log_out != stderr)
		fclose(log_out);
	return rc ? 2 : 0;
}
