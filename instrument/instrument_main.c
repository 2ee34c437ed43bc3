/*
 * instrument_main.c: mpipredict-instrument, the command-line rewriter.
 *
 *   mpipredict-instrument [-o DIR] [-p BUILD_DIR] [--app NAME] FILE.c...
 *                         [-- CFLAGS...]
 *
 * Rewrites each FILE.c into DIR/<its basename> and writes DIR/features.tsv.
 * All files are rewritten in memory first; nothing is written unless every
 * file parses cleanly.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "instrument/codegen.h"
#include "instrument/flags.h"
#include "instrument/rewrite.h"

/* True if header copy k of file i was already made by an earlier file
 * (the same key: the same rewrite of the same header). */
static int seen_header(const struct mpp_rewrite *out, int i, size_t k)
{
	const char *key = out[i].headers.v[k].key;
	for (int j = 0; j <= i; j++)
		for (size_t m = 0; m < out[j].headers.n; m++) {
			if (j == i && m == k)
				return 0;
			if (strcmp(out[j].headers.v[m].key, key) == 0)
				return 1;
		}
	return 0;
}

static void usage(FILE *f)
{
	fputs(
	    "usage: mpipredict-instrument [-o DIR] [-p BUILD_DIR] [--app NAME]"
	    " FILE.c... [-- CFLAGS...]\n"
	    "Rewrite C sources so that every run counts loop iterations,\n"
	    "branches taken and MPI calls per call site (link the result\n"
	    "with -lmpipredict).\n"
	    "  -o DIR        write rewritten files and features.tsv here\n"
	    "                (default: mpipredict-instrumented)\n"
	    "  -p BUILD_DIR  take each file's flags from\n"
	    "                BUILD_DIR/compile_commands.json\n"
	    "  --app NAME    the build's application name: the runs' app\n"
	    "                unless MPIPREDICT_APP is set (also noted in\n"
	    "                features.tsv)\n"
	    "  -- CFLAGS     compiler flags (-I, -D, -std=, -fopenmp ...)\n"
	    "The MPI include flags come from $MPICC (default mpicc). Feature\n"
	    "names hold the file's path relative to $MPIPREDICT_SRCROOT, else\n"
	    "to the highest directory with a build file above it.\n"
	    "Headers (.h ...) are refused: their code is rewritten as part of\n"
	    "no file; give the .c files.\n"
	    "Exit status: 0 done, 1 usage error, 2 a file could not be read,\n"
	    "is a header or does not parse cleanly (nothing is written "
	    "then).\n",
	    f);
}

/* True if `path` names a header (by its suffix). */
static int is_header(const char *path)
{
	static const char *const sfx[] = {".h",   ".hh", ".hpp", ".hxx",
					  ".h++", ".H",  ".inc", ".tcc"};
	size_t n = strlen(path);
	for (size_t i = 0; i < sizeof(sfx) / sizeof(*sfx); i++) {
		size_t k = strlen(sfx[i]);
		if (n > k && strcmp(path + n - k, sfx[i]) == 0)
			return 1;
	}
	return 0;
}

/* Writes `len` bytes to `path` through a temporary file and rename. */
static int write_file(const char *path, const char *data, size_t len)
{
	char tmp[PATH_MAX];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	FILE *f = fopen(tmp, "wb");
	if (!f)
		return -1;
	size_t w = fwrite(data, 1, len, f);
	if (fclose(f) != 0 || w != len || rename(tmp, path) != 0) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

static const char *base_name(const char *p)
{
	const char *b = strrchr(p, '/');
	return b ? b + 1 : p;
}

/* The name used in notes and #line: the path as given, without "./".
 * (Feature names use mpp_feature_file.) */
static const char *display_name(const char *p)
{
	while (p[0] == '.' && p[1] == '/')
		p += 2;
	return p;
}

static int oom(const char *what)
{
	fprintf(stderr, "mpipredict-instrument: out of memory (%s)\n", what);
	return 2;
}

int main(int argc, char **argv)
{
	const char *outdir = "mpipredict-instrumented", *builddir = NULL,
		   *app = NULL;
	char **files = calloc((size_t)argc, sizeof(*files));
	int nfiles = 0, ncflags = 0;
	char **cflags = NULL;
	if (!files)
		return oom("the file list");
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			cflags = argv + i + 1;
			ncflags = argc - i - 1;
			break;
		} else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
			usage(stdout);
			free(files);
			return 0;
		} else if (strcmp(a, "--version") == 0) {
			printf("mpipredict-instrument %s\n", MPP_VERSION);
			free(files);
			return 0;
		} else if (strcmp(a, "-o") == 0 || strcmp(a, "-p") == 0 ||
			   strcmp(a, "--app") == 0) {
			if (i + 1 >= argc) {
				fprintf(stderr,
					"mpipredict-instrument: %s needs "
					"a value (see --help)\n",
					a);
				free(files);
				return 1;
			}
			const char *v = argv[++i];
			if (a[1] == 'o')
				outdir = v;
			else if (a[1] == 'p')
				builddir = v;
			else
				app = v;
		} else if (a[0] == '-') {
			fprintf(stderr,
				"mpipredict-instrument: unknown option "
				"'%s' (see --help)\n",
				a);
			free(files);
			return 1;
		} else {
			files[nfiles++] = argv[i];
		}
	}
	if (nfiles == 0) {
		fprintf(stderr, "mpipredict-instrument: no input file (see "
				"--help)\n");
		free(files);
		return 1;
	}
	for (int i = 0; i < nfiles; i++)
		if (is_header(files[i])) {
			/* Rewriting a header would define the counter
			 * tables in every .c that includes it. */
			fprintf(stderr,
				"mpipredict-instrument: %s: a header, not a C "
				"source; give the .c files that include it\n",
				files[i]);
			free(files);
			return 2;
		}
	for (int i = 0; i < nfiles; i++)
		for (int j = 0; j < i; j++)
			if (strcmp(base_name(files[i]), base_name(files[j])) ==
			    0) {
				fprintf(stderr,
					"mpipredict-instrument: %s and %s"
					" would both be written to %s/%s\n",
					files[j], files[i], outdir,
					base_name(files[i]));
				free(files);
				return 2;
			}

	/* Flags from the command line, plus the MPI wrapper's. */
	struct mpp_argv common = {0};
	const char *mpicc = getenv("MPICC");
	if (mpp_flags_mpi(&common, mpicc && *mpicc ? mpicc : "mpicc") < 0 ||
	    mpp_flags_filter(&common, cflags, ncflags, NULL) < 0)
		return oom("the parse flags");

	/* Copies of the project headers go to DIR/mpp-headers/<key>/, named
	 * by absolute path in the rewritten files. */
	char hdir[2 * PATH_MAX + 32], cwd[PATH_MAX];
	if (outdir[0] == '/')
		snprintf(hdir, sizeof(hdir), "%s/mpp-headers", outdir);
	else if (getcwd(cwd, sizeof(cwd)))
		snprintf(hdir, sizeof(hdir), "%s/%s/mpp-headers", cwd, outdir);
	else
		return oom("the current directory");

	struct mpp_rewrite *out = calloc((size_t)nfiles, sizeof(*out));
	if (!out)
		return oom("the rewritten files");
	int status = 0;
	char err[PATH_MAX + 256];
	for (int i = 0; i < nfiles && status == 0; i++) {
		struct mpp_argv args = {0};
		const struct mpp_argv *use = &common;
		if (builddir) {
			char abs[PATH_MAX];
			if (!realpath(files[i], abs)) {
				fprintf(stderr,
					"mpipredict-instrument: %s: %s\n",
					files[i], strerror(errno));
				status = 2;
				break;
			}
			int r = mpp_flags_compdb(&args, builddir, abs, err,
						 sizeof(err));
			if (r < 0) {
				fprintf(stderr, "mpipredict-instrument: %s\n",
					err);
				status = 2;
				break;
			}
			if (r == 0)
				use = &args;
			else
				fprintf(stderr,
					"mpipredict-instrument: %s: not "
					"in %s/compile_commands.json; using "
					"the command-line flags\n",
					files[i], builddir);
		}
		char *name = mpp_feature_file(files[i]);
		if (!name) {
			mpp_argv_free(&args);
			oom(files[i]);
			status = 2;
			break;
		}
		int r = mpp_rewrite_file(files[i], display_name(files[i]), name,
					 app, hdir, (const char *const *)use->v,
					 use->n, &out[i], err, sizeof(err));
		free(name);
		mpp_argv_free(&args);
		if (r == 1) {
			fputs(out[i].diag ? out[i].diag : "", stderr);
			fprintf(stderr,
				"mpipredict-instrument: %s: does not "
				"parse cleanly; nothing written\n",
				files[i]);
			status = 2;
		} else if (r < 0) {
			fprintf(stderr, "mpipredict-instrument: %s\n", err);
			status = 2;
		}
		for (size_t k = 0; k < out[i].nnotes; k++)
			fprintf(stderr, "%s\n", out[i].notes[k]);
	}

	if (status == 0 && mkdir(outdir, 0777) < 0 && errno != EEXIST) {
		fprintf(stderr, "mpipredict-instrument: %s: %s\n", outdir,
			strerror(errno));
		status = 2;
	}
	char *tsv = NULL;
	size_t tsvlen = 0;
	FILE *t = status == 0 ? open_memstream(&tsv, &tsvlen) : NULL;
	if (status == 0 && !t)
		status = oom("features.tsv");
	if (t) {
		if (app)
			fprintf(t, "# app: %s\n", app);
		fputs(mpp_features_header, t);
		for (int i = 0; i < nfiles; i++) {
			fwrite(out[i].features, 1, out[i].flen, t);
			/* A header's rows once, however many files include
			 * the same rewrite of it. */
			for (size_t k = 0; k < out[i].headers.n; k++)
				if (!seen_header(out, i, k))
					fwrite(out[i].headers.v[k].features, 1,
					       out[i].headers.v[k].flen, t);
		}
		fclose(t);
	}
	for (int i = 0; i < nfiles && status == 0; i++) {
		char path[PATH_MAX], a[PATH_MAX], b[PATH_MAX];
		snprintf(path, sizeof(path), "%s/%s", outdir,
			 base_name(files[i]));
		if (realpath(path, a) && realpath(files[i], b) &&
		    strcmp(a, b) == 0) {
			fprintf(stderr,
				"mpipredict-instrument: %s: would "
				"overwrite the original\n",
				files[i]);
			status = 2;
		} else if (write_file(path, out[i].text, out[i].len) < 0) {
			fprintf(stderr, "mpipredict-instrument: %s: %s\n", path,
				strerror(errno));
			status = 2;
		}
	}
	for (int i = 0; i < nfiles && status == 0; i++)
		for (size_t k = 0; k < out[i].headers.n && status == 0; k++) {
			const struct mpp_header_copy *c = &out[i].headers.v[k];
			if (seen_header(out, i, k))
				continue;
			char d[2 * PATH_MAX + 64];
			snprintf(d, sizeof(d), "%s/%s", hdir, c->key);
			if ((mkdir(hdir, 0777) < 0 && errno != EEXIST) ||
			    (mkdir(d, 0777) < 0 && errno != EEXIST) ||
			    write_file(c->path, c->text, c->len) < 0) {
				fprintf(stderr,
					"mpipredict-instrument: %s: %s\n",
					c->path, strerror(errno));
				status = 2;
			}
		}
	if (status == 0) {
		char path[PATH_MAX];
		snprintf(path, sizeof(path), "%s/features.tsv", outdir);
		if (!tsv || write_file(path, tsv, tsvlen) < 0) {
			fprintf(stderr,
				"mpipredict-instrument: %s: cannot "
				"write\n",
				path);
			status = 2;
		}
	}
	free(tsv);
	for (int i = 0; i < nfiles; i++)
		mpp_rewrite_free(&out[i]);
	free(out);
	free(files);
	mpp_argv_free(&common);
	return status;
}
