/*
 * collect.c: mpipredict-collect, which merges the per-rank dumps of runs
 * made with MPIPREDICT_DUMP=<dir> into the run row that the in-process merge
 * at MPI_Finalize writes (same columns, same values, same text), and appends
 * it to the runs file (or prints it). For runs that crashed before
 * MPI_Finalize (every rank dumps at exit()) and for debugging.
 *
 * Not for: reading run rows (regress/runs.h), merging partial runs: a run
 * needs the dump of every rank.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <yajl/yajl_gen.h>

#include "collector/row.h"
#include "collector/runfile.h"
#include "common/client.h"

static const char usage[] =
    "usage: mpipredict-collect [--runs PATH] [--print] DUMP|DIR...\n"
    "       mpipredict-collect --forward [--quiet] [--runs PATH] [OUTBOX...]\n"
    "       mpipredict-collect --progress [--quiet] FILE\n"
    "       mpipredict-collect --progress-interval\n"
    "\n"
    "Merge the per-rank dumps written by an instrumented program run with\n"
    "MPIPREDICT_DUMP=DIR (files <run_id>.<rank>.dump) into one run row per\n"
    "run: features averaged (.mean) and maximised (.max) over the ranks,\n"
    "runtime_s of the slowest rank, exit_status the first non-zero status\n"
    "of the ranks (1 for a rank that never reached MPI_Finalize). A DIR\n"
    "argument means every *.dump in it.\n"
    "\n"
    "  --runs PATH  append the rows to PATH (a file when it ends in .csv\n"
    "               or exists, else a directory holding <app>.csv); default "
    "$MPIPREDICT_RUNS, else\n"
    "               ./mpipredict-runs/\n"
    "  --print      print the header and rows on stdout instead\n"
    "  --forward    send the rows waiting in each OUTBOX folder (default\n"
    "               <folder of the runs file>/outbox, the runs file as --runs\n"
    "               says) to the daemon the client configuration names\n"
    "               (MPIPREDICT_URL, MPIPREDICT_TOKEN_FILE,\n"
    "               MPIPREDICT_CLIENT_CONF, default " MPP_CLIENT_CONF_DEFAULT
    ")\n"
    "               with POST /v1/runs, oldest first: a row taken is\n"
    "               deleted, a row refused (4xx) moves to OUTBOX/rejected/\n"
    "               with the answer in <file>.reason, and when the daemon\n"
    "               does not answer (or 5xx, 408, 429) the rest wait\n"
    "  --progress   post a running job's counters (the dump FILE that\n"
    "               libmpipredict's progress thread wrote) to the daemon\n"
    "               with POST /v1/progress (job id, app, args, elapsed_s,\n"
    "               time_limit_s from MPIPREDICT_TIME_LIMIT_S or\n"
    "               SLURM_JOB_END_TIME - SLURM_JOB_START_TIME); a FILE\n"
    "               gone is not an error (the job ended)\n"
    "  --progress-interval\n"
    "               print the seconds between progress posts\n"
    "               (MPIPREDICT_PROGRESS_S, else the configuration's\n"
    "               progress_s, default 60; 0: none, or no daemon;\n"
    "               fractions from 0.1 allowed)\n"
    "  --quiet      print nothing (the runtime's detached forwarder)\n"
    "  -h, --help   this text\n"
    "  --version    print the version\n"
    "\n"
    "Exit status: 0 done, 1 usage error, 2 bad or incomplete dumps, or the\n"
    "row could not be written; with --forward 2 when a row was kept or\n"
    "rejected, or the configuration is wrong or missing.\n";

struct dumps {
	size_t n, cap;
	struct mpp_dump *d;
	char **path;
};

static int add_file(struct dumps *ds, const char *path)
{
	char err[4200];

	if (ds->n == ds->cap) {
		size_t cap = ds->cap ? 2 * ds->cap : 16;
		struct mpp_dump *d = realloc(ds->d, cap * sizeof *d);
		char **p;

		if (!d)
			goto oom;
		ds->d = d;
		p = realloc(ds->path, cap * sizeof *p);
		if (!p)
			goto oom;
		ds->path = p;
		ds->cap = cap;
	}
	if (mpp_dump_read(path, &ds->d[ds->n], err, sizeof err) < 0) {
		fprintf(stderr, "mpipredict-collect: %s\n", err);
		return -1;
	}
	ds->path[ds->n] = strdup(path);
	if (!ds->path[ds->n]) {
		mpp_dump_free(&ds->d[ds->n]);
		goto oom;
	}
	ds->n++;
	return 0;
oom:
	fprintf(stderr, "mpipredict-collect: out of memory\n");
	return -1;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_arg(struct dumps *ds, const char *arg)
{
	struct stat st;
	struct dirent *e;
	char **names = NULL, path[4096];
	size_t n = 0, cap = 0, i, len;
	DIR *dir;
	int rc = 0;

	if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode))
		return add_file(ds, arg);
	dir = opendir(arg);
	if (!dir) {
		fprintf(stderr,
			"mpipredict-collect: %s: cannot open directory\n", arg);
		return -1;
	}
	while ((e = readdir(dir))) {
		len = strlen(e->d_name);
		if (len < 6 || strcmp(e->d_name + len - 5, ".dump") != 0)
			continue;
		if (n == cap) {
			char **t = realloc(names, (cap = cap ? 2 * cap : 16) *
						      sizeof *t);

			if (!t) {
				rc = -1;
				break;
			}
			names = t;
		}
		if (!(names[n] = strdup(e->d_name))) {
			rc = -1;
			break;
		}
		n++;
	}
	closedir(dir);
	if (rc < 0)
		fprintf(stderr, "mpipredict-collect: out of memory\n");
	qsort(names, n, sizeof *names, name_cmp);
	for (i = 0; i < n && rc == 0; i++) {
		snprintf(path, sizeof path, "%s/%s", arg, names[i]);
		rc = add_file(ds, path);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	if (rc == 0 && n == 0) {
		fprintf(stderr, "mpipredict-collect: %s: no .dump file\n", arg);
		return -1;
	}
	return rc;
}

/* Merge the dumps of the run of ds->d[first]; marks them used. */
static int merge_run(struct dumps *ds, size_t first, char *used,
		     const char *runs, int print, int *printed_header,
		     const char **last_header)
{
	const struct mpp_dump *r0 = NULL, *a = &ds->d[first];
	int nprocs = a->meta.nprocs, rc = -1;
	const struct mpp_dump **by_rank =
	    calloc((size_t)nprocs, sizeof *by_rank);
	unsigned long long *sum = calloc(a->nf ? a->nf : 1, sizeof *sum);
	unsigned long long *max = calloc(a->nf ? a->nf : 1, sizeof *max);
	char *header = NULL, *row = NULL, err[4200], path[4096];
	struct mpp_run_meta m;
	double slowest = 0;
	size_t i, k;
	int r;

	if (!by_rank || !sum || !max) {
		fprintf(stderr, "mpipredict-collect: out of memory\n");
		goto out;
	}
	for (i = first; i < ds->n; i++) {
		const struct mpp_dump *d = &ds->d[i];

		if (used[i] || strcmp(d->meta.run_id, a->meta.run_id) != 0)
			continue;
		used[i] = 1;
		if (d->meta.nprocs != nprocs || d->nf != a->nf) {
			fprintf(stderr,
				"mpipredict-collect: %s: does not match %s "
				"(nprocs or "
				"feature count)\n",
				ds->path[i], ds->path[first]);
			goto out;
		}
		for (k = 0; k < d->nf; k++)
			if (strcmp(d->names[k], a->names[k]) != 0) {
				fprintf(stderr,
					"mpipredict-collect: %s: feature %zu "
					"is %s, "
					"%s has %s\n",
					ds->path[i], k + 1, d->names[k],
					ds->path[first], a->names[k]);
				goto out;
			}
		if (by_rank[d->rank]) {
			fprintf(
			    stderr,
			    "mpipredict-collect: %s: rank %d of run %s again\n",
			    ds->path[i], d->rank, d->meta.run_id);
			goto out;
		}
		by_rank[d->rank] = d;
	}
	for (r = 0; r < nprocs; r++) {
		const struct mpp_dump *d = by_rank[r];

		if (!d) {
			fprintf(stderr,
				"mpipredict-collect: run %s: no dump of rank "
				"%d of %d\n",
				a->meta.run_id, r, nprocs);
			goto out;
		}
		for (k = 0; k < d->nf; k++) {
			sum[k] += d->values[k];
			if (d->values[k] > max[k])
				max[k] = d->values[k];
		}
		if (d->meta.runtime_s > slowest)
			slowest = d->meta.runtime_s;
	}
	r0 = by_rank[0];
	m = r0->meta;
	m.runtime_s = slowest;
	/* The run failed when a rank did: the first non-zero status in rank
	 * order, or 1 for a rank that ended without MPI_Finalize (exit(0)
	 * from a rank that never finalized is not a success). */
	m.exit_status = 0;
	for (r = 0; r < nprocs && !m.exit_status; r++)
		m.exit_status = by_rank[r]->meta.exit_status
				    ? by_rank[r]->meta.exit_status
				    : !by_rank[r]->finalized;
	if (mpp_row_build(&m, r0->nf, r0->names, sum, max, &header, &row, err,
			  sizeof err) < 0) {
		fprintf(stderr, "mpipredict-collect: %s\n", err);
		goto out;
	}
	if (print) {
		if (!*printed_header || strcmp(*last_header, header) != 0)
			fputs(header, stdout);
		*printed_header = 1;
		fputs(row, stdout);
		free((char *)*last_header);
		*last_header = header;
		header = NULL;
	} else if (mpp_runfile_append(runs, m.app, header, row, path,
				      sizeof path, err, sizeof err) < 0) {
		fprintf(stderr, "mpipredict-collect: %s\n", err);
		goto out;
	} else {
		fprintf(stderr, "mpipredict-collect: run %s (%d ranks) -> %s\n",
			m.run_id, nprocs, path);
	}
	rc = 0;
out:
	free(header);
	free(row);
	free(by_rank);
	free(sum);
	free(max);
	return rc;
}

/* --forward: the rows the runtime left in an outbox folder, sent to the
 * daemon. One file per run (<run_id>.csv: header and row), written by the
 * runtime through a temporary name, so every *.csv here is whole. */

struct waiting {
	char *name;
	struct timespec mtime;
};

static int waiting_cmp(const void *a, const void *b)
{
	const struct waiting *x = a, *y = b;

	if (x->mtime.tv_sec != y->mtime.tv_sec)
		return x->mtime.tv_sec < y->mtime.tv_sec ? -1 : 1;
	if (x->mtime.tv_nsec != y->mtime.tv_nsec)
		return x->mtime.tv_nsec < y->mtime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The *.csv files of dir (not hidden, regular), oldest first. Returns the
 * count, or -1 (message printed unless quiet). */
static long list_waiting(const char *dir, struct waiting **out, int quiet)
{
	struct waiting *v = NULL, *t;
	size_t n = 0, cap = 0, len;
	char path[PATH_MAX];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(dir);

	*out = NULL;
	if (!d) {
		if (!quiet)
			fprintf(stderr, "mpipredict-collect: %s: %s\n", dir,
				strerror(errno));
		return -1;
	}
	while ((e = readdir(d))) {
		len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len < 5 ||
		    strcmp(e->d_name + len - 4, ".csv") != 0)
			continue;
		if ((size_t)snprintf(path, sizeof path, "%s/%s", dir,
				     e->d_name) >= sizeof path ||
		    lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			t = realloc(v, cap * sizeof *v);
			if (!t)
				goto oom;
			v = t;
		}
		v[n].name = strdup(e->d_name);
		if (!v[n].name)
			goto oom;
		v[n++].mtime = st.st_mtim;
	}
	closedir(d);
	if (n)
		qsort(v, n, sizeof *v, waiting_cmp);
	*out = v;
	return (long)n;
oom:
	closedir(d);
	while (n)
		free(v[--n].name);
	free(v);
	if (!quiet)
		fprintf(stderr, "mpipredict-collect: out of memory\n");
	return -1;
}

/* The whole file, NUL-terminated, in *buf. */
static int read_all(const char *path, char **buf, size_t *len)
{
	FILE *f = fopen(path, "rb");
	size_t cap = 4096, n = 0, r;
	char *b = malloc(cap), *t;

	if (!f || !b) {
		if (f)
			fclose(f);
		free(b);
		return -1;
	}
	while ((r = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (n + 1 == cap) {
			t = realloc(b, cap *= 2);
			if (!t) {
				fclose(f);
				free(b);
				return -1;
			}
			b = t;
		}
	}
	if (ferror(f)) {
		fclose(f);
		free(b);
		return -1;
	}
	fclose(f);
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

/* A refused row: <dir>/rejected/<name> with <name>.reason beside it (the
 * status and the daemon's answer), the reason first so that a rejected
 * row never stands without one. */
static int reject(const char *dir, const char *name, long status,
		  const char *answer, char *err, size_t errlen)
{
	char rej[PATH_MAX], from[PATH_MAX], to[PATH_MAX], reason[PATH_MAX],
	    tmp[PATH_MAX];
	size_t al = answer ? strlen(answer) : 0;
	FILE *f;
	int ok;

	if ((size_t)snprintf(rej, sizeof rej, "%s/rejected", dir) >=
		sizeof rej ||
	    (size_t)snprintf(from, sizeof from, "%s/%s", dir, name) >=
		sizeof from ||
	    (size_t)snprintf(to, sizeof to, "%s/%s", rej, name) >= sizeof to ||
	    (size_t)snprintf(reason, sizeof reason, "%s.reason", to) >=
		sizeof reason ||
	    (size_t)snprintf(tmp, sizeof tmp, "%s/.%s.reason.tmp", rej, name) >=
		sizeof tmp) {
		snprintf(err, errlen, "%s: path too long", dir);
		return -1;
	}
	if (mkdir(rej, 0777) != 0 && errno != EEXIST) {
		snprintf(err, errlen, "cannot create %s: %s", rej,
			 strerror(errno));
		return -1;
	}
	f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "cannot write %s: %s", tmp,
			 strerror(errno));
		return -1;
	}
	fprintf(f, "HTTP %ld\n%s", status, answer ? answer : "");
	if (al && answer[al - 1] != '\n')
		fputc('\n', f);
	ok = !ferror(f);
	if (fclose(f) != 0 || !ok || rename(tmp, reason) != 0 ||
	    rename(from, to) != 0) {
		snprintf(err, errlen, "cannot move %s to %s: %s", from, rej,
			 strerror(errno));
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The daemon's answer cut to one short line for messages. */
static void one_line(const char *answer, char *out, size_t len)
{
	size_t i = 0;

	for (; answer && *answer && i + 1 < len && i < 200; answer++)
		out[i++] = (*answer == '\n' || *answer == '\r') ? ' ' : *answer;
	out[i] = '\0';
}

/* Send what waits in dir. Returns 0 when everything was sent (or nothing
 * waited), 2 when something was kept or rejected or dir is unusable. The
 * lock (fcntl on dir/.lock) makes concurrent forwarders take turns: the
 * one that waited finds only what is still there, its own run's row
 * included. */
static int forward_dir(const char *dir, const mpp_client_conf *c, int quiet,
		       int must_exist)
{
	struct flock lk = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
	char path[PATH_MAX], err[8400], why[256];
	struct waiting *v = NULL;
	long n, i, status, sent = 0;
	char *body = NULL, *answer;
	size_t len;
	int fd, rc = 0, stop = 0;

	if ((size_t)snprintf(path, sizeof path, "%s/.lock", dir) >=
	    sizeof path) {
		if (!quiet)
			fprintf(stderr,
				"mpipredict-collect: %s: path too long\n", dir);
		return 2;
	}
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0 && errno == ENOENT && !must_exist) {
		if (!quiet)
			fprintf(stderr,
				"mpipredict-collect: %s: nothing waits\n", dir);
		return 0;
	}
	if (fd < 0) {
		if (!quiet)
			fprintf(stderr, "mpipredict-collect: %s: %s\n", path,
				strerror(errno));
		return 2;
	}
	while (fcntl(fd, F_SETLKW, &lk) != 0)
		if (errno != EINTR) {
			if (!quiet)
				fprintf(stderr,
					"mpipredict-collect: cannot lock %s: "
					"%s\n",
					path, strerror(errno));
			close(fd);
			return 2;
		}
	n = list_waiting(dir, &v, quiet);
	if (n < 0)
		rc = 2;
	for (i = 0; i < n; i++) {
		if (stop) {
			if (!quiet)
				fprintf(stderr,
					"mpipredict-collect: %s/%s: kept, "
					"not sent\n",
					dir, v[i].name);
			continue;
		}
		snprintf(path, sizeof path, "%s/%s", dir, v[i].name);
		if (read_all(path, &body, &len) != 0) {
			/* Removed by hand since it was listed: nothing to
			 * send; unreadable: kept, said. */
			if (errno != ENOENT) {
				rc = 2;
				if (!quiet)
					fprintf(stderr,
						"mpipredict-collect: %s: %s; "
						"kept\n",
						path, strerror(errno));
			}
			continue;
		}
		answer = NULL;
		if (mpp_client_post(c, "/v1/runs", "text/csv", body, len,
				    &status, &answer, err, sizeof err) != 0) {
			if (!quiet)
				fprintf(stderr,
					"mpipredict-collect: %s: no answer "
					"(%s); kept\n",
					path, err);
			rc = 2;
			stop = 1;
		} else if (status >= 200 && status < 300) {
			if (unlink(path) != 0 && errno != ENOENT) {
				rc = 2;
				if (!quiet)
					fprintf(stderr,
						"mpipredict-collect: %s: sent, "
						"but cannot remove it: %s\n",
						path, strerror(errno));
			}
			sent++;
		} else if (status >= 400 && status < 500 && status != 408 &&
			   status != 429) {
			/* The daemon will never take this body as it is
			 * (a bad row, a wrong token): out of the way, with
			 * the daemon's words. */
			rc = 2;
			one_line(answer, why, sizeof why);
			if (reject(dir, v[i].name, status, answer, err,
				   sizeof err) != 0) {
				if (!quiet)
					fprintf(stderr,
						"mpipredict-collect: %s: "
						"refused (HTTP %ld: %s), and "
						"%s\n",
						path, status, why, err);
			} else if (!quiet) {
				fprintf(stderr,
					"mpipredict-collect: %s: refused "
					"(HTTP %ld: %s); moved to "
					"%s/rejected/\n",
					path, status, why, dir);
			}
		} else {
			/* Down, busy or overloaded: try again later. */
			one_line(answer, why, sizeof why);
			if (!quiet)
				fprintf(stderr,
					"mpipredict-collect: %s: HTTP %ld "
					"(%s); kept\n",
					path, status, why);
			rc = 2;
			stop = 1;
		}
		free(answer);
		free(body);
		body = NULL;
	}
	if (!quiet && sent)
		fprintf(stderr,
			"mpipredict-collect: %s: %ld row%s sent to %s\n", dir,
			sent, sent == 1 ? "" : "s", c->url);
	else if (!quiet && n == 0)
		fprintf(stderr, "mpipredict-collect: %s: nothing waits\n", dir);
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	close(fd); /* releases the lock */
	return rc;
}

/* The job's time limit in seconds from the environment, or -1. */
static double time_limit_s(void)
{
	const char *lim = getenv("MPIPREDICT_TIME_LIMIT_S");
	const char *st = getenv("SLURM_JOB_START_TIME");
	const char *en = getenv("SLURM_JOB_END_TIME");
	char *end1, *end2;
	double a, b;

	if (lim && *lim) {
		a = strtod(lim, &end1);
		return *end1 || !(a > 0) ? -1 : a;
	}
	if (!st || !en || !*st || !*en)
		return -1;
	a = strtod(st, &end1);
	b = strtod(en, &end2);
	return *end1 || *end2 || !(b > a) ? -1 : b - a;
}

static void gen_key(yajl_gen g, const char *k)
{
	yajl_gen_string(g, (const unsigned char *)k, strlen(k));
}

static void gen_str(yajl_gen g, const char *k, const char *v)
{
	gen_key(g, k);
	yajl_gen_string(g, (const unsigned char *)v, strlen(v));
}

/* A dump as the body of POST /v1/progress: one rank's counters stand for
 * the mean and the max (no other rank is asked while the job runs). */
static int progress_body(const struct mpp_dump *d, const unsigned char **body,
			 size_t *len, yajl_gen g)
{
	char name[4200];
	double lim = time_limit_s();
	size_t i;

	yajl_gen_map_open(g);
	gen_str(g, "job_id", d->meta.job_id);
	gen_str(g, "run_id", d->meta.run_id);
	gen_str(g, "app", d->meta.app);
	gen_str(g, "build_id", d->meta.build_id);
	gen_str(g, "args", d->meta.args);
	gen_key(g, "nprocs");
	yajl_gen_integer(g, d->meta.nprocs);
	gen_key(g, "nnodes");
	yajl_gen_integer(g, d->meta.nnodes);
	gen_key(g, "elapsed_s");
	yajl_gen_double(g, d->meta.runtime_s);
	if (lim > 0) {
		gen_key(g, "time_limit_s");
		yajl_gen_double(g, lim);
	}
	gen_key(g, "features");
	yajl_gen_map_open(g);
	for (i = 0; i < d->nf; i++) {
		snprintf(name, sizeof name, "%s.mean", d->names[i]);
		gen_key(g, name);
		yajl_gen_double(g, (double)d->values[i]);
		snprintf(name, sizeof name, "%s.max", d->names[i]);
		gen_key(g, name);
		yajl_gen_double(g, (double)d->values[i]);
	}
	yajl_gen_map_close(g);
	yajl_gen_map_close(g);
	return yajl_gen_get_buf(g, body, len) == yajl_gen_status_ok ? 0 : -1;
}

/* mpipredict-collect --progress-interval, and --progress FILE. */
static int progress_main(int argc, char **argv, int interval, int quiet)
{
	char err[8400], why[256];
	const unsigned char *body;
	struct mpp_dump d;
	mpp_client_conf c;
	char *answer = NULL;
	size_t len;
	long status;
	yajl_gen g;
	int rc;

	if (argc != (interval ? 0 : 1)) {
		fprintf(stderr, "mpipredict-collect: %s (see --help)\n",
			interval ? "--progress-interval takes no argument"
				 : "--progress takes one FILE");
		return 1;
	}
	rc = mpp_client_conf_load(&c, err, sizeof err);
	if (rc < 0) {
		if (!quiet)
			fprintf(stderr, "mpipredict-collect: %s\n", err);
		return 2;
	}
	if (interval) {
		/* %g: whole seconds print as before ("60"), a fraction
		 * as the runtime's strtod reads it back. */
		printf("%g\n", rc == 0 ? c.progress_s : 0.0);
		mpp_client_conf_free(&c);
		return 0;
	}
	if (rc == 1) {
		if (!quiet)
			fprintf(stderr, "mpipredict-collect: no daemon "
					"configured: nothing sent\n");
		return 2;
	}
	if (access(argv[0], F_OK) != 0 && errno == ENOENT) {
		mpp_client_conf_free(&c);
		return 0; /* the job ended and took its file */
	}
	if (mpp_dump_read(argv[0], &d, err, sizeof err) < 0) {
		if (!quiet)
			fprintf(stderr, "mpipredict-collect: %s\n", err);
		mpp_client_conf_free(&c);
		return 2;
	}
	rc = 2;
	g = yajl_gen_alloc(NULL);
	if (!g || progress_body(&d, &body, &len, g) < 0) {
		if (!quiet)
			fprintf(stderr, "mpipredict-collect: out of memory\n");
	} else if (mpp_client_post(&c, "/v1/progress", "application/json",
				   (const char *)body, len, &status, &answer,
				   err, sizeof err) != 0) {
		if (!quiet)
			fprintf(stderr,
				"mpipredict-collect: %s: no answer (%s)\n",
				argv[0], err);
	} else if (status < 200 || status >= 300) {
		one_line(answer, why, sizeof why);
		if (!quiet)
			fprintf(stderr,
				"mpipredict-collect: %s: refused (HTTP %ld: "
				"%s)\n",
				argv[0], status, why);
	} else
		rc = 0;
	free(answer);
	if (g)
		yajl_gen_free(g);
	mpp_dump_free(&d);
	mpp_client_conf_free(&c);
	return rc;
}

/* mpipredict-collect --forward [DIR...]. */
static int forward_main(int argc, char **argv, const char *runs, int quiet)
{
	char dir[PATH_MAX], err[8400];
	mpp_client_conf c;
	int rc = 0, i;

	if (argc == 0) {
		if (mpp_runfile_dir(runs, dir, sizeof dir - 8) != 0) {
			if (!quiet)
				fprintf(stderr,
					"mpipredict-collect: runs path too "
					"long: %s\n",
					runs);
			return 2;
		}
		strcat(dir, "/outbox");
	}
	switch (mpp_client_conf_load(&c, err, sizeof err)) {
	case 0:
		break;
	case 1:
		if (!quiet)
			fprintf(stderr,
				"mpipredict-collect: no daemon configured: set "
				"MPIPREDICT_URL or write the client "
				"configuration (MPIPREDICT_CLIENT_CONF, "
				"default " MPP_CLIENT_CONF_DEFAULT
				"); rows wait in the outbox\n");
		return 2;
	default:
		if (!quiet)
			fprintf(stderr, "mpipredict-collect: %s\n", err);
		return 2;
	}
	if (argc == 0)
		rc = forward_dir(dir, &c, quiet, 0);
	for (i = 0; i < argc; i++)
		if (forward_dir(argv[i], &c, quiet, 1) != 0)
			rc = 2;
	mpp_client_conf_free(&c);
	return rc;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"runs", required_argument, NULL, 'r'},
	    {"print", no_argument, NULL, 'p'},
	    {"forward", no_argument, NULL, 'f'},
	    {"quiet", no_argument, NULL, 'q'},
	    {"progress", no_argument, NULL, 'P'},
	    {"progress-interval", no_argument, NULL, 'I'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const char *runs = getenv("MPIPREDICT_RUNS"), *last_header = NULL;
	struct dumps ds = {0};
	int c, print = 0, printed = 0, rc = 0, forward = 0, quiet = 0;
	int progress = 0, interval = 0;
	char *used;
	size_t i;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			runs = optarg;
			break;
		case 'p':
			print = 1;
			break;
		case 'f':
			forward = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'P':
			progress = 1;
			break;
		case 'I':
			interval = 1;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			puts("mpipredict-collect " MPP_VERSION);
			return 0;
		case ':':
			fprintf(stderr,
				"mpipredict-collect: option %s needs a value "
				"(see --help)\n",
				argv[optind - 1]);
			return 1;
		default:
			fprintf(stderr,
				"mpipredict-collect: unknown option %s "
				"(see --help)\n",
				argv[optind - 1]);
			return 1;
		}
	}
	if (forward && print) {
		fprintf(stderr, "mpipredict-collect: --forward sends rows, "
				"--print prints merged dumps: give one (see "
				"--help)\n");
		return 1;
	}
	if (progress + interval + forward + print > 1) {
		fprintf(stderr, "mpipredict-collect: give one of --forward, "
				"--print, --progress, --progress-interval (see "
				"--help)\n");
		return 1;
	}
	if (progress || interval)
		return progress_main(argc - optind, argv + optind, interval,
				     quiet);
	if (quiet && !forward) {
		fprintf(stderr, "mpipredict-collect: --quiet goes with "
				"--forward (see --help)\n");
		return 1;
	}
	if (forward)
		return forward_main(argc - optind, argv + optind, runs, quiet);
	if (optind == argc) {
		fprintf(stderr,
			"mpipredict-collect: no dump given (see --help)\n");
		return 1;
	}
	for (; optind < argc && rc == 0; optind++)
		if (add_arg(&ds, argv[optind]) < 0)
			rc = 2;
	used = calloc(ds.n ? ds.n : 1, 1);
	if (!used) {
		fprintf(stderr, "mpipredict-collect: out of memory\n");
		rc = 2;
	}
	for (i = 0; rc == 0 && i < ds.n; i++)
		if (!used[i] && merge_run(&ds, i, used, runs, print, &printed,
					  &last_header) < 0)
			rc = 2;
	free((char *)last_header);
	free(used);
	for (i = 0; i < ds.n; i++) {
		mpp_dump_free(&ds.d[i]);
		free(ds.path[i]);
	}
	free(ds.d);
	free(ds.path);
	return rc;
}
