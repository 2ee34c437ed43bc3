/*
 * jobcomp_main.c: mpipredict-jobcomp, finished jobs' actual run times into
 * the store's jobs table. Slurm runs it as its jobcomp/script (JobCompLoc,
 * through a two-line wrapper), one job per run, the record in the
 * environment; --from reads a spool of records, one per line. With --db
 * it writes the store itself; else it sends the records to the daemon
 * that owns the store (POST /v1/jobs; --url, or the client configuration,
 * common/client.h), keeping them in a spool while the daemon is away
 * (jobcomp_send.h). A malformed or half-written record gets one log line
 * and is skipped; a job id seen again updates its row. Exit 0 on success
 * (records skipped from a spool included, records kept in the spool
 * included), 1 on a usage error, 2 when the one record of the environment
 * is malformed, the store fails or the daemon refuses the records.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/client.h"
#include "common/status.h"
#include "history/jobcomp.h"
#include "history/jobcomp_send.h"
#include "schema/store.h"

static const char usage[] =
    "usage: mpipredict-jobcomp [--db FILE] [--keep N] [--log FILE] "
    "[--from FILE]\n"
    "       mpipredict-jobcomp [--url URL --token-file F] [--spool FILE]\n"
    "                          [--log FILE] [--from FILE]\n"
    "\n"
    "Store finished jobs' actual run times in the jobs table of FILE\n"
    "(--db, else $MPIPREDICT_DB when set and --url is not given; created\n"
    "when missing), or send them to the daemon that owns the store\n"
    "(POST /v1/jobs): the one --url names, else the client configuration\n"
    "(MPIPREDICT_URL and MPIPREDICT_TOKEN_FILE, else the file\n"
    "MPIPREDICT_CLIENT_CONF names, default " MPP_CLIENT_CONF_DEFAULT ").\n"
    "While the daemon cannot be reached (or answers 5xx), records are kept\n"
    "in the spool and sent first by the next run; the wait is bounded by\n"
    "the client timeout and the exit is 0. A refusal (4xx) is logged,\n"
    "nothing kept, exit 2.\n"
    "Without --from, one job from the environment, as Slurm's\n"
    "jobcomp/script hands it (JOBID, UID, USERNAME, JOBSTATE, SUBMIT,\n"
    "START, END, LIMIT, PROCS, NODECNT, PARTITION, ACCOUNT, JOBNAME).\n"
    "With --from FILE (- for stdin): one record per line, the same\n"
    "KEY=VALUE fields separated by tabs; a line without its end of line\n"
    "is half-written and skipped.\n"
    "\n"
    "  --keep N    with --db: keep each user's last N jobs (default 64),\n"
    "              delete older (the daemon keeps 64)\n"
    "  --url URL   the daemon (http://host:port), with --token-file F, the\n"
    "              file whose first line is its token\n"
    "  --spool FILE  where records wait for the daemon (default\n"
    "              " MPP_JOBCOMP_SPOOL ")\n"
    "  --log FILE  append log lines to FILE (default stderr; Slurm sends a\n"
    "              jobcomp script's stderr to /dev/null)\n"
    "  -h, --help  this text;  --version  the version\n"
    "\n"
    "Never ./models.db by default: Slurm runs it in slurmctld's directory.\n"
    "Exit status: 0 done, 1 usage error, 2 a malformed record, the store\n"
    "failed or the daemon refused the records.\n";

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
		mpp_jobcomp_line fl;
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
		if (mpp_jobcomp_split(lines[n], (size_t)len, &fl, err,
				      sizeof(err)) ||
		    mpp_jobcomp_parse(mpp_jobcomp_line_get, &fl, &recs[n], err,
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

/* ---- through the daemon ------------------------------------------------ */

static void log_msg(const char *msg)
{
	logline("%s", msg);
}

/* Records as text, one a line, the format --from reads. */
typedef struct text {
	char *p;
	size_t n, cap;
} text;

static int text_add(text *t, const char *s, size_t n)
{
	if (t->n + n + 1 > t->cap) {
		size_t cap = t->cap ? t->cap : 1024;
		while (cap < t->n + n + 1)
			cap *= 2;
		char *p = realloc(t->p, cap);
		if (!p)
			return -1;
		t->p = p;
		t->cap = cap;
	}
	memcpy(t->p + t->n, s, n);
	t->n += n;
	t->p[t->n] = '\0';
	return 0;
}

/* The fields of a record in the environment, in jobcomp.h's order. */
static const char *const env_keys[] = {
    "JOBID", "UID",   "USERNAME", "JOBSTATE",  "SUBMIT",  "START",  "END",
    "LIMIT", "PROCS", "NODECNT",  "PARTITION", "ACCOUNT", "JOBNAME"};

/* The environment's record as one line, once it is checked (no field
 * then holds a tab or an end of line: labels have no control bytes,
 * the others are numbers and names). MPP_EINVAL: logged. */
static int env_text(text *t)
{
	mpp_jobcomp j;
	char err[512];

	if (mpp_jobcomp_parse(env_get, NULL, &j, err, sizeof(err))) {
		logline("job %s: %s, skipped",
			getenv("JOBID") ? getenv("JOBID") : "?", err);
		return MPP_EINVAL;
	}
	for (size_t i = 0; i < sizeof(env_keys) / sizeof(*env_keys); i++) {
		const char *v = getenv(env_keys[i]);
		if (!v || !*v)
			continue;
		if ((t->n && text_add(t, "\t", 1)) ||
		    text_add(t, env_keys[i], strlen(env_keys[i])) ||
		    text_add(t, "=", 1) || text_add(t, v, strlen(v)))
			return MPP_ENOMEM;
	}
	return text_add(t, "\n", 1) ? MPP_ENOMEM : MPP_OK;
}

/* The good records of a file (each checked as the daemon will check it);
 * the others logged and counted in *skipped. */
static int file_text(const char *path, text *t, size_t *nrec, size_t *skipped)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	char *line = NULL, *copy = NULL, err[512];
	size_t linecap = 0, lineno = 0;
	ssize_t len;
	int rc = MPP_OK;

	if (!f) {
		logline("%s: cannot open", path);
		return MPP_EIO;
	}
	while (rc == MPP_OK && (len = getline(&line, &linecap, f)) > 0) {
		mpp_jobcomp_line fl;
		mpp_jobcomp j;
		size_t n = (size_t)len;
		lineno++;
		if (line[n - 1] != '\n') {
			logline("%s:%zu: half-written record (no end of "
				"line), skipped",
				path, lineno);
			++*skipped;
			continue;
		}
		line[--n] = '\0';
		if (n && line[n - 1] == '\r')
			line[--n] = '\0';
		if (n == 0 || line[0] == '#')
			continue;
		free(copy);
		if (!(copy = malloc(n + 1))) {
			rc = MPP_ENOMEM;
			break;
		}
		memcpy(copy, line, n + 1);
		if (mpp_jobcomp_split(copy, n, &fl, err, sizeof(err)) ||
		    mpp_jobcomp_parse(mpp_jobcomp_line_get, &fl, &j, err,
				      sizeof(err))) {
			logline("%s:%zu: %s, skipped", path, lineno, err);
			++*skipped;
			continue;
		}
		if (text_add(t, line, n) || text_add(t, "\n", 1))
			rc = MPP_ENOMEM;
		++*nrec;
	}
	free(copy);
	free(line);
	if (f != stdin)
		fclose(f);
	if (rc == MPP_ENOMEM)
		logline("out of memory");
	return rc;
}

static int through_daemon(const mpp_client_conf *c, const char *spool,
			  const char *from)
{
	text t = {0};
	size_t nrec = 0, skipped = 0;
	int rc = from ? file_text(from, &t, &nrec, &skipped) : env_text(&t);

	if (rc == MPP_ENOMEM && !from)
		logline("out of memory");
	if (rc) {
		free(t.p);
		return 2;
	}
	enum mpp_send_result r =
	    mpp_jobcomp_send(c, spool, t.p ? t.p : "", t.n, log_msg);
	free(t.p);
	if (from && (r == MPP_SEND_STORED || r == MPP_SEND_SPOOLED))
		printf("%s %zu jobs, skipped %zu records\n",
		       r == MPP_SEND_STORED ? "stored" : "spooled", nrec,
		       skipped);
	return r == MPP_SEND_STORED || r == MPP_SEND_SPOOLED ? 0 : 2;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"db", required_argument, NULL, 'd'},
	    {"keep", required_argument, NULL, 'k'},
	    {"log", required_argument, NULL, 'l'},
	    {"from", required_argument, NULL, 'f'},
	    {"url", required_argument, NULL, 'u'},
	    {"token-file", required_argument, NULL, 't'},
	    {"spool", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0}};
	const char *db = NULL, *from = NULL, *logpath = NULL, *url = NULL,
		   *token_file = NULL, *spool = NULL;
	long keep = MPP_JOBCOMP_KEEP;
	int keep_given = 0;
	mpp_store *s;
	char err[512], *end;
	int c, rc;

	log_out = stderr;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'd':
			db = optarg;
			break;
		case ':':
			return usage_error("%s needs a value",
					   argv[optind - 1]);
		case 'k':
			keep = strtol(optarg, &end, 10);
			if (!*optarg || *end || keep < 1 || keep > 1000000)
				return usage_error("--keep: '%s' is not a "
						   "count from 1 to 1000000",
						   optarg);
			keep_given = 1;
			break;
		case 'u':
			url = optarg;
			break;
		case 't':
			token_file = optarg;
			break;
		case 's':
			spool = optarg;
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
	/* The shared default (docs/cli.md) when the daemon is not named on
	 * the command line; never ./models.db, as slurmctld's working
	 * directory is no place for a store. */
	if (!db && !url && !token_file && !spool && getenv("MPIPREDICT_DB") &&
	    *getenv("MPIPREDICT_DB"))
		db = mpp_store_default_path(NULL);
	if (db && (url || token_file || spool))
		return usage_error("--db writes the store itself; --url, "
				   "--token-file and --spool are for sending "
				   "to the daemon: give one or the other");
	if (!db && keep_given)
		return usage_error("--keep is for --db; the daemon keeps each "
				   "user's last %d jobs",
				   MPP_JOBCOMP_KEEP);
	if (token_file && !url)
		return usage_error("--token-file needs --url");
	if (logpath && !(log_out = fopen(logpath, "a"))) {
		log_out = stderr;
		logline("%s: cannot open the log, logging to stderr", logpath);
	}
	if (!db) {
		mpp_client_conf conf;
		/* The command line's daemon goes through the same reader as
		 * the configuration's (the token file read the same way). */
		if (url && (setenv("MPIPREDICT_URL", url, 1) ||
			    (token_file ? setenv("MPIPREDICT_TOKEN_FILE",
						 token_file, 1)
					: unsetenv("MPIPREDICT_TOKEN_FILE"))))
			return usage_error("--url: cannot set the environment");
		rc = mpp_client_conf_load(&conf, err, sizeof(err));
		if (rc == 1) {
			mpp_client_conf_free(&conf);
			return usage_error(
			    "no store and no daemon: give --db FILE, or "
			    "--url URL, or set MPIPREDICT_DB, MPIPREDICT_URL "
			    "or the client configuration "
			    "(" MPP_CLIENT_CONF_DEFAULT ")");
		}
		if (rc < 0) {
			logline("%s", err);
			mpp_client_conf_free(&conf);
			rc = 2;
		} else {
			rc = through_daemon(
			    &conf, spool ? spool : MPP_JOBCOMP_SPOOL, from);
			mpp_client_conf_free(&conf);
		}
		if (log_out != stderr)
			fclose(log_out);
		return rc;
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
