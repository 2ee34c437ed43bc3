/*
 * cc_main.c: mpipredict-cc, the compiler wrapper.
 *
 *   mpipredict-cc [--app NAME] <compiler> [compiler args...]
 *
 * Instruments every C source on the command line into a private temporary
 * directory, runs the compiler on the rewritten files with the user's own
 * flags (plus `-iquote <source dir>` so that `#include "local.h"` still
 * resolves; when the sources come from several directories, one compiler
 * run per source, each with its own), rewrites the dependency files the
 * compiler wrote (-MD/-MMD) so that they name the original source, and when the
 * command links adds
 * `-L<libdir> -Wl,-rpath,<libdir> -lmpipredict` (not as-needed: the units
 * reference the runtime weakly, see collector/mpp_abi.h). libdir is
 * $MPIPREDICT_LIBDIR, else <directory of this program>/../lib.
 *
 * --app NAME is the build's default app name, carried by every unit it
 * instruments (see collector/mpp_abi.h for when it applies).
 *
 * A source that clang cannot parse is compiled unchanged, with its
 * diagnostics and a note on stderr, so that the build goes on.
 * MPIPREDICT_DISABLE=1 runs the compiler untouched. Feature names use
 * mpp_feature_file() (rewrite.h): MPIPREDICT_SRCROOT sets their root.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "instrument/flags.h"
#include "instrument/rewrite.h"

static void usage(FILE *f)
{
	fputs(
	    "usage: mpipredict-cc [--app NAME] <compiler> [compiler args...]\n"
	    "       mpipredict-<compiler> [--app NAME] [compiler args...]\n"
	    "Compile and link like <compiler>, instrumenting every C source\n"
	    "for mpipredict and linking the runtime (-lmpipredict). Use it as\n"
	    "CC=mpipredict-mpicc (or CC=\"mpipredict-cc mpicc\") in a "
	    "Makefile.\n"
	    "Invoked as mpipredict-<compiler> (mpipredict-mpicc, -mpicxx, or\n"
	    "any symbolic link to this program named so), the compiler is\n"
	    "<compiler>, or $MPIPREDICT_CC when set, and every argument goes\n"
	    "to it (--version and --help too); --mpipredict-help and\n"
	    "--mpipredict-version are then this program's.\n"
	    "  --app NAME  the build's application name: the runs' app unless\n"
	    "              MPIPREDICT_APP is set\n"
	    "Environment: MPIPREDICT_LIBDIR (where libmpipredict is; default\n"
	    "<this program's dir>/../lib), MPIPREDICT_SRCROOT (feature names\n"
	    "are file paths relative to it; default: the highest directory\n"
	    "with a build file above the source), MPIPREDICT_DISABLE=1 (run "
	    "the\n"
	    "compiler untouched).\n"
	    "Exit status: the compiler's; 1 on a usage error.\n",
	    f);
}

/* Options whose value is the next argument. */
static int takes_value(const char *a)
{
	static const char *const v[] = {
	    "-o",
	    "-MF",
	    "-MT",
	    "-MQ",
	    "-I",
	    "-D",
	    "-U",
	    "-include",
	    "-imacros",
	    "-isystem",
	    "-iquote",
	    "-idirafter",
	    "-x",
	    "-L",
	    "-l",
	    "-Xlinker",
	    "-Xpreprocessor",
	    "-Xassembler",
	    "-T",
	    "-u",
	    "-z",
	    "-aux-info",
	    "-isysroot",
	    "-e",
	};
	for (size_t i = 0; i < sizeof(v) / sizeof(*v); i++)
		if (strcmp(a, v[i]) == 0)
			return 1;
	return 0;
}

/* C and C++ sources, by the suffixes gcc and clang know. */
static int is_c_source(const char *a)
{
	static const char *const ext[] = {".c",   ".cc", ".cpp", ".cxx",
					  ".c++", ".C",  ".cp"};
	size_t n = strlen(a);
	for (size_t i = 0; a[0] != '-' && i < sizeof(ext) / sizeof(*ext); i++)
		if (n > strlen(ext[i]) &&
		    strcmp(a + n - strlen(ext[i]), ext[i]) == 0)
			return 1;
	return 0;
}

static int run(char **argv)
{
	pid_t pid = fork();
	if (pid < 0) {
		perror("mpipredict-cc: fork");
		return 1;
	}
	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "mpipredict-cc: %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The feature file names and --app names of the instrumented units among
 * a link's inputs (objects and archives: the marker codegen.c puts in
 * each unit, "<file>\t<app>"). One line on stderr for a file name two
 * units share (their features are told apart by build id at run time,
 * collector/README.md, which says nothing), and one when the units carry
 * different --app names (the run takes the first file's): the build says
 * it, once, so that the program's output stays the plain build's
 * (issue 34). */
static void say_unit_names(char *const *v)
{
	static const char mark[] = "\nmpp-unit\t";
	char **names = NULL;
	size_t n = 0, cap = 0;
	for (; *v; v++) {
		const char *a = *v;
		size_t l = strlen(a);
		struct stat st;
		if (strcmp(a, "-o") == 0 && v[1]) {
			v++; /* the output, not an input */
			continue;
		}
		if (a[0] == '-' || l < 3 ||
		    (strcmp(a + l - 2, ".o") && strcmp(a + l - 2, ".a")))
			continue;
		int fd = open(a, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		char *m = fstat(fd, &st) == 0 && st.st_size > 0
			      ? mmap(NULL, (size_t)st.st_size, PROT_READ,
				     MAP_PRIVATE, fd, 0)
			      : MAP_FAILED;
		close(fd);
		if (m == MAP_FAILED)
			continue;
		const char *p = m, *end = m + st.st_size;
		while ((
		    p = memmem(p, (size_t)(end - p), mark, sizeof(mark) - 1))) {
			p += sizeof(mark) - 1;
			const char *e = memchr(p, '\n', (size_t)(end - p));
			if (!e)
				break;
			if (n == cap) {
				size_t c = cap ? 2 * cap : 16;
				char **nv = realloc(names, c * sizeof(*nv));
				if (!nv)
					break;
				names = nv;
				cap = c;
			}
			if (!(names[n] = strndup(p, (size_t)(e - p))))
				break;
			n++;
			p = e;
		}
		munmap(m, (size_t)st.st_size);
	}
	if (n)
		qsort(names, n, sizeof(*names), cmp_str);
	/* Split each at its last tab: file name, app name. */
	const char **apps = calloc(n ? n : 1, sizeof(*apps));
	for (size_t i = 0; apps && i < n; i++) {
		char *t = strrchr(names[i], '\t');
		apps[i] = t ? (*t = 0, t + 1) : "";
	}
	for (size_t i = 0; i + 1 < n; i++)
		if (strcmp(names[i], names[i + 1]) == 0 &&
		    (i == 0 || strcmp(names[i - 1], names[i]) != 0))
			fprintf(stderr,
				"mpipredict-cc: two instrumented files are "
				"both named %s; their features are told apart "
				"by build id; set MPIPREDICT_SRCROOT to the "
				"project's top when building for stable "
				"names\n",
				names[i]);
	const char *a = NULL, *b = NULL;
	for (size_t i = 0; apps && i < n && !b; i++)
		if (!*apps[i])
			continue;
		else if (!a)
			a = apps[i];
		else if (strcmp(a, apps[i]))
			b = apps[i];
	if (b)
		fprintf(stderr,
			"mpipredict-cc: the program's files were instrumented "
			"with different --app names (%s, %s); its runs use %s "
			"(the first file's by name); build every file with one "
			"--app, or set MPIPREDICT_APP when running\n",
			a, b, a);
	free(apps);
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Replaces every occurrence of `from` by `to` in file `path`, if it exists
 * and contains it. */
static void replace_in_file(const char *path, const char *from, const char *to)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return;
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	char chunk[8192];
	size_t n;
	while (m && (n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, n, m);
	fclose(f);
	if (!m || fclose(m) != 0 || !strstr(buf, from)) {
		free(buf);
		return;
	}
	f = fopen(path, "wb");
	if (f) {
		size_t fl = strlen(from);
		for (char *p = buf, *q; *p; p = q + fl) {
			q = strstr(p, from);
			if (!q) {
				fputs(p, f);
				break;
			}
			fwrite(p, 1, (size_t)(q - p), f);
			fputs(to, f);
		}
		fclose(f);
	}
	free(buf);
}

/* `path` with its suffix replaced by `suffix`. */
static char *with_suffix(const char *path, const char *suffix)
{
	const char *slash = strrchr(path, '/'), *dot = strrchr(path, '.');
	size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - path)
						     : strlen(path);
	char *s;
	return asprintf(&s, "%.*s%s", (int)stem, path, suffix) < 0 ? NULL : s;
}

/* Fixes the dependency files the compiler may have written for a source
 * `orig` compiled from a copy: wherever gcc puts them (-MF, next to -o, or
 * in the current directory), they must name `to` (an original) where they
 * name `from` (its copy: the source's or a header's). */
static void fix_deps_of(const char *mf, const char *o, const char *orig,
			const char *from, const char *to)
{
	char *cand[4] = {0};
	int n = 0;
	if (mf)
		cand[n++] = strdup(mf);
	if (o) {
		cand[n++] = with_suffix(o, ".d");
		char *src_d = with_suffix(
		    strrchr(orig, '/') ? strrchr(orig, '/') + 1 : orig, "");
		char *o_stem = with_suffix(o, "");
		char *s;
		if (src_d && o_stem &&
		    asprintf(&s, "%s-%s.d", o_stem, src_d) >= 0)
			cand[n++] = s;
		free(src_d);
		free(o_stem);
	}
	const char *b = strrchr(orig, '/');
	cand[n++] = with_suffix(b ? b + 1 : orig, ".d");
	for (int i = 0; i < n; i++) {
		if (cand[i])
			replace_in_file(cand[i], from, to);
		free(cand[i]);
	}
}

/* <dir of this program>/../lib, or $MPIPREDICT_LIBDIR. */
static void fix_deps(const char *mf, const char *o, const char *orig,
		     const char *tmp)
{
	fix_deps_of(mf, o, orig, tmp, orig);
}

/* Writes the copies of a unit's headers under hdir (hdir/<key>/<name>).
 * Returns 0 or -1 (with one line on stderr). */
static int write_headers(const struct mpp_headers *hs, const char *hdir)
{
	if (hs->n && mkdir(hdir, 0700) < 0 && errno != EEXIST)
		goto fail;
	for (size_t k = 0; k < hs->n; k++) {
		char *d = strdup(hs->v[k].path);
		if (!d)
			goto fail;
		int m = mkdir(dirname(d), 0700);
		free(d);
		if (m < 0 && errno != EEXIST)
			goto fail;
		FILE *f = fopen(hs->v[k].path, "wb");
		if (!f)
			goto fail;
		size_t w = fwrite(hs->v[k].text, 1, hs->v[k].len, f);
		if (fclose(f) != 0 || w != hs->v[k].len)
			goto fail;
	}
	return 0;
fail:
	fprintf(stderr, "mpipredict-cc: %s: cannot write header copies: %s\n",
		hdir, strerror(errno));
	return -1;
}

static void remove_headers(const struct mpp_headers *hs)
{
	for (size_t k = 0; k < hs->n; k++) {
		unlink(hs->v[k].path);
		char *d = strdup(hs->v[k].path);
		if (d) {
			rmdir(dirname(d));
			char *up = dirname(d);
			rmdir(up); /* hdir, once empty */
		}
		free(d);
	}
}

static char *lib_dir(void)
{
	const char *env = getenv("MPIPREDICT_LIBDIR");
	if (env && *env)
		return strdup(env);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return strdup("/usr/local/lib");
	exe[n] = 0;
	char *s, real[PATH_MAX];
	if (asprintf(&s, "%s/../lib", dirname(exe)) < 0)
		return NULL;
	if (realpath(s, real)) {
		free(s);
		s = strdup(real);
	}
	return s;
}

static int oom(const char *what)
{
	fprintf(stderr, "mpipredict-cc: out of memory (%s)\n", what);
	return 1;
}

/* Dependency flags, with how many arguments each takes. */
static int dep_flag(const char *a)
{
	if (!strcmp(a, "-MD") || !strcmp(a, "-MMD") || !strcmp(a, "-MP"))
		return 1;
	if (!strcmp(a, "-MF") || !strcmp(a, "-MT") || !strcmp(a, "-MQ"))
		return 2;
	return 0;
}

/* Linker-only arguments (with how many arguments each takes), which a
 * compile-only run of the same command leaves out. */
static int link_flag(const char *a)
{
	if (!strcmp(a, "-o") || !strcmp(a, "-l") || !strcmp(a, "-L") ||
	    !strcmp(a, "-Xlinker") || !strcmp(a, "-T") || !strcmp(a, "-u") ||
	    !strcmp(a, "-z") || !strcmp(a, "-e"))
		return 2;
	if (!strncmp(a, "-l", 2) || !strncmp(a, "-L", 2) ||
	    !strncmp(a, "-Wl,", 4))
		return 1;
	return 0;
}

/* Runs `compiler` on the user's arguments with the rewritten copies in
 * place of the sources (tmp_of) and objects in place of the sources they
 * were compiled to (obj_of). only >= 0: just input args[only], every
 * other input left out, and with `alone` (a source compiled apart from a
 * command that links) `-c -o obj_of[only]`, the linker and dependency
 * flags left out. quote: the -iquote directory to add, if any. link: add
 * the runtime library. Returns the compiler's exit status. */
static int compile(const char *compiler, char **args, int nargs, char **tmp_of,
		   char **obj_of, int only, const char *quote, int link,
		   int alone)
{
	struct mpp_argv cmd = {0};
	int bad = mpp_argv_push(&cmd, compiler) < 0;
	if (quote && !bad)
		bad = mpp_argv_push(&cmd, "-iquote") < 0 ||
		      mpp_argv_push(&cmd, quote) < 0;
	for (int i = 0; i < nargs && !bad; i++) {
		const char *a = args[i];
		int skip = 0;
		if (alone &&
		    (skip = dep_flag(a) ? dep_flag(a) : link_flag(a))) {
			i += skip - 1;
			continue;
		}
		if (takes_value(a)) {
			bad = mpp_argv_push(&cmd, a) < 0 ||
			      (i + 1 < nargs &&
			       mpp_argv_push(&cmd, args[i + 1]) < 0);
			i++;
			continue;
		}
		if (a[0] != '-' && only >= 0 && i != only)
			continue; /* another input */
		if (a[0] != '-' && alone)
			continue; /* added below, after -c */
		bad = mpp_argv_push(&cmd, obj_of[i]   ? obj_of[i]
					  : tmp_of[i] ? tmp_of[i]
						      : a) < 0;
	}
	if (alone && !bad)
		bad = mpp_argv_push(&cmd, "-c") < 0 ||
		      mpp_argv_push(&cmd, tmp_of[only]) < 0 ||
		      mpp_argv_push(&cmd, "-o") < 0 ||
		      mpp_argv_push(&cmd, obj_of[only]) < 0;
	if (link && !bad) {
		char *lib = lib_dir(), *l = NULL, *rp = NULL;
		bad = !lib || asprintf(&l, "-L%s", lib) < 0 ||
		      asprintf(&rp, "-Wl,-rpath,%s", lib) < 0 ||
		      mpp_argv_push(&cmd, l) < 0 ||
		      mpp_argv_push(&cmd, rp) < 0 ||
		      mpp_argv_push(&cmd, "-Wl,--push-state,--no-as-needed") <
			  0 ||
		      mpp_argv_push(&cmd, "-lmpipredict") < 0 ||
		      mpp_argv_push(&cmd, "-Wl,--pop-state") < 0;
		free(lib);
		free(l);
		free(rp);
	}
	int rc = bad ? oom("the compiler command") : run(cmd.v);
	if (link && !bad && rc == 0)
		say_unit_names(cmd.v);
	mpp_argv_free(&cmd);
	return rc;
}

/* The compiler a wrapper named `mpipredict-<compiler>` stands for:
 * $MPIPREDICT_CC when set, else <compiler>; NULL for mpipredict-cc itself
 * (its first argument names the compiler). */
static const char *named_compiler(const char *argv0)
{
	const char *b = strrchr(argv0, '/');
	b = b ? b + 1 : argv0;
	if (strncmp(b, "mpipredict-", 11) != 0 || !b[11] ||
	    strcmp(b + 11, "cc") == 0)
		return NULL;
	const char *env = getenv("MPIPREDICT_CC");
	return env && *env ? env : b + 11;
}

int main(int argc, char **argv)
{
	/* `mpipredict-mpicc ARGS` is `mpipredict-cc mpicc ARGS`: one word,
	 * for build systems that run `which $(CC)`, `$(CC) --version` or
	 * take CC as a path. Every argument goes to the compiler (also
	 * --version and --help, which configure and CMake ask the compiler);
	 * --mpipredict-help and --mpipredict-version are this program's. */
	const char *named = named_compiler(argv[0]);
	char **nargv = NULL;
	/* Each name is its own program to its user and to help2man: the
	 * version line and messages say mpipredict-mpicc when run so. */
	const char *prog = named ? strrchr(argv[0], '/') : NULL;
	prog = named ? (prog ? prog + 1 : argv[0]) : "mpipredict-cc";
	if (argc > 1 && strcmp(argv[1], "--mpipredict-help") == 0) {
		usage(stdout);
		return 0;
	}
	if (argc > 1 && strcmp(argv[1], "--mpipredict-version") == 0) {
		printf("%s %s\n", prog, MPP_VERSION);
		return 0;
	}
	if (named) {
		int app_given =
		    argc > 1 && strcmp(argv[1], "--app") == 0 ? 2 : 0;
		if (app_given && (argc < 3 || !argv[2][0])) {
			fprintf(stderr,
				"%s: --app needs a name (see "
				"--mpipredict-help)\n",
				prog);
			return 1;
		}
		nargv = calloc((size_t)argc + 2, sizeof(*nargv));
		if (!nargv)
			return oom("the argument list");
		int n = 0;
		nargv[n++] = argv[0];
		for (int i = 1; i <= app_given; i++)
			nargv[n++] = argv[i];
		nargv[n++] = (char *)named;
		for (int i = 1 + app_given; i < argc; i++)
			nargv[n++] = argv[i];
		argv = nargv;
		argc = n;
	}
	if (argc < 2) {
		fprintf(stderr,
			"mpipredict-cc: no compiler given (see --help)\n");
		return 1;
	}
	if (!named &&
	    (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		usage(stdout);
		return 0;
	}
	if (!named && strcmp(argv[1], "--version") == 0) {
		printf("mpipredict-cc %s\n", MPP_VERSION);
		return 0;
	}
	const char *app = NULL;
	if (strcmp(argv[1], "--app") == 0) {
		if (argc < 4 || !argv[2][0]) {
			fprintf(stderr, "mpipredict-cc: --app needs a name and "
					"then the compiler (see --help)\n");
			return 1;
		}
		app = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argv[1][0] == '-') {
		fprintf(stderr,
			"mpipredict-cc: unknown option '%s': the first "
			"argument is the compiler (see --help)\n",
			argv[1]);
		return 1;
	}
	const char *disable = getenv("MPIPREDICT_DISABLE");
	if (disable && strcmp(disable, "1") == 0) {
		execvp(argv[1], argv + 1);
		fprintf(stderr, "mpipredict-cc: %s: %s\n", argv[1],
			strerror(errno));
		return 127;
	}

	char **args = argv + 2;
	int nargs = argc - 2;
	int link = 1, instrument = 1, deps = 0;
	const char *mf = NULL, *o = NULL;
	for (int i = 0; i < nargs; i++) {
		const char *a = args[i];
		if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-E") ||
		    !strcmp(a, "-M") || !strcmp(a, "-MM"))
			link = 0;
		if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM") ||
		    !strcmp(a, "-x") || !strncmp(a, "-x", 2))
			instrument = 0;
		if (!strcmp(a, "-MD") || !strcmp(a, "-MMD"))
			deps = 1;
		if (!strcmp(a, "-MF") && i + 1 < nargs)
			mf = args[i + 1];
		if (!strcmp(a, "-o") && i + 1 < nargs)
			o = args[i + 1];
		if (takes_value(a))
			i++;
	}

	struct mpp_argv clang = {0};
	char **tmp_of = calloc((size_t)nargs + 1, sizeof(*tmp_of));
	char **dir_of = calloc((size_t)nargs + 1, sizeof(*dir_of));
	struct mpp_headers *hdr_of = calloc((size_t)nargs + 1, sizeof(*hdr_of));
	char tmpdir[PATH_MAX] = "";
	int nsrc = 0;
	if (!tmp_of || !dir_of || !hdr_of)
		return oom("the argument list");
	for (int i = 0; i < nargs && instrument; i++) {
		if (takes_value(args[i])) {
			i++;
			continue;
		}
		if (!is_c_source(args[i]))
			continue;
		if (!clang.v &&
		    (mpp_flags_mpi(&clang, argv[1]) < 0 ||
		     mpp_flags_filter(&clang, args, nargs, NULL) < 0 ||
		     mpp_argv_push(&clang, "-Wno-everything") < 0))
			return oom("the parse flags");
		if (!tmpdir[0]) {
			const char *t = getenv("TMPDIR");
			snprintf(tmpdir, sizeof(tmpdir), "%s/mpp-cc.XXXXXX",
				 t && *t ? t : "/tmp");
			if (!mkdtemp(tmpdir)) {
				fprintf(stderr, "mpipredict-cc: %s: %s\n",
					tmpdir, strerror(errno));
				return 1;
			}
		}
		const char *display = args[i];
		while (display[0] == '.' && display[1] == '/')
			display += 2;
		char *name = mpp_feature_file(args[i]);
		if (!name)
			return oom(args[i]);
		struct mpp_rewrite rw;
		char err[PATH_MAX + 256], hdir[PATH_MAX + 32];
		char rtmp[PATH_MAX];
		snprintf(hdir, sizeof(hdir), "%s/%d/h",
			 realpath(tmpdir, rtmp) ? rtmp : tmpdir, nsrc);
		int r = mpp_rewrite_file(args[i], display, name, app, hdir,
					 (const char *const *)clang.v, clang.n,
					 &rw, err, sizeof(err));
		free(name);
		for (size_t k = 0; k < rw.nnotes; k++)
			fprintf(stderr, "%s\n", rw.notes[k]);
		if (r == 1)
			fprintf(
			    stderr,
			    "%smpipredict-cc: %s: not instrumented: "
			    "clang cannot parse it; compiling it unchanged\n",
			    rw.diag ? rw.diag : "", args[i]);
		else if (r < 0)
			fprintf(stderr,
				"mpipredict-cc: %s; compiling it "
				"unchanged\n",
				err);
		if (r == 0) {
			const char *b = strrchr(args[i], '/');
			char dir[PATH_MAX], path[2 * PATH_MAX];
			snprintf(dir, sizeof(dir), "%.*s/%d", PATH_MAX - 16,
				 tmpdir, nsrc++);
			snprintf(path, sizeof(path), "%s/%s", dir,
				 b ? b + 1 : args[i]);
			FILE *f = NULL;
			if (mkdir(dir, 0700) == 0 && (f = fopen(path, "wb"))) {
				size_t w = fwrite(rw.text, 1, rw.len, f);
				if (fclose(f) == 0 && w == rw.len)
					tmp_of[i] = strdup(path);
			}
			if (tmp_of[i] && write_headers(&rw.headers, hdir) < 0) {
				unlink(tmp_of[i]);
				free(tmp_of[i]);
				tmp_of[i] = NULL;
			}
			if (tmp_of[i]) {
				hdr_of[i] = rw.headers;
				memset(&rw.headers, 0, sizeof(rw.headers));
			}
			if (!tmp_of[i])
				fprintf(stderr,
					"mpipredict-cc: %s: cannot write "
					"its instrumented copy; compiling it "
					"unchanged\n",
					path);
			char *sd = strdup(args[i]);
			if (!sd ||
			    (tmp_of[i] && !(dir_of[i] = strdup(dirname(sd)))))
				return oom(args[i]);
			free(sd);
		}
		mpp_rewrite_free(&rw);
	}

	/* #include "x.h" in a rewritten copy must find what it found next to
	 * the original: `-iquote <its directory>`, for that file only. One
	 * command when every rewritten file comes from one directory; else one
	 * compiler run per file. */
	const char *dir1 = NULL;
	int split = 0;
	for (int i = 0; i < nargs; i++) {
		if (!dir_of[i])
			continue;
		if (dir1 && strcmp(dir1, dir_of[i]) != 0)
			split = 1;
		dir1 = dir1 ? dir1 : dir_of[i];
	}
	char **obj_of = calloc((size_t)nargs + 1, sizeof(*obj_of));
	if (!obj_of)
		return oom("the argument list");
	int rc = 0;
	if (!split) {
		rc = compile(argv[1], args, nargs, tmp_of, obj_of, -1, dir1,
			     link, 0);
	} else if (!link) {
		for (int i = 0; i < nargs; i++) {
			if (takes_value(args[i])) {
				i++;
				continue;
			}
			if (args[i][0] == '-')
				continue;
			int r = compile(argv[1], args, nargs, tmp_of, obj_of, i,
					dir_of[i], 0, 0);
			rc = rc ? rc : r;
		}
	} else {
		/* Each rewritten source to an object of its own, then the
		 * link with the objects in their places. The dependency
		 * flags are dropped: gcc would write no file a make could
		 * use for such a command anyway. */
		for (int i = 0; i < nargs && rc == 0; i++) {
			if (!tmp_of[i])
				continue;
			char *obj = with_suffix(tmp_of[i], ".o");
			if (!obj)
				return oom(args[i]);
			obj_of[i] = obj;
			rc = compile(argv[1], args, nargs, tmp_of, obj_of, i,
				     dir_of[i], 0, 1);
		}
		if (rc == 0)
			rc = compile(argv[1], args, nargs, tmp_of, obj_of, -1,
				     NULL, 1, 0);
	}

	for (int i = 0; i < nargs; i++) {
		if (obj_of[i]) {
			unlink(obj_of[i]);
			free(obj_of[i]);
		}
		if (!tmp_of[i])
			continue;
		struct mpp_headers *hs = &hdr_of[i];
		if (deps && !split)
			fix_deps(mf, o, args[i], tmp_of[i]);
		else if (deps && !link)
			fix_deps(NULL, NULL, args[i], tmp_of[i]);
		for (size_t k = 0; k < hs->n; k++) {
			if (deps && !split)
				fix_deps_of(mf, o, args[i], hs->v[k].path,
					    hs->v[k].orig);
			else if (deps && !link)
				fix_deps_of(NULL, NULL, args[i], hs->v[k].path,
					    hs->v[k].orig);
		}
		remove_headers(hs);
		mpp_headers_free(hs);
		unlink(tmp_of[i]);
		char *d = dirname(tmp_of[i]);
		rmdir(d);
		free(tmp_of[i]);
		free(dir_of[i]);
	}
	if (tmpdir[0])
		rmdir(tmpdir);
	free(tmp_of);
	free(dir_of);
	free(hdr_of);
	free(obj_of);
	mpp_argv_free(&clang);
	free(nargv);
	return rc;
}
