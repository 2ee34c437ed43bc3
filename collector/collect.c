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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "collector/row.h"
#include "collector/runfile.h"

static const char usage[] =
    "usage: mpipredict-collect [--runs PATH] [--print] DUMP|DIR...\n"
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
    "  --help       this text\n"
    "  --version    print the version\n"
    "\n"
    "Exit status: 0 done, 1 usage error, 2 bad or incomplete dumps, or the\n"
    "row could not be written.\n";

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

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"runs", required_argument, NULL, 'r'},
	    {"print", no_argument, NULL, 'p'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {NULL, 0, NULL, 0},
	};
	const char *runs = getenv("MPIPREDICT_RUNS"), *last_header = NULL;
	struct dumps ds = {0};
	int c, print = 0, printed = 0, rc = 0;
	char *used;
	size_t i;

	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (c) {
		case 'r':
			runs = optarg;
			break;
		case 'p':
			print = 1;
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
