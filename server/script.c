/*
 * script.c: find the MPI launch in a batch script (see script.h).
 *
 * Three steps: split the script into logical lines (joining backslash
 * continuations, skipping here-documents), read the `#SBATCH` and
 * `#MPIPREDICT` directives, and lex every other line into words and
 * operators with shell quoting rules; the first simple command whose
 * command word is a launcher is taken apart with the launcher's option
 * table, so that option values are never mistaken for the executable.
 */
#include "server/script.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "regress/model.h"
#include "regress/params.h"

enum role { R_NONE, R_NTASKS, R_NNODES, R_PER_NODE };

struct opt {
	const char *name; /* without its dashes */
	int nvals;        /* values that follow when not joined with '=' */
	int role;
};

/* srun's and sbatch's options that take a value (getopt style: "-n 4",
 * "-n4", "--ntasks 4", "--ntasks=4"); anything else is a flag. */
static const struct opt slurm_opts[] = {
    {"n", 1, R_NTASKS},
    {"ntasks", 1, R_NTASKS},
    {"N", 1, R_NNODES},
    {"nodes", 1, R_NNODES},
    {"ntasks-per-node", 1, R_PER_NODE},
    {"tasks-per-node", 1, R_PER_NODE},
    {"A", 1, 0},
    {"B", 1, 0},
    {"C", 1, 0},
    {"D", 1, 0},
    {"G", 1, 0},
    {"J", 1, 0},
    {"L", 1, 0},
    {"M", 1, 0},
    {"S", 1, 0},
    {"T", 1, 0},
    {"W", 1, 0},
    {"a", 1, 0},
    {"c", 1, 0},
    {"d", 1, 0},
    {"e", 1, 0},
    {"i", 1, 0},
    {"m", 1, 0},
    {"o", 1, 0},
    {"p", 1, 0},
    {"q", 1, 0},
    {"r", 1, 0},
    {"t", 1, 0},
    {"w", 1, 0},
    {"x", 1, 0},
    {"account", 1, 0},
    {"accel-bind", 1, 0},
    {"acctg-freq", 1, 0},
    {"array", 1, 0},
    {"begin", 1, 0},
    {"bb", 1, 0},
    {"bbf", 1, 0},
    {"chdir", 1, 0},
    {"clusters", 1, 0},
    {"comment", 1, 0},
    {"constraint", 1, 0},
    {"container", 1, 0},
    {"core-spec", 1, 0},
    {"cores-per-socket", 1, 0},
    {"cpu-bind", 1, 0},
    {"cpu-freq", 1, 0},
    {"cpus-per-gpu", 1, 0},
    {"cpus-per-task", 1, 0},
    {"deadline", 1, 0},
    {"delay-boot", 1, 0},
    {"dependency", 1, 0},
    {"distribution", 1, 0},
    {"epilog", 1, 0},
    {"error", 1, 0},
    {"exclude", 1, 0},
    {"export", 1, 0},
    {"extra-node-info", 1, 0},
    {"gid", 1, 0},
    {"gpu-bind", 1, 0},
    {"gpu-freq", 1, 0},
    {"gpus", 1, 0},
    {"gpus-per-node", 1, 0},
    {"gpus-per-socket", 1, 0},
    {"gpus-per-task", 1, 0},
    {"gres", 1, 0},
    {"gres-flags", 1, 0},
    {"het-group", 1, 0},
    {"hint", 1, 0},
    {"input", 1, 0},
    {"job-name", 1, 0},
    {"jobid", 1, 0},
    {"licenses", 1, 0},
    {"mail-type", 1, 0},
    {"mail-user", 1, 0},
    {"mcs-label", 1, 0},
    {"mem", 1, 0},
    {"mem-bind", 1, 0},
    {"mem-per-cpu", 1, 0},
    {"mem-per-gpu", 1, 0},
    {"mincpus", 1, 0},
    {"mpi", 1, 0},
    {"network", 1, 0},
    {"nodefile", 1, 0},
    {"nodelist", 1, 0},
    {"ntasks-per-core", 1, 0},
    {"ntasks-per-gpu", 1, 0},
    {"ntasks-per-socket", 1, 0},
    {"open-mode", 1, 0},
    {"output", 1, 0},
    {"partition", 1, 0},
    {"power", 1, 0},
    {"priority", 1, 0},
    {"profile", 1, 0},
    {"prolog", 1, 0},
    {"qos", 1, 0},
    {"relative", 1, 0},
    {"reservation", 1, 0},
    {"signal", 1, 0},
    {"sockets-per-node", 1, 0},
    {"switches", 1, 0},
    {"task-epilog", 1, 0},
    {"task-prolog", 1, 0},
    {"threads", 1, 0},
    {"threads-per-core", 1, 0},
    {"time", 1, 0},
    {"time-min", 1, 0},
    {"tmp", 1, 0},
    {"tres-per-task", 1, 0},
    {"uid", 1, 0},
    {"wait", 1, 0},
    {"wckey", 1, 0},
    {NULL, 0, 0},
};

/* mpirun's and mpiexec's options that take values, Open MPI's and MPICH
 * Hydra's together (both install both names). One or two dashes; values
 * follow as separate words. Open MPI's -N and Hydra's -ppn are processes
 * per node. */
static const struct opt mpi_opts[] = {
    {"n", 1, R_NTASKS},
    {"np", 1, R_NTASKS},
    {"c", 1, R_NTASKS},
    {"N", 1, R_PER_NODE},
    {"npernode", 1, R_PER_NODE},
    {"ppn", 1, R_PER_NODE},
    {"mca", 2, 0},
    {"gmca", 2, 0},
    {"genv", 2, 0},
    {"env", 2, 0},
    {"am", 1, 0},
    {"app", 1, 0},
    {"bind-to", 1, 0},
    {"binding", 1, 0},
    {"bootstrap", 1, 0},
    {"bootstrap-exec", 1, 0},
    {"configfile", 1, 0},
    {"cpu-set", 1, 0},
    {"cpus-per-proc", 1, 0},
    {"cpus-per-rank", 1, 0},
    {"cwd", 1, 0},
    {"default-hostfile", 1, 0},
    {"demux", 1, 0},
    {"display", 1, 0},
    {"envlist", 1, 0},
    {"errfile-pattern", 1, 0},
    {"f", 1, 0},
    {"genvlist", 1, 0},
    {"gpus-per-proc", 1, 0},
    {"H", 1, 0},
    {"host", 1, 0},
    {"hostfile", 1, 0},
    {"hosts", 1, 0},
    {"iface", 1, 0},
    {"launch-agent", 1, 0},
    {"launcher", 1, 0},
    {"launcher-exec", 1, 0},
    {"machinefile", 1, 0},
    {"map-by", 1, 0},
    {"max-vm-size", 1, 0},
    {"nameserver", 1, 0},
    {"npersocket", 1, 0},
    {"ompi-server", 1, 0},
    {"outfile-pattern", 1, 0},
    {"output", 1, 0},
    {"output-filename", 1, 0},
    {"path", 1, 0},
    {"personality", 1, 0},
    {"prefix", 1, 0},
    {"preload-files", 1, 0},
    {"rank-by", 1, 0},
    {"rankfile", 1, 0},
    {"report-uri", 1, 0},
    {"rf", 1, 0},
    {"rmk", 1, 0},
    {"stdin", 1, 0},
    {"timeout", 1, 0},
    {"topolib", 1, 0},
    {"tune", 1, 0},
    {"usize", 1, 0},
    {"wd", 1, 0},
    {"wdir", 1, 0},
    {"x", 1, 0},
    {NULL, 0, 0},
};

static const struct opt *find_opt(const struct opt *tab, const char *name,
				  size_t len)
{
	/* The first byte rules out nearly every entry before a strlen. */
	for (; tab->name != NULL; tab++)
		if (tab->name[0] == name[0] && strlen(tab->name) == len &&
		    memcmp(tab->name, name, len) == 0)
			return tab;
	return NULL;
}

/* ---- growing arrays ---------------------------------------------------- */

struct buf {
	char *s;
	size_t n, cap;
};

/* Room for n more bytes and a NUL. */
static int buf_reserve(struct buf *b, size_t n)
{
	if (b->n + n < b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 64;
	while (b->n + n >= cap)
		cap *= 2;
	char *s = realloc(b->s, cap);
	if (s == NULL)
		return MPP_ENOMEM;
	b->s = s;
	b->cap = cap;
	return 0;
}

static inline int buf_putc(struct buf *b, char c)
{
	if (b->n + 1 >= b->cap && buf_reserve(b, 1))
		return MPP_ENOMEM;
	b->s[b->n++] = c;
	b->s[b->n] = '\0';
	return 0;
}

/* Appends s[0..n), a NUL byte read as a blank (a shell would stop there). */
static int buf_put(struct buf *b, const char *s, size_t n)
{
	if (buf_reserve(b, n))
		return MPP_ENOMEM;
	char *d = b->s + b->n;
	memcpy(d, s, n);
	for (char *z = memchr(d, '\0', n); z;
	     z = memchr(z, '\0', n - (size_t)(z - d)))
		*z = ' ';
	b->n += n;
	b->s[b->n] = '\0';
	return 0;
}

enum tok_kind { T_WORD, T_SEP, T_REDIR };

/* A line's tokens. Their texts lie one after the other, each with its NUL,
 * in one buffer: no allocation per token. `text` pointers are set once the
 * line is lexed (the buffer may move while it grows). */
struct tok {
	int kind;
	size_t off;
	char *text;
};

struct toks {
	struct tok *v;
	size_t n, cap;
	struct buf text;
};

static int toks_push(struct toks *t, int kind, size_t off)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 16;
		struct tok *v = realloc(t->v, cap * sizeof *v);
		if (v == NULL)
			return MPP_ENOMEM;
		t->v = v;
		t->cap = cap;
	}
	t->v[t->n].kind = kind;
	t->v[t->n].off = off;
	t->n++;
	return 0;
}

static void toks_clear(struct toks *t)
{
	t->n = 0;
	t->text.n = 0;
}

static void toks_free(struct toks *t)
{
	free(t->v);
	free(t->text.s);
}

/* ---- the lexer ---------------------------------------------------------- */

/* Ends the token that starts at off: its NUL, then the token. */
static int end_token(struct toks *t, int kind, size_t off)
{
	if (buf_putc(&t->text, '\0'))
		return MPP_ENOMEM;
	return toks_push(t, kind, off);
}

static int push_op(struct toks *t, int kind, const char *op, size_t len)
{
	size_t off = t->text.n;
	if (buf_put(&t->text, op, len))
		return MPP_ENOMEM;
	return end_token(t, kind, off);
}

static int lex_words(const char *s, struct toks *t, int *unterminated);

/* Lexes one logical line into words, separators and redirection operators
 * (appended to t). Sets *unterminated when a quote is left open; the
 * tokens before it are kept. */
static int lex_line(const char *s, struct toks *t, int *unterminated)
{
	int rc = lex_words(s, t, unterminated);
	for (size_t k = 0; rc == 0 && k < t->n; k++)
		t->v[k].text = t->text.s + t->v[k].off;
	return rc;
}

static int lex_words(const char *s, struct toks *t, int *unterminated)
{
	struct buf *w = &t->text;
	size_t ws = w->n; /* where the current word starts */
	int in_word = 0, rc = 0;
	*unterminated = 0;
	for (size_t i = 0;; i++) {
		char c = s[i];
		int end_word = c == '\0' || c == ' ' || c == '\t' || c == ';' ||
			       c == '&' || c == '|' || c == '<' || c == '>' ||
			       (c == '#' && !in_word);
		if (end_word) {
			size_t len = w->n - ws;
			int digits_only =
			    in_word && len > 0 &&
			    strspn(w->s + ws, "0123456789") == len;
			/* "2>" and "2>&1": the fd number belongs to the
			 * redirection, not to the command's words. */
			if (in_word && !((c == '<' || c == '>') && digits_only))
				rc = end_token(t, T_WORD, ws);
			else
				w->n = ws;
			if (rc)
				return rc;
			in_word = 0;
			if (c == '\0' || c == '#')
				return 0;
			if (c == ';' || c == '|' ||
			    (c == '&' && s[i + 1] != '>')) {
				size_t n = s[i + 1] == c ? 2 : 1;
				rc = push_op(t, T_SEP, s + i, n);
				i += n - 1;
			} else if (c == '<' || c == '>' || c == '&') {
				size_t n = 1;
				while (n < 3 && strchr("<>&-", s[i + n]) &&
				       s[i + n] != '\0')
					n++;
				rc = push_op(t, T_REDIR, s + i, n);
				i += n - 1;
			}
			if (rc)
				return rc;
			ws = w->n;
			continue;
		}
		in_word = 1;
		if (c == '\\' && s[i + 1] != '\0') {
			rc = buf_putc(w, s[++i]);
		} else if (c == '\'') {
			const char *q = strchr(s + i + 1, '\'');
			if (q == NULL) {
				*unterminated = 1;
				w->n = ws;
				return 0;
			}
			rc = buf_put(w, s + i + 1, (size_t)(q - (s + i + 1)));
			i = (size_t)(q - s);
		} else if (c == '"') {
			for (i++; rc == 0 && s[i] != '"'; i++) {
				if (s[i] == '\0') {
					*unterminated = 1;
					w->n = ws;
					return 0;
				}
				if (s[i] == '\\' &&
				    strchr("\"\\$`", s[i + 1]) &&
				    s[i + 1] != '\0')
					i++;
				rc = buf_putc(w, s[i]);
			}
		} else {
			rc = buf_putc(w, c);
		}
		if (rc)
			return rc;
	}
}

/* ---- numbers -------------------------------------------------------- */

/* A positive count; "2-4" (a node range) counts as its minimum. */
static double count_value(const char *v)
{
	char *end;
	double d = strtod(v, &end);
	if (end == v || !isfinite(d) || d <= 0)
		return -1;
	if (*end != '\0' && *end != '-')
		return -1;
	return d;
}

struct counts {
	double ntasks, nnodes, per_node;
};

static void note_role(struct counts *c, int role, const char *v)
{
	double d = count_value(v);
	if (d < 0)
		return;
	if (role == R_NTASKS)
		c->ntasks = d;
	else if (role == R_NNODES)
		c->nnodes = d;
	else if (role == R_PER_NODE)
		c->per_node = d;
}

/* ---- options ------------------------------------------------------------ */

/* Reads launcher options from words[*i..n) with srun's (getopt) or
 * mpirun's conventions, noting task and node counts; leaves *i at the
 * first word that is not an option or an option's value. */
static void skip_options(char **words, size_t n, size_t *i, int slurm,
			 struct counts *c)
{
	const struct opt *tab = slurm ? slurm_opts : mpi_opts;
	while (*i < n) {
		const char *w = words[*i];
		if (w[0] != '-' || w[1] == '\0')
			return;
		(*i)++;
		if (strcmp(w, "--") == 0)
			return;
		const char *name = w + 1;
		const char *joined = NULL;
		size_t len;
		if (name[0] == '-' || !slurm) {
			if (name[0] == '-')
				name++;
			const char *eq = strchr(name, '=');
			len = eq ? (size_t)(eq - name) : strlen(name);
			joined = eq ? eq + 1 : NULL;
		} else {
			/* getopt short option: "-n4" or "-n 4". */
			len = 1;
			joined = name[1] ? name + 1 : NULL;
		}
		const struct opt *o = find_opt(tab, name, len);
		if (o == NULL)
			continue;
		if (joined != NULL) {
			note_role(c, o->role, joined);
			continue;
		}
		if (*i < n)
			note_role(c, o->role, words[*i]);
		*i += (size_t)o->nvals;
		if (*i > n)
			*i = n;
	}
}

/* ---- commands ----------------------------------------------------------- */

static const char *launcher_of(const char *w, size_t *len)
{
	const char *b = strrchr(w, '/');
	b = b ? b + 1 : w;
	*len = strcspn(b, ".");
	static const char *const names[] = {"srun", "mpirun", "mpiexec"};
	for (size_t k = 0; k < 3; k++)
		if (strlen(names[k]) == *len && memcmp(b, names[k], *len) == 0)
			return names[k];
	return NULL;
}

static int is_assignment(const char *w)
{
	if (!(w[0] == '_' || (w[0] >= 'A' && w[0] <= 'Z') ||
	      (w[0] >= 'a' && w[0] <= 'z')))
		return 0;
	size_t k =
	    strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789_");
	return w[k] == '=';
}

static int is_prefix_word(const char *w)
{
	static const char *const p[] = {"exec",  "time", "command",
					"nohup", "env",  NULL};
	for (size_t k = 0; p[k]; k++)
		if (strcmp(w, p[k]) == 0)
			return 1;
	return 0;
}

/* Looks at one simple command's words; fills the job when it launches MPI.
 * Returns 1 when it did, 0 when not, or MPP_ENOMEM as a negative. */
static int try_launcher(char **words, size_t n, mpp_script_job *job,
			struct counts *c)
{
	size_t i = 0;
	while (i < n && (is_assignment(words[i]) || is_prefix_word(words[i])))
		i++;
	/* salloc runs its command inside the allocation it makes: skip it
	 * and its options (srun's, as far as counts go) and look at the
	 * command, e.g. the submit line "salloc -n 4 mpirun ./app 64". */
	const char *b = i < n ? strrchr(words[i], '/') : NULL;
	if (i < n && strcmp(b ? b + 1 : words[i], "salloc") == 0) {
		i++;
		skip_options(words, n, &i, 1, c);
	}
	if (i == n)
		return 0;
	size_t len;
	const char *name = launcher_of(words[i], &len);
	if (name == NULL)
		return 0;
	i++;
	skip_options(words, n, &i, name[0] == 's', c);
	job->launcher = strdup(name);
	if (job->launcher == NULL)
		return -MPP_ENOMEM;
	if (i == n)
		return 1;
	job->exe = strdup(words[i++]);
	if (job->exe == NULL)
		return -MPP_ENOMEM;
	job->argc = n - i;
	job->argv = calloc(job->argc + 1, sizeof *job->argv);
	if (job->argv == NULL)
		return -MPP_ENOMEM;
	for (size_t k = 0; k < job->argc; k++) {
		job->argv[k] = strdup(words[i + k]);
		if (job->argv[k] == NULL)
			return -MPP_ENOMEM;
	}
	return 1;
}

/* Finds the first launching simple command among a line's tokens; notes a
 * here-document's delimiter in *heredoc (malloc'ed) so its body is skipped. */
static int scan_commands(struct toks *t, mpp_script_job *job, struct counts *c,
			 char **heredoc)
{
	char **words = malloc((t->n + 1) * sizeof *words);
	if (words == NULL)
		return -MPP_ENOMEM;
	size_t n = 0;
	int found = 0;
	for (size_t k = 0; k <= t->n && !found; k++) {
		if (k == t->n || t->v[k].kind == T_SEP) {
			found = try_launcher(words, n, job, c);
			if (found < 0)
				break;
			n = 0;
		} else if (t->v[k].kind == T_REDIR) {
			if (k + 1 < t->n && t->v[k + 1].kind == T_WORD) {
				if (strncmp(t->v[k].text, "<<", 2) == 0 &&
				    *heredoc == NULL) {
					*heredoc = strdup(t->v[k + 1].text);
					if (*heredoc == NULL) {
						found = -MPP_ENOMEM;
						break;
					}
				}
				k++;
			}
		} else {
			words[n++] = t->v[k].text;
		}
	}
	free(words);
	return found;
}

/* Adds the declarations in words[0..n) to job->declared (replacing it
 * when replace is set); MPP_EINVAL names a token that is not NAME=NUMBER. */
static int declare(mpp_script_job *job, char *const *words, size_t n,
		   int replace, size_t lineno, char *err, size_t errlen)
{
	if (replace) {
		free(job->declared);
		job->declared = NULL;
	}
	size_t len = job->declared ? strlen(job->declared) : 0;

	for (size_t k = 0; k < n; k++) {
		const char *w = words[k];
		size_t wl = strlen(w);
		if (wl == 0)
			continue;
		if (!mpp_params_declared_ok(w, wl)) {
			snprintf(err, errlen,
				 "script: line %zu: param '%.40s': expected "
				 "NAME=NUMBER",
				 lineno, w);
			return MPP_EINVAL;
		}
		char *d = realloc(job->declared, len + wl + 2);
		if (d == NULL)
			return MPP_ENOMEM;
		job->declared = d;
		if (len)
			d[len++] = ' ';
		memcpy(d + len, w, wl + 1);
		len += wl;
	}
	return 0;
}

/* MPIPREDICT_PARAMS=... among a command's leading words (an `export`
 * line, or an assignment before the launcher): its value, split on
 * blanks, replaces the declared parameters. */
static int env_params(const struct toks *t, mpp_script_job *job, size_t lineno,
		      char *err, size_t errlen)
{
	static const char var[] = "MPIPREDICT_PARAMS=";
	for (size_t k = 0; k < t->n && t->v[k].kind == T_WORD; k++) {
		const char *w = t->v[k].text;
		if (strcmp(w, "export") == 0 || strcmp(w, "declare") == 0 ||
		    strcmp(w, "-x") == 0)
			continue;
		if (!is_assignment(w))
			break;
		if (strncmp(w, var, sizeof var - 1) != 0)
			continue;
		char *copy = strdup(w + sizeof var - 1), *save = NULL;
		char *words[64];
		size_t n = 0;
		if (copy == NULL)
			return MPP_ENOMEM;
		for (char *tok = strtok_r(copy, " \t", &save); tok && n < 64;
		     tok = strtok_r(NULL, " \t", &save))
			words[n++] = tok;
		int rc = declare(job, words, n, 1, lineno, err, errlen);
		free(copy);
		if (rc)
			return rc;
	}
	return 0;
}

/* A directive line "#SBATCH ..." or "#MPIPREDICT ...". */
static int directive(const char *line, mpp_script_job *job,
		     struct counts *sbatch, struct toks *t, size_t lineno,
		     char *err, size_t errlen)
{
	const char *p = line + strspn(line, " \t");
	int is_sbatch =
	    strncmp(p, "#SBATCH", 7) == 0 && (p[7] == ' ' || p[7] == '\t');
	int is_mpp = strncmp(p, "#MPIPREDICT", 11) == 0 &&
		     (p[11] == ' ' || p[11] == '\t');
	if (!is_sbatch && !is_mpp)
		return 0;
	int unterminated;
	toks_clear(t);
	int rc = lex_line(is_sbatch ? p + 7 : p + 11, t, &unterminated);
	if (rc || unterminated)
		return rc;
	char **words = malloc((t->n + 1) * sizeof *words);
	if (words == NULL)
		return MPP_ENOMEM;
	size_t n = 0;
	for (size_t k = 0; k < t->n && t->v[k].kind == T_WORD; k++)
		words[n++] = t->v[k].text;
	if (is_sbatch) {
		size_t i = 0;
		skip_options(words, n, &i, 1, sbatch);
	} else if (n > 0 && strcmp(words[0], "param") == 0) {
		rc = declare(job, words + 1, n - 1, 0, lineno, err, errlen);
	} else {
		for (size_t k = 0; k < n; k++)
			if (strncmp(words[k], "app=", 4) == 0 &&
			    words[k][4] != '\0' && job->app == NULL) {
				job->app = strdup(words[k] + 4);
				if (job->app == NULL)
					rc = MPP_ENOMEM;
			}
	}
	free(words);
	return rc;
}

int mpp_script_parse(const char *text, size_t len, mpp_script_job *job,
		     char *err, size_t errlen)
{
	memset(job, 0, sizeof *job);
	struct counts sbatch = {-1, -1, -1}, launch = {-1, -1, -1};
	struct toks t = {0};
	struct buf line = {0};
	char *heredoc = NULL;
	int rc = 0, found = 0;
	size_t lineno = 0, first_line = 0;
	for (size_t i = 0; i <= len && rc == 0;) {
		/* Gather one logical line: physical lines joined where one
		 * ends with a backslash. */
		line.n = 0;
		if (buf_putc(&line, '\0')) {
			rc = MPP_ENOMEM;
			break;
		}
		line.n = 0;
		first_line = lineno + 1;
		while (i < len) {
			const char *nl = memchr(text + i, '\n', len - i);
			size_t end = nl ? (size_t)(nl - text) : len;
			if (buf_put(&line, text + i, end - i)) {
				rc = MPP_ENOMEM;
				break;
			}
			i = end;
			if (nl == NULL)
				break;
			lineno++;
			i++;
			if (line.n > 0 && line.s[line.n - 1] == '\\' &&
			    heredoc == NULL) {
				line.s[--line.n] = '\0';
				continue;
			}
			i--;
			break;
		}
		i++;
		if (rc)
			break;
		if (heredoc != NULL) {
			const char *p = line.s + strspn(line.s, "\t");
			if (strcmp(p, heredoc) == 0) {
				free(heredoc);
				heredoc = NULL;
			}
			continue;
		}
		const char *p = line.s + strspn(line.s, " \t");
		if (*p == '#') {
			rc = directive(p, job, &sbatch, &t, first_line, err,
				       errlen);
			continue;
		}
		if (found)
			continue;
		int unterminated;
		toks_clear(&t);
		rc = lex_line(p, &t, &unterminated);
		if (rc)
			break;
		if (unterminated) {
			/* Half a line cannot be read; it matters only when it
			 * is the launch. */
			size_t l, w = 0;
			while (w < t.n && t.v[w].kind == T_WORD &&
			       (is_assignment(t.v[w].text) ||
				is_prefix_word(t.v[w].text)))
				w++;
			if (w < t.n && t.v[w].kind == T_WORD &&
			    launcher_of(t.v[w].text, &l) != NULL) {
				snprintf(err, errlen,
					 "script: line %zu: unterminated quote",
					 first_line);
				rc = MPP_EINVAL;
			}
			continue;
		}
		rc = env_params(&t, job, first_line, err, errlen);
		if (rc)
			break;
		int r = scan_commands(&t, job, &launch, &heredoc);
		if (r < 0) {
			rc = -r;
			break;
		}
		found = r;
	}
	toks_free(&t);
	free(line.s);
	free(heredoc);
	if (rc) {
		if (rc == MPP_ENOMEM)
			snprintf(err, errlen, "script: out of memory");
		mpp_script_job_free(job);
		return rc;
	}
	/* The launcher's own counts win over the #SBATCH defaults. */
	job->ntasks = launch.ntasks > 0 ? launch.ntasks : sbatch.ntasks;
	job->nnodes = launch.nnodes > 0 ? launch.nnodes : sbatch.nnodes;
	double per_node =
	    launch.per_node > 0 ? launch.per_node : sbatch.per_node;
	if (job->ntasks < 0 && job->nnodes > 0 && per_node > 0)
		job->ntasks = job->nnodes * per_node;
	return 0;
}

void mpp_script_job_free(mpp_script_job *job)
{
	free(job->app);
	free(job->launcher);
	free(job->exe);
	for (size_t k = 0; k < job->argc && job->argv; k++)
		free(job->argv[k]);
	free(job->argv);
	free(job->declared);
	memset(job, 0, sizeof *job);
	job->ntasks = job->nnodes = -1;
}
