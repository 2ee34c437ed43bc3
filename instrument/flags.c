/*
 * flags.c: from a compiler command line to clang parse arguments (see
 * flags.h).
 */
#include "instrument/flags.h"

#include <clang-c/CXCompilationDatabase.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

int mpp_argv_push(struct mpp_argv *a, const char *s)
{
	if (a->n + 2 > a->cap) {
		int cap = a->cap ? a->cap * 2 : 32;
		char **v = realloc(a->v, (size_t)cap * sizeof(*v));
		if (!v)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	if (!(a->v[a->n] = strdup(s)))
		return -1;
	a->v[++a->n] = NULL;
	return 0;
}

void mpp_argv_free(struct mpp_argv *a)
{
	for (int i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}

/* Flags that take a value, joined (-Ifoo) or as the next argument. */
static const struct {
	const char *name;
	int is_path;
} valued[] = {
    {"-I", 1},       {"-D", 0},       {"-U", 0},
    {"-isystem", 1}, {"-iquote", 1},  {"-idirafter", 1},
    {"-include", 1}, {"-imacros", 1}, {"-isysroot", 1},
};

/* Flags kept as they are (exact or, ending in '=', as a prefix). */
static const char *const plain[] = {
    "-std=",         "-ansi",     "-m32",     "-m64",       "-funsigned-char",
    "-fsigned-char", "-nostdinc", "-pthread", "--sysroot=",
};

static int push_path(struct mpp_argv *out, const char *flag, const char *val,
		     int is_path, const char *dir)
{
	char *s;
	int r;
	if (is_path && dir && val[0] != '/')
		r = asprintf(&s, "%s%s/%s", flag, dir, val);
	else
		r = asprintf(&s, "%s%s", flag, val);
	if (r < 0)
		return -1;
	r = mpp_argv_push(out, s);
	free(s);
	return r;
}

int mpp_flags_filter(struct mpp_argv *out, char *const *args, int nargs,
		     const char *dir)
{
	for (int i = 0; i < nargs; i++) {
		const char *a = args[i];
		int done = 0;
		for (size_t k = 0; k < sizeof(valued) / sizeof(*valued); k++) {
			size_t l = strlen(valued[k].name);
			if (strncmp(a, valued[k].name, l) != 0)
				continue;
			const char *val = a + l;
			if (!*val) {
				if (i + 1 >= nargs)
					break;
				val = args[++i];
			} else if (l > 2) {
				continue; /* -isystemfoo: not our spelling */
			}
			if (push_path(out, valued[k].name, val,
				      valued[k].is_path, dir) < 0)
				return -1;
			done = 1;
			break;
		}
		if (done)
			continue;
		if (strcmp(a, "-fopenmp") == 0 ||
		    strncmp(a, "-fopenmp=", 9) == 0) {
			if (mpp_argv_push(out, "-D_OPENMP=201511") < 0)
				return -1;
			continue;
		}
		for (size_t k = 0; k < sizeof(plain) / sizeof(*plain); k++) {
			size_t l = strlen(plain[k]);
			int prefix = plain[k][l - 1] == '=';
			if (prefix ? strncmp(a, plain[k], l) == 0
				   : strcmp(a, plain[k]) == 0) {
				if (mpp_argv_push(out, a) < 0)
					return -1;
				break;
			}
		}
	}
	return 0;
}

/* Runs `compiler opt` (opt may hold redirections) and returns its stdout
 * (malloc'd) if it exits 0. */
static char *ask(const char *compiler, const char *opt)
{
	char *cmd = NULL, *quoted = malloc(4 * strlen(compiler) + 3), *q;
	if (!quoted)
		return NULL;
	q = quoted;
	*q++ = '\'';
	for (const char *c = compiler; *c; c++) {
		if (*c == '\'') {
			memcpy(q, "'\\''", 4);
			q += 4;
		} else {
			*q++ = *c;
		}
	}
	*q++ = '\'';
	*q = 0;
	int r = asprintf(&cmd, "%s %s </dev/null", quoted, opt);
	free(quoted);
	if (r < 0)
		return NULL;
	FILE *p = popen(cmd, "r");
	free(cmd);
	if (!p)
		return NULL;
	char *buf = NULL;
	size_t len = 0, cap = 0;
	int c;
	while ((c = fgetc(p)) != EOF) {
		if (len + 2 > cap) {
			cap = cap ? cap * 2 : 1024;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				pclose(p);
				return NULL;
			}
			buf = nb;
		}
		buf[len++] = (char)c;
	}
	int st = pclose(p);
	if (!buf || st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		free(buf);
		return NULL;
	}
	buf[len] = 0;
	return buf;
}

/* The include directories a compiler searches that are not the system's
 * own, from its `-E -v` report: what a wrapper script that knows neither
 * -showme nor -show adds. */
static int search_dirs(struct mpp_argv *out, const char *compiler)
{
	char *text = ask(compiler, "-E -v -x c /dev/null 2>&1 >/dev/null");
	if (!text)
		return 0;
	const char *flag = NULL;
	int r = 0;
	for (char *save, *l = strtok_r(text, "\n", &save); l && r == 0;
	     l = strtok_r(NULL, "\n", &save)) {
		if (strstr(l, "#include \"...\" search starts here"))
			flag = "-iquote";
		else if (strstr(l, "#include <...> search starts here"))
			flag = "-I";
		else if (strncmp(l, "End of search list", 18) == 0)
			flag = NULL;
		else if (flag && l[0] == ' ') {
			const char *d = l + 1;
			if (strncmp(d, "/usr/lib/gcc/", 13) == 0 ||
			    strcmp(d, "/usr/local/include") == 0 ||
			    strcmp(d, "/usr/include") == 0 ||
			    strcmp(d, "/usr/include/x86_64-linux-gnu") == 0 ||
			    strstr(d, "/clang/"))
				continue;
			r = push_path(out, flag, d, 0, NULL);
		}
	}
	free(text);
	return r;
}

int mpp_flags_mpi(struct mpp_argv *out, const char *compiler)
{
	char *text = ask(compiler, "-showme:compile 2>/dev/null");
	if (!text)
		text = ask(compiler, "-show 2>/dev/null");
	if (!text)
		return search_dirs(out, compiler);
	struct mpp_argv words = {0};
	int r = 0;
	for (char *save, *w = strtok_r(text, " \t\n", &save); w && r == 0;
	     w = strtok_r(NULL, " \t\n", &save))
		r = mpp_argv_push(&words, w);
	if (r == 0)
		r = mpp_flags_filter(out, words.v, words.n, NULL);
	mpp_argv_free(&words);
	free(text);
	return r;
}

int mpp_flags_compdb(struct mpp_argv *out, const char *build_dir,
		     const char *abs_src, char *err, size_t errlen)
{
	CXCompilationDatabase_Error e;
	CXCompilationDatabase db =
	    clang_CompilationDatabase_fromDirectory(build_dir, &e);
	if (e != CXCompilationDatabase_NoError || !db) {
		snprintf(err, errlen,
			 "%s/compile_commands.json: cannot be read", build_dir);
		return -1;
	}
	CXCompileCommands cmds =
	    clang_CompilationDatabase_getCompileCommands(db, abs_src);
	int r = 1;
	if (cmds && clang_CompileCommands_getSize(cmds) > 0) {
		CXCompileCommand cmd =
		    clang_CompileCommands_getCommand(cmds, 0);
		struct mpp_argv words = {0};
		unsigned n = clang_CompileCommand_getNumArgs(cmd);
		r = 0;
		for (unsigned i = 0; i < n && r == 0; i++) {
			CXString s = clang_CompileCommand_getArg(cmd, i);
			r = mpp_argv_push(&words, clang_getCString(s));
			clang_disposeString(s);
		}
		CXString dir = clang_CompileCommand_getDirectory(cmd);
		/* `mpipredict-cc mpicc ...`: the real compiler is second. */
		int first = 1;
		if (r == 0 && words.n > 1) {
			const char *b = strrchr(words.v[0], '/');
			b = b ? b + 1 : words.v[0];
			if (strcmp(b, "mpipredict-cc") == 0)
				first = 2;
		}
		if (r == 0 && words.n >= first)
			r = mpp_flags_mpi(out, words.v[first - 1]);
		if (r == 0)
			r = mpp_flags_filter(out, words.v + first,
					     words.n - first,
					     clang_getCString(dir));
		clang_disposeString(dir);
		mpp_argv_free(&words);
		if (r < 0)
			snprintf(err, errlen,
				 "%s: out of memory reading its entry in "
				 "%s/compile_commands.json",
				 abs_src, build_dir);
	}
	if (cmds)
		clang_CompileCommands_dispose(cmds);
	clang_CompilationDatabase_dispose(db);
	return r;
}
