/*
 * ti.c: reading libmpipredict's traces, scaling their computation, and
 * writing them in the form SimGrid 3.32's replay accepts (ti.h).
 *
 * Conversion for the replay (actions SimGrid does not replay):
 *   - point-to-point with MPI_PROC_NULL (-1) is dropped;
 *   - sendrecv becomes isend + irecv + waitall (each half only when its
 *     peer is a rank);
 *   - wait, waitany, waitsome become waitall (the replay's wait needs the
 *     request's peers, which the trace does not keep; waitall completes
 *     every outstanding request, so overlap across waits is lost);
 *   - a test* that finished something becomes waitall, the others are
 *     dropped; scan and exscan become allreduce of their size;
 *     nonblocking collectives (i<coll>) their blocking form;
 *   - a neighbourhood collective ([i]neighbor_*) becomes an irecv per
 *     source, an isend per destination and a waitall;
 *   - a collective on some of the ranks (" @ <n> <members>") becomes
 *     point-to-point messages among the members (group_out);
 *   - alltoallw is written with per-peer bytes, as alltoallv;
 *   - persistent requests: the init calls and MPI_Start(all) write
 *     nothing (the trace has the isend and irecv each start made on the
 *     lines after it); a start with requests the trace cannot show (a
 *     persistent collective) counts as approximated.
 * The number of approximated actions is reported.
 *
 * Scaling (mpp_trace_scale): a segment is the computation between two
 * actions; its kind is "<action before>><action after>". A kind's work is
 * its computation summed over the ranks, per occurrence on one rank (SPMD:
 * every rank passes the same segments). Training traces at one rank count
 * conserve work over ranks (P ranks share the work one rank did); traces
 * at several rank counts give the work a power law in the rank count too
 * (a decomposition that changes the per-rank working set, halo work that
 * grows with P). SMPI's benchmark of the target run says how the work is
 * shared among ranks and occurrences.
 *
 * Noise (mpp_trace_noise): when each rank does its share, as the training
 * runs at several ranks timed it; see the comment above that function.
 */
#include <errno.h>
#include <fcntl.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "regress/params.h"
#include "simulate/ti.h"

extern char **environ;

static int push(struct mpp_trace *t, int r, size_t *cap, const char *name,
		const char *args, double flops, int site)
{
	if (t->n[r] == cap[r]) {
		size_t c = cap[r] ? 2 * cap[r] : 256;
		struct mpp_act *a = realloc(t->a[r], c * sizeof *a);
		if (!a)
			return -1;
		t->a[r] = a;
		cap[r] = c;
	}
	struct mpp_act *x = &t->a[r][t->n[r]];
	snprintf(x->name, sizeof x->name, "%s", name);
	x->args = strdup(args);
	x->flops = flops;
	x->site = site;
	if (!x->args)
		return -1;
	t->n[r]++;
	return 0;
}

/* The index of site key k in t's table, added when new; -1: no memory. */
static int site_index(struct mpp_trace *t, const char *k)
{
	size_t len = strlen(k);
	long i = mpp_strmap_get(&t->site_of, k, len);
	if (i >= 0)
		return (int)i;
	if (t->nsites == t->capsites) {
		size_t c = t->capsites ? 2 * t->capsites : 64;
		char **a = realloc(t->site_key, c * sizeof *a);
		if (!a)
			return -1;
		t->site_key = a;
		char **b = realloc(t->site_at, c * sizeof *b);
		if (!b)
			return -1;
		t->site_at = b;
		t->capsites = c;
	}
	char *key = strdup(k);
	if (!key)
		return -1;
	t->site_key[t->nsites] = key; /* freed with the trace */
	t->site_at[t->nsites++] = NULL;
	if (mpp_strmap_put(&t->site_of, key, len, (long)t->nsites - 1) < 0)
		return -1;
	return (int)t->nsites - 1;
}

/* A peer that is not a rank of the run: SimGrid's replay aborted on it
 * with a backtrace (issue 38). */
static int bad_peer(const char *name, const char *args, int nranks)
{
	if (strcmp(name, "send") && strcmp(name, "isend") &&
	    strcmp(name, "recv") && strcmp(name, "irecv") &&
	    strcmp(name, "recvd"))
		return 0;
	char *e;
	long p = strtol(args, &e, 10);
	return e != args && (p < -2 || p >= nranks);
}

static int read_rank(struct mpp_trace *t, int r, const char *path, size_t *cap,
		     char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char line[65536], *obj[32] = {0};
	long ln = 0;
	int pending = -1, last = -1, rc = -1;
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		char *p = line, *end, name[32];
		long rank;
		double w;
		int ko, pos = 0;
		ln++;
		line[strcspn(line, "\n")] = '\0';
		if (sscanf(line, "# wall %lf", &w) == 1) {
			if (w > t->wall)
				t->wall = w;
			continue;
		}
		/* call sites (collector/trace.h): objects by number, then a
		 * site before each call's compute line */
		if (sscanf(line, "# object %d %n", &ko, &pos) == 1 && pos > 0) {
			if (ko >= 0 && ko < 32 && !obj[ko] &&
			    !(obj[ko] = strdup(line + pos)))
				goto oom;
			continue;
		}
		if (sscanf(line, "# @ %d %n", &ko, &pos) == 1 && pos > 0) {
			char key[8192];
			if (ko < 0 || ko >= 32 || !obj[ko]) {
				snprintf(err, errlen,
					 "%s:%ld: '# @ %d': no '# object %d' "
					 "line before it",
					 path, ln, ko, ko);
				goto out;
			}
			snprintf(key, sizeof key, "%.4000s\t%.100s", obj[ko],
				 line + pos);
			if ((pending = site_index(t, key)) < 0)
				goto oom;
			continue;
		}
		if (line[0] == '#' || line[0] == '\0')
			continue;
		rank = strtol(p, &end, 10);
		if (end == p || rank != r) {
			snprintf(err, errlen,
				 "%s:%ld: expected rank %d at the start", path,
				 ln, r);
			goto out;
		}
		p = end + strspn(end, " ");
		size_t k = strcspn(p, " ");
		if (k == 0 || k >= sizeof name) {
			snprintf(err, errlen, "%s:%ld: bad action name", path,
				 ln);
			goto out;
		}
		memcpy(name, p, k);
		name[k] = '\0';
		p += k;
		p += strspn(p, " ");
		double fl = 0;
		if (!strcmp(name, "compute")) {
			fl = strtod(p, &end);
			if (end == p || !isfinite(fl) || fl < 0) {
				snprintf(err, errlen,
					 "%s:%ld: compute: expected flops >= 0",
					 path, ln);
				goto out;
			}
			if (t->n[r] &&
			    !strcmp(t->a[r][t->n[r] - 1].name, "compute")) {
				t->a[r][t->n[r] - 1].flops += fl;
				continue;
			}
		}
		/* A wildcard receive finished by the completion call just
		 * before (collector/trace.c, struct wild): a receive from the
		 * source and tag it matched, placed before that call. */
		int resolved = !strcmp(name, "recvd");
		if (resolved &&
		    (t->n[r] == 0 ||
		     (strncmp(t->a[r][t->n[r] - 1].name, "wait", 4) &&
		      strncmp(t->a[r][t->n[r] - 1].name, "test", 4)))) {
			snprintf(
			    err, errlen,
			    "%s:%ld: recvd: expected right after a wait or "
			    "test",
			    path, ln);
			goto out;
		}
		if (bad_peer(name, p, t->nranks)) {
			snprintf(
			    err, errlen,
			    "%s:%ld: %s %s: peer %ld is not a rank of this "
			    "%d-rank run (nprocs in its meta)",
			    path, ln, name, p, strtol(p, NULL, 10), t->nranks);
			goto out;
		}
		int st = -1;
		if (strcmp(name, "compute")) {
			st = pending >= 0 ? pending : last;
			last = st;
			pending = -1;
		}
		if (push(t, r, cap, resolved ? "recv" : name, p, fl, st) < 0)
			goto oom;
		if (resolved) {
			struct mpp_act *a = t->a[r], x = a[t->n[r] - 1];
			a[t->n[r] - 1] = a[t->n[r] - 2];
			a[t->n[r] - 2] = x;
		}
	}
	if (t->n[r] == 0 || strcmp(t->a[r][0].name, "init")) {
		snprintf(err, errlen, "%s: expected 'init' first", path);
		goto out;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	fclose(f);
	for (int i = 0; i < 32; i++)
		free(obj[i]);
	return rc;
}

int mpp_trace_read(const char *dir, struct mpp_trace *t, char *err,
		   size_t errlen)
{
	char path[4096], line[8192];
	FILE *f;
	long np = 0;
	size_t *cap = NULL;

	memset(t, 0, sizeof *t);
	snprintf(path, sizeof path, "%s/meta", dir);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "nprocs ", 7))
			np = strtol(line + 7, NULL, 10);
		else if (!strncmp(line, "args", 4))
			snprintf(t->args, sizeof t->args, "%.4095s",
				 line[4] ? line + 5 : "");
	}
	fclose(f);
	if (np < 1 || np > 65536) {
		snprintf(err, errlen, "%s: nprocs: expected 1..65536", path);
		return -1;
	}
	t->nranks = (int)np;
	t->a = calloc((size_t)np, sizeof *t->a);
	t->n = calloc((size_t)np, sizeof *t->n);
	cap = calloc((size_t)np, sizeof *cap);
	if (!t->a || !t->n || !cap) {
		free(cap);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int r = 0; r < np; r++) {
		snprintf(path, sizeof path, "%s/rank-%d.ti", dir, r);
		if (read_rank(t, r, path, cap, err, errlen) < 0) {
			free(cap);
			return -1;
		}
	}
	free(cap);
	mpp_trace_sites(t, NULL);
	return 0;
}

/* addr2line's answer for each of the n addresses (offsets) of object
 * obj, into at[] ("file.c:123"; left NULL when unknown). */
static void addr2line(const char *obj, char **addr, char **at, size_t n)
{
	char **av = calloc(n + 6, sizeof *av);
	int fd[2];
	pid_t pid;
	posix_spawn_file_actions_t fa;
	size_t c = 0;

	if (!av || pipe(fd) < 0) {
		free(av);
		return;
	}
	av[c++] = "addr2line";
	av[c++] = "-e";
	av[c++] = (char *)obj;
	for (size_t i = 0; i < n; i++)
		av[c++] = addr[i];
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	int sp = posix_spawnp(&pid, "addr2line", &fa, NULL, av, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	FILE *f = sp == 0 ? fdopen(fd[0], "r") : NULL;
	char line[8192];
	for (size_t i = 0; f && i < n && fgets(line, sizeof line, f); i++) {
		line[strcspn(line, " \n")] = '\0'; /* " (discriminator 2)" */
		char *colon = strrchr(line, ':');
		const char *base = strrchr(line, '/');
		base = base ? base + 1 : line;
		/* "??:0", "??:?", "file.c:?": no line information */
		if (!colon || line[0] == '?' || colon[1] == '?' ||
		    !strcmp(colon, ":0"))
			continue;
		at[i] = strdup(base);
	}
	if (f)
		fclose(f);
	else
		close(fd[0]);
	if (sp == 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	free(av);
}

/* The object whose debug lines say where site i is: its own, or prog
 * when it is gone (SMPI runs each rank from a copy it deletes); NULL when
 * neither can be read. */
static char *site_object(const struct mpp_trace *t, size_t i, const char *prog)
{
	size_t olen = strcspn(t->site_key[i], "\t");
	char *obj = strndup(t->site_key[i], olen);
	if (obj && access(obj, R_OK) != 0) {
		free(obj);
		obj = prog ? strdup(prog) : NULL;
	}
	return obj;
}

static char *const *sort_objs;

static int by_object(const void *a, const void *b)
{
	return strcmp(sort_objs[*(const size_t *)a],
		      sort_objs[*(const size_t *)b]);
}

void mpp_trace_sites(struct mpp_trace *t, const char *prog)
{
	size_t n = t->nsites, k = 0;
	char **addr = calloc(n + 1, sizeof *addr);
	char **at = calloc(n + 1, sizeof *at);
	size_t *idx = calloc(n + 1, sizeof *idx);
	char **obj = calloc(n + 1, sizeof *obj);

	/* The unresolved sites by the object that resolves them, so that
	 * one addr2line answers each object: an SMPI skeleton's 1,024 rank
	 * copies of one program took one addr2line each (5 s). */
	for (size_t i = 0; addr && at && idx && obj && i < n; i++)
		if (!t->site_at[i] && (obj[i] = site_object(t, i, prog)))
			idx[k++] = i;
	sort_objs = obj;
	if (k > 1)
		qsort(idx, k, sizeof *idx, by_object);
	for (size_t g = 0; g < k;) {
		size_t e = g;
		while (e < k && !strcmp(obj[idx[e]], obj[idx[g]]))
			e++;
		for (size_t q = g; q < e; q++) {
			size_t i = idx[q];
			addr[q - g] =
			    t->site_key[i] + strcspn(t->site_key[i], "\t") + 1;
			at[q - g] = NULL;
		}
		addr2line(obj[idx[g]], addr, at, e - g);
		for (size_t q = g; q < e; q++)
			t->site_at[idx[q]] = at[q - g];
		g = e;
	}
	for (size_t i = 0; obj && i < n; i++)
		free(obj[i]);
	free(obj);
	free(addr);
	free(at);
	free(idx);
	t->sited = 1;
	for (int r = 0; r < t->nranks && t->sited; r++)
		for (size_t i = 0; i < t->n[r] && t->sited; i++) {
			const struct mpp_act *x = &t->a[r][i];
			if (!strcmp(x->name, "compute") ||
			    !strcmp(x->name, "init") ||
			    !strcmp(x->name, "finalize"))
				continue;
			t->sited = x->site >= 0 && t->site_at[x->site];
		}
}

/* 1: segment kinds are named by call sites (mpp_trace_match_sites). */
static int by_site;

struct kind;
static int kinds(const struct mpp_trace *t, struct kind **ks, size_t *nk);
static size_t kinds_shared(const struct kind *a, size_t na,
			   const struct kind *b, size_t nb);

/* The index of rank r's next call at or after i that says what the
 * program decided (same_calls), or t->n[r]. */
static size_t next_call(const struct mpp_trace *t, int r, size_t i)
{
	while (i < t->n[r] && (!strcmp(t->a[r][i].name, "compute") ||
			       !strncmp(t->a[r][i].name, "test", 4) ||
			       !strcmp(t->a[r][i].name, "recvd")))
		i++;
	return i;
}

int mpp_trace_same_calls(const struct mpp_trace *a, const struct mpp_trace *b,
			 char *msg, size_t len)
{
	if (a->nranks != b->nranks) {
		snprintf(msg, len, "%d ranks against %d", a->nranks, b->nranks);
		return 1;
	}
	for (int r = 0; r < a->nranks; r++) {
		size_t i = next_call(a, r, 0), j = next_call(b, r, 0);
		for (size_t k = 1; i < a->n[r] || j < b->n[r]; k++) {
			const char *x = i < a->n[r] ? a->a[r][i].name : "(end)",
				   *y = j < b->n[r] ? b->a[r][j].name : "(end)";
			if (strcmp(x, y)) {
				snprintf(msg, len,
					 "rank %d, call %zu: %s against %s", r,
					 k, x, y);
				return 1;
			}
			i = next_call(a, r, i + 1);
			j = next_call(b, r, j + 1);
		}
	}
	return 0;
}

int mpp_trace_match_sites(const struct mpp_trace *skel,
			  const struct mpp_trace *train, size_t ntrain)
{
	by_site = skel->sited;
	for (size_t j = 0; j < ntrain; j++)
		by_site &= train[j].sited;
	if (!by_site)
		return 0;
	/* PENNANT at one rank skips every MPI call (its wrappers return
	 * when there is one rank): its traces have one init>finalize
	 * segment, share no kind with any skeleton, and "built alike?"
	 * blamed sites that were never compared. */
	size_t called = 0;
	for (size_t j = 0; j < ntrain; j++)
		called += train[j].nsites;
	if (ntrain > 0 && called == 0)
		return 2;
	/* Two builds whose compilers place a call on other lines share no
	 * kind by site; by names they still share most. Sites are kept
	 * when at least half the skeleton's kinds are in some training
	 * trace. */
	struct kind *sk = NULL, *tk = NULL;
	size_t nsk = 0, ntk = 0, shared = 0;
	if (kinds(skel, &sk, &nsk) == 0)
		for (size_t j = 0; j < ntrain; j++) {
			free(tk);
			tk = NULL;
			ntk = 0;
			if (kinds(&train[j], &tk, &ntk) < 0)
				break;
			size_t n = kinds_shared(sk, nsk, tk, ntk);
			shared = n > shared ? n : shared;
		}
	by_site = 2 * shared >= nsk;
	free(sk);
	free(tk);
	return by_site ? 1 : -1;
}

void mpp_trace_free(struct mpp_trace *t)
{
	for (int r = 0; t->a && r < t->nranks; r++) {
		for (size_t i = 0; i < t->n[r]; i++)
			free(t->a[r][i].args);
		free(t->a[r]);
	}
	free(t->a);
	free(t->n);
	for (size_t i = 0; i < t->nsites; i++) {
		free(t->site_key[i]);
		free(t->site_at[i]);
	}
	free(t->site_key);
	free(t->site_at);
	mpp_strmap_free(&t->site_of);
	memset(t, 0, sizeof *t);
}

double mpp_trace_compute(const struct mpp_trace *t, int r)
{
	double s = 0;
	for (size_t i = 0; i < t->n[r]; i++)
		s += t->a[r][i].flops;
	return s * 1e-9;
}

/* Kind of the compute action a[r][i]: "<before>><after>", each side
 * the call's name, and with call sites (by_site) "@<file>:<line>" after
 * it: a segment is where it is in the program, not which calls bound it
 * (a set-up that calls MPI_Allreduce once more at more than one rank
 * ends at another call, not at another place). */
static void kind_of(const struct mpp_trace *t, int r, size_t i, char *k,
		    size_t len)
{
	const struct mpp_act *b = i > 0 ? &t->a[r][i - 1] : NULL;
	const struct mpp_act *a = i + 1 < t->n[r] ? &t->a[r][i + 1] : NULL;
	const char *bs =
	    by_site && b && b->site >= 0 ? t->site_at[b->site] : NULL;
	const char *as =
	    by_site && a && a->site >= 0 ? t->site_at[a->site] : NULL;
	snprintf(k, len, "%s%s%s>%s%s%s", b ? b->name : "start", bs ? "@" : "",
		 bs ? bs : "", a ? a->name : "end", as ? "@" : "",
		 as ? as : "");
}

struct kind {
	char k[256];
	double flops;  /* total over ranks */
	double occ;    /* occurrences over ranks */
	double target; /* work (s, all ranks) per occurrence on one rank */
	double even;   /* flops per occurrence when SMPI measured none */
	int have;
	int partial;   /* its law from the inputs that have it, not all */
	int capped;    /* its rank-count exponent was capped */
	double np_exp; /* that exponent as fitted */
	int np_lo, np_hi;
};

static struct kind *kind_get(struct kind **ks, size_t *nk, const char *k)
{
	for (size_t i = 0; i < *nk; i++)
		if (!strcmp((*ks)[i].k, k))
			return &(*ks)[i];
	struct kind *n = realloc(*ks, (*nk + 1) * sizeof *n);
	if (!n)
		return NULL;
	*ks = n;
	memset(&n[*nk], 0, sizeof n[*nk]);
	snprintf(n[*nk].k, sizeof n[*nk].k, "%s", k);
	return &n[(*nk)++];
}

static int kinds(const struct mpp_trace *t, struct kind **ks, size_t *nk)
{
	char k[256];
	for (int r = 0; r < t->nranks; r++)
		for (size_t i = 0; i < t->n[r]; i++) {
			if (strcmp(t->a[r][i].name, "compute"))
				continue;
			kind_of(t, r, i, k, sizeof k);
			struct kind *x = kind_get(ks, nk, k);
			if (!x)
				return -1;
			x->flops += t->a[r][i].flops;
			x->occ += 1;
		}
	return 0;
}

/* How many kinds of a are in b. */
static size_t kinds_shared(const struct kind *a, size_t na,
			   const struct kind *b, size_t nb)
{
	size_t n = 0;
	for (size_t i = 0; i < na; i++)
		for (size_t q = 0; q < nb; q++)
			if (!strcmp(a[i].k, b[q].k)) {
				n++;
				break;
			}
	return n;
}

/* The inputs of a per-segment law and how it is fitted (mpp_trace_scale):
 * the training traces grouped by arguments (repeats of one input share a
 * group), the parameters of each and of the target, the law's variables. */
struct law {
	size_t ntrain, ngrp;
	const size_t *grp;
	const mpp_params *tp, *target;
	const char *const *vars;
	size_t nv;
	int use_min;
	double *vals; /* scratch, ntrain */
	int need_all; /* 1: no law unless every input has the value */
};

/* Work (seconds summed over the ranks) per occurrence on one rank of one
 * kind in training trace j (<= 0: absent), or the whole run's computation
 * seconds when k is NULL. */
struct per_kind {
	struct kind *const *tk;
	const size_t *ntk;
	const struct mpp_trace *train;
	const char *k;
};

static double per_occurrence(size_t j, const void *ctx)
{
	const struct per_kind *p = ctx;
	for (size_t q = 0; q < p->ntk[j]; q++) {
		const struct kind *tx = &p->tk[j][q];
		if (!strcmp(tx->k, p->k))
			return tx->occ > 0 && tx->flops > 0
				   ? tx->flops /
					 (tx->occ / p->train[j].nranks) * 1e-9
				   : 0;
	}
	return 0;
}

static double whole_run(size_t j, const void *ctx)
{
	const struct per_kind *p = ctx;
	double f = 0;
	for (size_t q = 0; q < p->ntk[j]; q++)
		f += p->tk[j][q].flops;
	return f * 1e-9;
}

/* What one fit did, for the report (law_at_target). */
struct law_note {
	size_t rows;      /* inputs that had the value */
	int np_lo, np_hi; /* their rank counts */
	int np_var;       /* nprocs was a variable of this fit */
	double np_exp;    /* its exponent as fitted */
	int capped;       /* 1: the exponent was capped (MPP_NP_EXP_*) */
};

/* Beyond the traced rank counts a segment's work summed over the ranks
 * grows at most as the rank count (each rank does no more than it did:
 * exponent 1) and shrinks at most as nothing (exponent 0: work
 * conserved). Two rank counts on a shared machine give any exponent: a
 * set-up segment that took 10 us at 1 rank and 1.4-29 ms at 2 fitted
 * about 10 and predicted 4.1e20 s at 1024 ranks (issue 38); a rank
 * slowed by a neighbour in one 2-rank run gives 2 or 3. */
#define MPP_NP_EXP_MAX 1.0
/* The bound on the global factor (mpp_trace_scale). */
#define MPP_GLOBAL_MAX 10.0
#define MPP_NP_EXP_MIN 0.0

/* Column k of X (rows 0..m) centred, for a rank test. */
static int independent(const gsl_matrix *X, size_t m, const size_t *cols,
		       size_t nc)
{
	if (nc == 0)
		return 1;
	if (m < nc + 1)
		return 0;
	gsl_matrix *A = gsl_matrix_alloc(m, nc);
	gsl_matrix *V = gsl_matrix_alloc(nc, nc);
	gsl_vector *S = gsl_vector_alloc(nc), *w = gsl_vector_alloc(nc);
	int ok = 0;
	if (A && V && S && w) {
		for (size_t c = 0; c < nc; c++) {
			double mean = 0;
			for (size_t r = 0; r < m; r++)
				mean +=
				    gsl_matrix_get(X, r, cols[c]) / (double)m;
			for (size_t r = 0; r < m; r++)
				gsl_matrix_set(A, r, c,
					       gsl_matrix_get(X, r, cols[c]) -
						   mean);
		}
		if (gsl_linalg_SV_decomp(A, V, S, w) == 0) {
			double hi = gsl_vector_get(S, 0);
			double lo = gsl_vector_get(S, nc - 1);
			ok = hi > 1e-9 && lo > 1e-6 * hi;
		}
	}
	gsl_matrix_free(A);
	gsl_matrix_free(V);
	gsl_vector_free(S);
	gsl_vector_free(w);
	return ok;
}

/* Of the law's variables (X's columns 1..nv, logs over m rows), those
 * that vary and are not linearly dependent on the ones chosen before them
 * (equal sizes -x = -y = -z, a rank grid -i -j -k whose product is
 * nprocs), at most m - 1: their columns in sel[], how many returned. */
static size_t choose(const gsl_matrix *X, size_t m, size_t nv, size_t *sel)
{
	size_t ns = 0;
	for (size_t v = 0; v < nv && ns + 1 < m; v++) {
		sel[ns] = v + 1;
		if (independent(X, m, sel, ns + 1))
			ns++;
	}
	return ns;
}

/* Weighted least squares of y on X's columns sel (and the intercept),
 * y less fix * column fixcol first when fixcol > 0; the log of the law
 * at the target row t into *lv. 0, or -1. */
static int fit_at(const gsl_matrix *X, const gsl_vector *y,
		  const gsl_vector *wt, size_t m, const size_t *sel, size_t ns,
		  const double *t, size_t fixcol, double fix, double *lv,
		  double *npc, size_t npcol)
{
	gsl_matrix *A = gsl_matrix_alloc(m, ns + 1);
	gsl_vector *b = gsl_vector_alloc(m), *w = gsl_vector_alloc(m);
	gsl_vector *c = gsl_vector_alloc(ns + 1);
	gsl_matrix *cov = gsl_matrix_alloc(ns + 1, ns + 1);
	gsl_multifit_linear_workspace *ws =
	    gsl_multifit_linear_alloc(m, ns + 1);
	double chi;
	int rc = -1;
	if (!A || !b || !w || !c || !cov || !ws)
		goto out;
	for (size_t r = 0; r < m; r++) {
		gsl_matrix_set(A, r, 0, 1.0);
		for (size_t k = 0; k < ns; k++)
			gsl_matrix_set(A, r, k + 1,
				       gsl_matrix_get(X, r, sel[k]));
		gsl_vector_set(
		    b, r,
		    gsl_vector_get(y, r) -
			(fixcol ? fix * gsl_matrix_get(X, r, fixcol) : 0));
		gsl_vector_set(w, r, gsl_vector_get(wt, r));
	}
	if (gsl_multifit_wlinear(A, w, b, c, cov, &chi, ws) != 0)
		goto out;
	*lv = gsl_vector_get(c, 0) + (fixcol ? fix * t[fixcol] : 0);
	for (size_t k = 0; k < ns; k++) {
		*lv += gsl_vector_get(c, k + 1) * t[sel[k]];
		if (npc && sel[k] == npcol)
			*npc = gsl_vector_get(c, k + 1);
	}
	rc = 0;
out:
	gsl_matrix_free(A);
	gsl_vector_free(b);
	gsl_vector_free(w);
	gsl_vector_free(c);
	gsl_matrix_free(cov);
	gsl_multifit_linear_free(ws);
	return rc;
}

/* The law value(params) = exp(c0 + sum c_v log param_v), fitted by
 * weighted least squares on the logs (one row per input: the median, or
 * the minimum, of its repeats), evaluated at the target into *out. The
 * inputs that have the value take part (a segment seen at some rank
 * counts only is modelled from those), with the variables that vary
 * among them and are independent of each other; beyond their rank
 * counts the exponent of nprocs is kept within [MPP_NP_EXP_MIN,
 * MPP_NP_EXP_MAX] (refitted with it fixed there). note (may be NULL)
 * says what was done. 1: done; 0: no input has the value (or one lacks
 * it and need_all), or the fit failed; -1: no memory. */
static int law_at_target(const struct law *l,
			 double (*value)(size_t, const void *), const void *ctx,
			 double *out, struct law_note *note)
{
	size_t nv = l->nv, m = 0, sel[9], ns, npcol = 0;
	int rc = 0;
	double t[9];
	gsl_matrix *X = gsl_matrix_alloc(l->ngrp, nv + 1);
	gsl_vector *y = gsl_vector_alloc(l->ngrp);
	gsl_vector *wt = gsl_vector_alloc(l->ngrp);
	struct law_note nb;
	if (!note)
		note = &nb;
	memset(note, 0, sizeof *note);
	if (!X || !y || !wt) {
		rc = -1;
		goto out;
	}
	t[0] = 0;
	for (size_t v = 0; v < nv; v++) {
		t[v + 1] = log(*mpp_params_get(l->target, l->vars[v]));
		if (!strcmp(l->vars[v], "nprocs"))
			npcol = v + 1;
	}
	for (size_t G = 0; G < l->ngrp; G++) {
		size_t nval = 0, first = l->ntrain;
		for (size_t j = 0; j < l->ntrain; j++) {
			if (l->grp[j] != G)
				continue;
			first = first < l->ntrain ? first : j;
			double v = value(j, ctx);
			if (v > 0)
				l->vals[nval++] = v;
		}
		if (nval == 0)
			continue;
		gsl_sort(l->vals, 1, nval);
		gsl_matrix_set(X, m, 0, 1.0);
		double d2 = 0;
		for (size_t v = 0; v < nv; v++) {
			double lx =
			    log(*mpp_params_get(&l->tp[first], l->vars[v]));
			double d = t[v + 1] - lx;
			gsl_matrix_set(X, m, v + 1, lx);
			d2 += d * d;
		}
		const double *np = mpp_params_get(&l->tp[first], "nprocs");
		int npi = np ? (int)*np : 1;
		if (!note->rows || npi < note->np_lo)
			note->np_lo = npi;
		if (!note->rows || npi > note->np_hi)
			note->np_hi = npi;
		note->rows++;
		/* Inputs nearer the target (in the law's log space) weigh
		 * more: a small input can sit in another cache regime (cg's
		 * set-up at -n 24 ran 13x faster than at 32 for 2.4x the
		 * points; an even fit extrapolated it 3x too high at 52). */
		gsl_vector_set(wt, m, 1.0 / (d2 > 0.0025 ? d2 : 0.0025));
		gsl_vector_set(y, m,
			       log(l->use_min
				       ? l->vals[0]
				       : gsl_stats_median_from_sorted_data(
					     l->vals, 1, nval)));
		m++;
	}
	if (m == 0 || (l->need_all && m < l->ngrp))
		goto out;
	ns = choose(X, m, nv, sel);
	double lv, c = 0;
	for (size_t k = 0; k < ns; k++)
		note->np_var |= sel[k] == npcol && npcol;
	if (fit_at(X, y, wt, m, sel, ns, t, 0, 0, &lv, &c, npcol) < 0)
		goto out;
	note->np_exp = c;
	const double *tnp = mpp_params_get(l->target, "nprocs");
	int beyond =
	    tnp && ((int)*tnp > note->np_hi || (int)*tnp < note->np_lo);
	if (note->np_var && beyond &&
	    (c > MPP_NP_EXP_MAX || c < MPP_NP_EXP_MIN)) {
		double fix =
		    c > MPP_NP_EXP_MAX ? MPP_NP_EXP_MAX : MPP_NP_EXP_MIN;
		size_t k = 0, q = 0;
		for (; k < ns; k++)
			if (sel[k] != npcol)
				sel[q++] = sel[k];
		if (fit_at(X, y, wt, m, sel, q, t, npcol, fix, &lv, NULL, 0) <
		    0)
			goto out;
		note->capped = 1;
	}
	*out = exp(lv);
	rc = isfinite(*out) && *out > 0;
out:
	gsl_matrix_free(X);
	gsl_vector_free(y);
	gsl_vector_free(wt);
	return rc;
}

/* What a law needs from the training traces (struct law), with its
 * storage: their parameters and the target's, their groups of repeats,
 * the law's variables. */
struct law_in {
	mpp_params *tp, target;
	size_t *grp, ngrp, ntrain;
	double *vals;
	const char *vars[8];
	const char *merged[8]; /* variables collinear with vars: left out */
	size_t nmerged;
	struct law lw;
};

static void law_in_free(struct law_in *in)
{
	for (size_t j = 0; in->tp && j < in->ntrain; j++)
		mpp_params_free(&in->tp[j]);
	mpp_params_free(&in->target);
	free(in->tp);
	free(in->grp);
	free(in->vals);
}

/* 0, or -1 when out of memory (in is then freed). */
static int law_in_init(struct law_in *in, const struct mpp_trace *train,
		       size_t ntrain, const char *target_args, int nranks,
		       int use_min)
{
	size_t nv = 0;

	memset(in, 0, sizeof(*in));
	in->ntrain = ntrain;
	in->tp = calloc(ntrain, sizeof *in->tp);
	in->grp = calloc(ntrain, sizeof *in->grp);
	in->vals = calloc(ntrain, sizeof *in->vals);
	if (!in->tp || !in->grp || !in->vals)
		goto oom;
	for (size_t j = 0; j < ntrain; j++)
		if (mpp_params_from_string(train[j].args, train[j].nranks, -1,
					   &in->tp[j]) != 0)
			goto oom;
	/* "nprocs" is a parameter like the program's: a law variable when
	 * the training traces were taken at several rank counts. */
	if (mpp_params_from_string(target_args, nranks, -1, &in->target) != 0)
		goto oom;
	/* Traces of the same arguments and rank count are repeats of one
	 * input: one row of the fit each, the median over its repeats (one
	 * run disturbed by other jobs moves a median of three less than a
	 * mean). */
	for (size_t j = 0; j < ntrain; j++) {
		size_t q = 0;
		while (q < j && (strcmp(train[q].args, train[j].args) ||
				 train[q].nranks != train[j].nranks))
			q++;
		in->grp[j] = q == j ? in->ngrp++ : in->grp[q];
	}
	/* Parameters that vary among the training inputs, are positive, and
	 * are given for the target: the law's variables (at most inputs - 1
	 * of them, so that the fit has a degree of freedom or is exact). */
	const mpp_params *tp = in->tp;
	for (size_t i = 0; i < tp[0].n && nv < 8; i++) {
		const char *nm = tp[0].names[i];
		const double *tv = mpp_params_get(&in->target, nm);
		int varies = 0, ok = tv && *tv > 0;
		for (size_t j = 0; ok && j < ntrain; j++) {
			const double *v = mpp_params_get(&tp[j], nm);
			ok = v && *v > 0;
			varies |= ok && *v != tp[0].values[i];
		}
		if (ok && varies)
			in->vars[nv++] = nm;
	}
	/* Variables equal or collinear in log space over the inputs (-x =
	 * -y = -z; a rank grid -i -j -k whose product is nprocs) are one
	 * variable: the first of them (nprocs first) is kept, the others
	 * are named in the report. Taken as separate variables, their
	 * exponents were whatever the fit made of a singular system. */
	if (nv) {
		gsl_matrix *X = gsl_matrix_alloc(in->ngrp, nv + 1);
		size_t sel[9], ns, k = 0;
		if (!X)
			goto oom;
		for (size_t G = 0; G < in->ngrp; G++) {
			size_t j = 0;
			while (in->grp[j] != G)
				j++;
			for (size_t v = 0; v < nv; v++)
				gsl_matrix_set(
				    X, G, v + 1,
				    log(*mpp_params_get(&tp[j], in->vars[v])));
		}
		ns = choose(X, in->ngrp, nv, sel);
		gsl_matrix_free(X);
		const char *keep[8];
		for (size_t v = 0; v < nv; v++) {
			if (k < ns && sel[k] == v + 1)
				keep[k++] = in->vars[v];
			else
				in->merged[in->nmerged++] = in->vars[v];
		}
		memcpy(in->vars, keep, ns * sizeof *keep);
		nv = ns;
	}
	in->lw =
	    (struct law){ntrain,   in->ngrp, in->grp, in->tp,   &in->target,
			 in->vars, nv,       use_min, in->vals, 0};
	return 0;
oom:
	law_in_free(in);
	memset(in, 0, sizeof(*in));
	return -1;
}

int mpp_trace_scale(struct mpp_trace *skel, const struct mpp_trace *train,
		    size_t ntrain, const char *target_args, int use_min,
		    char *report, size_t replen, char *err, size_t errlen)
{
	struct kind *sk = NULL, **tk = NULL;
	size_t nsk = 0, *ntk = NULL, rep = 0;
	struct law_in in;
	int rc = -1;

	memset(&in, 0, sizeof(in));
	if (report && replen)
		report[0] = '\0';
	if (ntrain < 1) {
		snprintf(err, errlen, "--train: at least one trace");
		return -1;
	}
	tk = calloc(ntrain, sizeof *tk);
	ntk = calloc(ntrain, sizeof *ntk);
	if (!tk || !ntk || kinds(skel, &sk, &nsk) < 0)
		goto oom;
	for (size_t j = 0; j < ntrain; j++)
		if (kinds(&train[j], &tk[j], &ntk[j]) < 0)
			goto oom;
	if (law_in_init(&in, train, ntrain, target_args, skel->nranks, use_min))
		goto oom;
	const struct law lw = in.lw;
	const size_t nv = lw.nv;
	const char *const *vars = lw.vars;
	/* Kinds with a law of their own: their work at the target (all of
	 * them, `law_t`; those SMPI measured, `matched_t`, against SMPI's
	 * `matched_b`). The others (`other_b` as SMPI measured them) share
	 * what is left of the whole run's law. */
	double matched_t = 0, matched_b = 0, law_t = 0, other_b = 0;
	size_t ncapped = 0, npartial = 0, worst = 0;
	for (size_t s = 0; s < nsk; s++) {
		struct kind *x = &sk[s];
		struct per_kind pk = {tk, ntk, train, x->k};
		struct law_note nt;
		int h =
		    law_at_target(&lw, per_occurrence, &pk, &x->target, &nt);
		if (h < 0)
			goto oom;
		x->have = h;
		x->partial = h && nt.rows < lw.ngrp;
		x->capped = h && nt.capped;
		x->np_exp = nt.np_exp;
		x->np_lo = nt.np_lo;
		x->np_hi = nt.np_hi;
		npartial += x->partial;
		if (x->capped &&
		    (!ncapped++ ||
		     fabs(x->np_exp - 0.5) > fabs(sk[worst].np_exp - 0.5)))
			worst = s;
		/* The law is work per occurrence on one rank. */
		double occ1 = x->occ / skel->nranks;
		if (x->have)
			law_t += x->target * occ1;
		if (x->have && x->flops > 0) {
			matched_t += x->target * occ1;
			matched_b += x->flops * 1e-9;
		} else if (!x->have)
			other_b += x->flops * 1e-9;
	}
	/* Kinds missing from some training trace: the target's ranks do
	 * things the training runs did not (a task farm's workers, where at 1
	 * rank the master does the tasks itself; a halo exchange a code skips
	 * at 1 rank). Work is still conserved: the whole run's computation
	 * follows a law of its own, and what it leaves after the kinds with
	 * laws goes to the others, as SMPI measured them. Before, they took
	 * the ratio of the matched kinds, which can be one small segment's
	 * (a final checksum's) and scaled the sweeps by it. When the kinds
	 * with laws leave nothing (their laws disagree with the whole run's),
	 * the others take the matched kinds' ratio. */
	double whole_t = 0, glob = 0, shrink = 1;
	int whole = 0; /* 1: no kind has a law; 2: some have */
	struct per_kind wpk = {tk, ntk, train, NULL};
	struct law_note wn;
	int wh = law_at_target(&lw, whole_run, &wpk, &whole_t, &wn);
	if (wh < 0)
		goto oom;
	/* The segments' laws are fitted one by one; together they must not
	 * say more than the whole run's law (fitted on the totals, which
	 * one disturbed segment moves less): beyond 1.25x it, they are
	 * scaled down to it. */
	if (wh && law_t > 1.25 * whole_t) {
		shrink = whole_t / law_t;
		matched_t *= shrink;
		law_t = whole_t;
		for (size_t s = 0; s < nsk; s++)
			if (sk[s].have)
				sk[s].target *= shrink;
	}
	if (other_b > 0 && wh && whole_t > law_t) {
		glob = (whole_t - law_t) / other_b;
		whole = matched_b > 0 ? 2 : 1;
	}
	if (!whole && matched_b <= 0) {
		snprintf(err, errlen,
			 "no computation to scale: the target run has none "
			 "SMPI measured, or a training trace has none");
		goto out;
	}
	if (!whole)
		glob = matched_t / matched_b;
	/* The global factor turns SMPI's benchmark of the target's
	 * computation into the traces' time on the machine: the same code on
	 * the same machine, so near 1 (0.3-3 seen). Beyond MPP_GLOBAL_MAX
	 * either way the laws, not the machine, are speaking (300-1000 in
	 * issue 38, from a segment law past the whole run's): capped. When
	 * it is what the whole run's law leaves for the kinds without a law,
	 * it is held as near the kinds with laws' own ratio (ref): miniFE at
	 * 16 ranks from 1- and 2-rank traces left 0.14 s of the whole run's
	 * law to its many-neighbour exchange, segments SMPI timed at 16-60
	 * ns, factors 29-134 from one SMPI run to the next and answers 0.146
	 * or 0.210 s. With no kind of a law (ref unknown) the whole run's law
	 * stands alone: it conserves the work. */
	double glob_raw = glob, ref = whole == 2 ? matched_t / matched_b : 1;
	if (whole != 1 && glob > MPP_GLOBAL_MAX * ref)
		glob = MPP_GLOBAL_MAX * ref;
	if (whole != 1 && glob > 0 && glob < ref / MPP_GLOBAL_MAX)
		glob = ref / MPP_GLOBAL_MAX;
	if (report) {
		rep += (size_t)snprintf(report + rep, replen - rep,
					"law variables:%s",
					nv ? ""
					   : " none (one training input: "
					     "no scaling)");
		for (size_t v = 0; v < nv && rep < replen; v++)
			rep += (size_t)snprintf(report + rep, replen - rep,
						" %s", vars[v]);
		for (size_t v = 0; v < in.nmerged && rep < replen; v++)
			rep += (size_t)snprintf(
			    report + rep, replen - rep, "%s%s",
			    v ? " " : " (merged: ", in.merged[v]);
		if (in.nmerged && rep < replen)
			rep += (size_t)snprintf(
			    report + rep, replen - rep,
			    " equal or collinear with those in every trace)");
	}
	if (report && rep < replen)
		rep += (size_t)snprintf(
		    report + rep, replen - rep, "; global factor %.4g%s\n",
		    glob,
		    whole == 1   ? " (no segment kind of the target run is in "
				   "every training trace: the whole run's law)"
		    : whole == 2 ? " (for the kinds without a law: what the "
				   "whole run's law leaves)"
				 : "");
	int lo = train[0].nranks, hi = train[0].nranks;
	for (size_t j = 1; j < ntrain; j++) {
		lo = train[j].nranks < lo ? train[j].nranks : lo;
		hi = train[j].nranks > hi ? train[j].nranks : hi;
	}
	if (report && rep < replen && npartial)
		rep += (size_t)snprintf(
		    report + rep, replen - rep,
		    "%zu segment kind(s) not in every training trace: each "
		    "modelled from the traces that have it (marked)\n",
		    npartial);
	if (report && rep < replen && ncapped)
		rep += (size_t)snprintf(
		    report + rep, replen - rep,
		    "warning: %zu segment kind(s): rank-count exponent of the "
		    "work outside [%g, %g] from the traces at %d-%d ranks, "
		    "capped beyond them (farthest %.3g: %s)\n",
		    ncapped, MPP_NP_EXP_MIN, MPP_NP_EXP_MAX, lo, hi,
		    sk[worst].np_exp, sk[worst].k);
	if (report && rep < replen && wh && wn.capped)
		rep += (size_t)snprintf(
		    report + rep, replen - rep,
		    "warning: the whole run's law: rank-count exponent %.3g "
		    "capped beyond the traced %d-%d ranks\n",
		    wn.np_exp, lo, hi);
	if (report && rep < replen && shrink < 1)
		rep += (size_t)snprintf(
		    report + rep, replen - rep,
		    "warning: the segments' laws add up to %.4g s, more than "
		    "1.25x the whole run's law (%.4g s): scaled down to it\n",
		    whole_t / shrink, whole_t);
	if (report && rep < replen && glob != glob_raw && whole == 2)
		rep += (size_t)snprintf(
		    report + rep, replen - rep,
		    "warning: global factor %.4g outside [1/%g, %g] x the "
		    "kinds with laws' own %.4g: capped at %.4g (what the "
		    "whole run's law leaves for the kinds without a law, over "
		    "SMPI's benchmark of them)\n",
		    glob_raw, MPP_GLOBAL_MAX, MPP_GLOBAL_MAX, ref, glob);
	else if (report && rep < replen && glob != glob_raw)
		rep += (size_t)snprintf(
		    report + rep, replen - rep,
		    "warning: global factor %.4g outside [1/%g, %g]: capped "
		    "at %.4g\n",
		    glob_raw, MPP_GLOBAL_MAX, MPP_GLOBAL_MAX, glob);
	for (size_t s = 0; s < nsk; s++) {
		struct kind *x = &sk[s];
		char why[96] = "";
		double f = glob;
		if (x->have && x->flops > 0)
			f = x->target * (x->occ / skel->nranks) /
			    (x->flops * 1e-9);
		/* SMPI injects no computation below its cpu threshold (1 us):
		 * such a kind's work is spread evenly over its occurrences. */
		if (x->have && x->flops <= 0 && x->occ > 0)
			x->even =
			    x->target * (x->occ / skel->nranks) / x->occ * 1e9;
		if (x->partial && x->np_lo == x->np_hi)
			snprintf(why, sizeof why,
				 " (from the traces at %d ranks only)",
				 x->np_lo);
		else if (x->partial)
			snprintf(why, sizeof why,
				 " (from the traces that have it, %d-%d ranks)",
				 x->np_lo, x->np_hi);
		if (x->capped)
			snprintf(why + strlen(why), sizeof why - strlen(why),
				 " (rank-count exponent %.3g capped)",
				 x->np_exp);
		if (report && rep < replen && x->flops * 1e-9 > 1e-4)
			rep += (size_t)snprintf(
			    report + rep, replen - rep,
			    "  %-24s x%-6.0f smpi %.4f s -> %.4f s%s%s\n", x->k,
			    x->occ, x->flops * 1e-9, x->flops * 1e-9 * f,
			    x->have ? "" : " (global factor)", why);
		x->target = f;
	}
	char k[256];
	for (int r = 0; r < skel->nranks; r++)
		for (size_t i = 0; i < skel->n[r]; i++) {
			if (strcmp(skel->a[r][i].name, "compute"))
				continue;
			kind_of(skel, r, i, k, sizeof k);
			for (size_t s = 0; s < nsk; s++)
				if (!strcmp(sk[s].k, k)) {
					if (sk[s].even > 0)
						skel->a[r][i].flops =
						    sk[s].even;
					else
						skel->a[r][i].flops *=
						    sk[s].target;
				}
		}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	for (size_t j = 0; tk && j < ntrain; j++)
		free(tk[j]);
	law_in_free(&in);
	free(tk);
	free(ntk);
	free(sk);
	return rc;
}

/* Log distance between two inputs over the law's variables and the rank
 * count (a variable or not: the work is assumed conserved over it then,
 * an assumption as uncertain as an exponent). */
static double log_dist(const mpp_params *a, const mpp_params *b,
		       const char *const *vars, size_t nv)
{
	double d2 = 0;
	int np = 0;
	for (size_t v = 0; v <= nv; v++) {
		const char *nm = v < nv ? vars[v] : "nprocs";
		if (v == nv && np)
			break;
		np |= !strcmp(nm, "nprocs");
		const double *x = mpp_params_get(a, nm);
		const double *y = mpp_params_get(b, nm);
		if (x && y && *x > 0 && *y > 0)
			d2 += (log(*x) - log(*y)) * (log(*x) - log(*y));
	}
	return sqrt(d2);
}

/* The whole run's computation of training trace j, but 0 (absent) for
 * the left-out group. */
struct left_out {
	const struct mpp_trace *train;
	const size_t *grp;
	size_t out;
};

static double whole_but(size_t j, const void *ctx)
{
	const struct left_out *o = ctx;
	double s = 0;
	if (o->grp[j] == o->out)
		return 0;
	for (int r = 0; r < o->train[j].nranks; r++)
		s += mpp_trace_compute(&o->train[j], r);
	return s;
}

int mpp_trace_law_error(const struct mpp_trace *train, size_t ntrain,
			const char *target_args, int nranks, int use_min,
			double *per, double *dist, size_t *near)
{
	struct law_in in;
	double best = INFINITY, dn = INFINITY, v, got;
	size_t G0 = 0, j0 = 0;
	*per = NAN;
	*dist = 0;
	*near = 0;
	if (!ntrain)
		return 0;
	if (law_in_init(&in, train, ntrain, target_args, nranks, use_min))
		return -1;
	struct law lw = in.lw;
	for (size_t j = 0; j < ntrain; j++) {
		double d = log_dist(&in.target, &in.tp[j], lw.vars, lw.nv);
		if (d < best) {
			best = d;
			G0 = in.grp[j];
			j0 = j;
		}
	}
	*dist = best;
	*near = j0;
	for (size_t j = 0; j < ntrain; j++) {
		double d = log_dist(&in.tp[j0], &in.tp[j], lw.vars, lw.nv);
		if (in.grp[j] != G0 && d < dn)
			dn = d;
	}
	/* The left-out input as its repeats give it (as the law takes
	 * them), and as the law of the others predicts it. */
	struct left_out all = {train, in.grp, (size_t)-1};
	size_t n = 0;
	for (size_t j = 0; j < ntrain; j++)
		if (in.grp[j] == G0)
			in.vals[n++] = whole_but(j, &all);
	gsl_sort(in.vals, 1, n);
	got = use_min ? in.vals[0]
		      : gsl_stats_median_from_sorted_data(in.vals, 1, n);
	struct left_out lo = {train, in.grp, G0};
	lw.target = &in.tp[j0];
	int h = isfinite(dn) && dn > 0 && got > 0
		    ? law_at_target(&lw, whole_but, &lo, &v, NULL)
		    : 0;
	if (h < 0) {
		law_in_free(&in);
		return -1;
	}
	if (h)
		*per = fabs(log(v / got)) / dn;
	law_in_free(&in);
	return 0;
}

/* The cost per unit of counted work (mpp_trace_work_cost). */
static double counted_work(size_t j, const void *ctx)
{
	const double *w = ctx;
	return w[j] > 0 && isfinite(w[j]) ? w[j] : 0;
}

/* The median, or the minimum, of group G's values of f. */
static double group_stat(const struct law *l, size_t G,
			 double (*f)(size_t, const void *), const void *ctx)
{
	size_t n = 0;
	for (size_t j = 0; j < l->ntrain; j++)
		if (l->grp[j] == G)
			l->vals[n++] = f(j, ctx);
	if (!n)
		return 0;
	gsl_sort(l->vals, 1, n);
	return l->use_min ? l->vals[0]
			  : gsl_stats_median_from_sorted_data(l->vals, 1, n);
}

static double traced_compute(size_t j, const void *ctx)
{
	const struct mpp_trace *t = ctx;
	double s = 0;
	for (int r = 0; r < t[j].nranks; r++)
		s += mpp_trace_compute(&t[j], r);
	return s;
}

int mpp_trace_work_cost(struct mpp_trace *skel, const struct mpp_trace *train,
			size_t ntrain, const double *work,
			const char *target_args, int use_min, double *factor,
			char *report, size_t replen, char *err, size_t errlen)
{
	struct law_in in;
	double wt = 0, now = 0;
	size_t best = (size_t)-1, bestj = 0;
	int same = 0, h;

	*factor = 1;
	if (report && replen)
		report[0] = '\0';
	if (law_in_init(&in, train, ntrain, target_args, skel->nranks,
			use_min)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	/* The target's counted work: the counters' power law in the
	 * parameters (counts do not depend on the machine, so it is the
	 * extrapolation that errs least). */
	in.lw.need_all = 1;
	h = law_at_target(&in.lw, counted_work, work, &wt, NULL);
	if (h < 0) {
		law_in_free(&in);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (h == 0 || !(wt > 0)) {
		if (report && replen)
			snprintf(report, replen,
				 "counted work: not known for every training "
				 "input (no run row with loop counters for its "
				 "arguments and ranks): the laws' computation "
				 "kept\n");
		law_in_free(&in);
		return 0;
	}
	/* The cost per unit is taken where the ranks share the node as the
	 * target's do: the input with the most work per rank at the
	 * target's rank count; with none at that count, the input whose
	 * work per rank is nearest the target's. */
	double bw = 0, bd = INFINITY;
	for (size_t j = 0; j < ntrain; j++) {
		double w = group_stat(&in.lw, in.grp[j], counted_work, work);
		double per = w / train[j].nranks;
		if (train[j].nranks == skel->nranks) {
			if (!same || w > bw) {
				same = 1;
				bw = w;
				best = in.grp[j];
				bestj = j;
			}
		} else if (!same) {
			double d = fabs(log(per / (wt / skel->nranks)));
			if (d < bd) {
				bd = d;
				best = in.grp[j];
				bestj = j;
			}
		}
	}
	double w = group_stat(&in.lw, best, counted_work, work);
	double t = group_stat(&in.lw, best, traced_compute, train);
	for (int r = 0; r < skel->nranks; r++)
		now += mpp_trace_compute(skel, r);
	if (!(w > 0) || !(t > 0) || !(now > 0)) {
		if (report && replen)
			snprintf(report, replen,
				 "counted work: no computation to compare: the "
				 "laws' computation kept\n");
		law_in_free(&in);
		return 0;
	}
	double f = wt * (t / w) / now;
	if (!isfinite(f) || !(f > 0)) {
		if (report && replen)
			snprintf(report, replen,
				 "counted work: a factor of %g is no "
				 "computation: the laws' computation kept\n",
				 f);
		law_in_free(&in);
		return 0;
	}
	*factor = f;
	for (int r = 0; r < skel->nranks; r++)
		for (size_t i = 0; i < skel->n[r]; i++)
			if (!strcmp(skel->a[r][i].name, "compute"))
				skel->a[r][i].flops *= *factor;
	if (report && replen)
		snprintf(report, replen,
			 "counted work: %.4g at the target; %.4g ns per unit "
			 "from '%s' at %d rank%s: computation %.4f s -> "
			 "%.4f s (x%.3f)\n",
			 wt, t / w * 1e9, train[bestj].args,
			 train[bestj].nranks,
			 train[bestj].nranks > 1 ? "s" : "", now, now * *factor,
			 *factor);
	law_in_free(&in);
	return 0;
}

/* Machine noise (mpp_trace_noise). The scaled skeleton's segments carry
 * SMPI's benchmark: every rank's computation measured one after the other
 * on one core of an otherwise idle simulation, so its ranks drift apart
 * only by what the host's timer saw. Real ranks on a shared node do not
 * run at one speed: a rank that loses its core for a while, or shares
 * memory bandwidth with its neighbour, arrives late, and the others wait.
 * The training traces at more than one rank recorded that, segment by
 * segment. The skeleton's segments of each kind take the shape of those
 * of the training traces of one input (its repeats, a block of the run
 * each: the first third from the first repeat, and so on, so that the
 * level of noise is theirs on average and not one run's): occurrence i of
 * M on rank r gets the relative time of occurrence i * N / M of N on the
 * block's trace, rank r mod P (the same point of the run), times the
 * kind's mean; the kind's total is kept, so the work stays what the laws
 * say and only its timing spreads. */

/* Occurrences of one kind on one rank of a trace, in order. */
struct occ {
	size_t n, cap, *at;
	double sum;
};

/* For every rank of t, the occurrences of every kind of ks (by name). */
static struct occ *occurrences(const struct mpp_trace *t, const struct kind *ks,
			       size_t nk)
{
	char k[256];
	struct occ *o = calloc((size_t)t->nranks * (nk ? nk : 1), sizeof *o);
	if (!o)
		return NULL;
	for (int r = 0; r < t->nranks; r++)
		for (size_t i = 0; i < t->n[r]; i++) {
			if (strcmp(t->a[r][i].name, "compute"))
				continue;
			kind_of(t, r, i, k, sizeof k);
			size_t s = 0;
			while (s < nk && strcmp(ks[s].k, k))
				s++;
			if (s == nk)
				continue;
			struct occ *x = &o[(size_t)r * nk + s];
			if (x->n == x->cap) {
				size_t c = x->cap ? 2 * x->cap : 64;
				size_t *p = realloc(x->at, c * sizeof *p);
				if (!p)
					goto oom;
				x->at = p;
				x->cap = c;
			}
			x->at[x->n++] = i;
			x->sum += t->a[r][i].flops;
		}
	return o;
oom:
	for (size_t j = 0; j < (size_t)t->nranks * nk; j++)
		free(o[j].at);
	free(o);
	return NULL;
}

static void occurrences_free(struct occ *o, size_t n)
{
	for (size_t j = 0; o && j < n; j++)
		free(o[j].at);
	free(o);
}

size_t mpp_trace_noise_sources(const struct mpp_trace *train, size_t ntrain,
			       int nranks, const struct mpp_trace **out,
			       size_t max)
{
	const struct mpp_trace *best = NULL;
	double bestwork = 0;
	int bestp = 0;
	size_t n = 0;
	/* The rank count nearest below the target's (or equal). */
	for (size_t j = 0; j < ntrain; j++)
		if (train[j].nranks > bestp && train[j].nranks <= nranks)
			bestp = train[j].nranks;
	/* Its largest input (most computation: the nearest the target). */
	for (size_t j = 0; j < ntrain; j++) {
		double w = 0;
		if (train[j].nranks != bestp)
			continue;
		for (int r = 0; r < bestp; r++)
			w += mpp_trace_compute(&train[j], r);
		if (!best || w > bestwork * 1.001)
			bestwork = w, best = &train[j];
	}
	/* All its repeats, in the order given. */
	for (size_t j = 0; best && j < ntrain && n < max; j++)
		if (train[j].nranks == bestp &&
		    !strcmp(train[j].args, best->args))
			out[n++] = &train[j];
	return n;
}

/* Whether kind s is rank 0's own work (output after a gather, reading
 * the input before a broadcast): rank 0's total of it more than 4x the
 * other ranks' mean, in the skeleton (SMPI's benchmark of the target) and
 * in every source (runs on this machine) alike. Noise maps target rank r
 * to source rank r mod P, which would hand such work to every P-th rank;
 * it keeps SMPI's split instead. In PENNANT's 2-rank sources the ranks'
 * totals of a kind differed at most 2.5x where only noise parted them,
 * 40,000x for its output. */
static int rank0_own(const struct occ *o, int nranks, size_t nk, size_t s)
{
	double rest = 0;
	if (nranks < 2)
		return 0;
	for (int r = 1; r < nranks; r++)
		rest += o[(size_t)r * nk + s].sum;
	return o[s].sum > 4 * rest / (nranks - 1);
}

/* A reshaped segment: rank, index, new flops. */
struct reshape {
	int r;
	size_t i;
	double flops;
};

int mpp_trace_noise(struct mpp_trace *skel, const struct mpp_trace *const *src,
		    size_t nsrc, size_t *changed, char *err, size_t errlen)
{
	struct kind *ks = NULL;
	size_t nk = 0, nr = 0, cap = 0;
	struct occ *ko = NULL, **so = NULL;
	struct reshape *rs = NULL;
	double *smean = NULL;
	int rc = -1;
	*changed = 0;
	if (nsrc == 0)
		return 0;
	so = calloc(nsrc, sizeof *so);
	smean = calloc(nsrc, sizeof *smean);
	if (!so || !smean || kinds(skel, &ks, &nk) < 0)
		goto oom;
	/* one table of kinds for all: the skeleton's */
	if (!(ko = occurrences(skel, ks, nk)))
		goto oom;
	for (size_t b = 0; b < nsrc; b++)
		if (!(so[b] = occurrences(src[b], ks, nk)))
			goto oom;
	for (size_t s = 0; s < nk; s++) {
		if (!(ks[s].flops > 0) || !isfinite(ks[s].flops))
			continue; /* nothing to shape */
		int own = rank0_own(ko, skel->nranks, nk, s);
		for (size_t b = 0; own && b < nsrc; b++)
			own = rank0_own(so[b], src[b]->nranks, nk, s);
		if (own)
			continue;
		double kmean = ks[s].flops / ks[s].occ, ktot = 0, knew = 0;
		for (size_t b = 0; b < nsrc; b++) {
			double tot = 0, occ = 0;
			for (int r = 0; r < src[b]->nranks; r++) {
				tot += so[b][(size_t)r * nk + s].sum;
				occ += (double)so[b][(size_t)r * nk + s].n;
			}
			smean[b] = tot > 0 && isfinite(tot) ? tot / occ : 0;
		}
		nr = 0;
		for (int r = 0; r < skel->nranks; r++) {
			const struct occ *x = &ko[(size_t)r * nk + s];
			for (size_t i = 0; i < x->n; i++) {
				size_t b = (size_t)((double)i * (double)nsrc /
						    (double)x->n);
				int p = src[b]->nranks;
				const struct occ *y =
				    &so[b][(size_t)(r % p) * nk + s];
				if (!y->n || smean[b] <= 0)
					continue;
				/* more ranks than the source: each further
				 * block of its ranks starts at another point
				 * of its run, so that they are not slowed
				 * down in step */
				int nb = (skel->nranks + p - 1) / p;
				size_t shift = (size_t)((double)(r / p) *
							(double)y->n / nb);
				size_t j = ((size_t)((double)i * (double)y->n /
						     (double)x->n) +
					    shift) %
					   y->n;
				double f =
				    src[b]->a[r % p][y->at[j]].flops / smean[b];
				if (nr == cap) {
					size_t c = cap ? 2 * cap : 256;
					struct reshape *t =
					    realloc(rs, c * sizeof *t);
					if (!t)
						goto oom;
					rs = t;
					cap = c;
				}
				rs[nr++] =
				    (struct reshape){r, x->at[i], kmean * f};
				ktot += skel->a[r][x->at[i]].flops;
				knew += kmean * f;
			}
		}
		/* keep the kind's total: the laws' work */
		if (!(knew > 0) || !isfinite(knew) || !isfinite(ktot))
			continue;
		for (size_t q = 0; q < nr; q++)
			skel->a[rs[q].r][rs[q].i].flops =
			    rs[q].flops * (ktot / knew);
		*changed += nr;
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	occurrences_free(ko, ko ? (size_t)skel->nranks * nk : 0);
	for (size_t b = 0; so && b < nsrc; b++)
		occurrences_free(so[b],
				 so[b] ? (size_t)src[b]->nranks * nk : 0);
	free(so);
	free(smean);
	free(rs);
	free(ks);
	return rc;
}

/* Actions SimGrid 3.32's replay knows (smpi_replay.cpp registers them);
 * point-to-point and waits are handled before. */
static int replayable(const char *n)
{
	static const char *const ok[] = {
	    "init",      "finalize",   "barrier",       "bcast",
	    "reduce",    "allreduce",  "alltoall",      "alltoallv",
	    "gather",    "gatherv",    "scatter",       "scatterv",
	    "allgather", "allgatherv", "reducescatter", "waitall"};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		if (!strcmp(n, ok[i]))
			return 1;
	return 0;
}

/* First integer token of s (the peer of a point-to-point action). */
static long first_int(const char *s)
{
	return strtol(s, NULL, 10);
}

/* Second integer token of s (0 when there is none). */
static long second_int(const char *s)
{
	char *e;
	strtol(s, &e, 10);
	return e == s ? 0 : strtol(e, NULL, 10);
}

/* A neighbourhood collective's trace fields (collector/trace.c:
 * "<nin> <nout>" then <peer> <bytes> per source and per destination) as
 * an irecv per source, an isend per destination (peers that are ranks;
 * tag NB_TAG, which the program's own messages are unlikely to use) and a
 * waitall. Blocking or not, the call completes here (like the other
 * nonblocking collectives). Returns 0, or -1 when the fields are wrong. */
#define NB_TAG    32766
#define GROUP_TAG 32000 /* to 32699: collectives on some of the ranks */
static int neighbor_out(FILE *f, int r, const char *args)
{
	const char *p = args;
	char *e;
	long nin = strtol(p, &e, 10), nout, peer;
	unsigned long long b;
	int any = 0;
	if (e == p || nin < 0 || nin > 1 << 20)
		return -1;
	p = e;
	nout = strtol(p, &e, 10);
	if (e == p || nout < 0 || nout > 1 << 20)
		return -1;
	p = e;
	for (long i = 0; i < nin + nout; i++) {
		peer = strtol(p, &e, 10);
		if (e == p)
			return -1;
		p = e;
		b = strtoull(p, &e, 10);
		if (e == p)
			return -1;
		p = e;
		if (peer >= 0) {
			fprintf(f, "%d %s %ld %d %llu\n", r,
				i < nin ? "irecv" : "isend", peer, NB_TAG, b);
			any = 1;
		}
	}
	if (any)
		fprintf(f, "%d waitall\n", r);
	return 0;
}

/* A collective on some of the ranks (collector/trace.c writes its fields,
 * then " @ <n> <member world ranks>"). SimGrid's replay runs collectives
 * over every rank, so it becomes point-to-point messages among the
 * members, on a tag of the group's own (messages of two groups between
 * the same two ranks do not match each other's):
 *   - bcast, reduce: a binomial tree from or to the root; allreduce and
 *     barrier: a reduce to the first member and a broadcast from it;
 *   - gather(v), scatter(v): each member to or from the root directly;
 *   - allgather(v), alltoall(v), reducescatter: each member to each other
 *     member directly (irecvs, isends, a waitall);
 *   - scan, exscan: a chain in member order.
 * The sizes are those of the call; SimGrid's own algorithms for the
 * collective are not used (the count of approximated actions says so). */
struct group {
	int n, me;        /* members; this rank's index among them */
	const int *world; /* world rank of each member */
	int tag;
	FILE *f;
	int r;
};

static void g_msg(const struct group *g, const char *op, int idx,
		  unsigned long long b)
{
	fprintf(g->f, "%d %s %d %d %llu\n", g->r, op, g->world[idx], g->tag, b);
}

/* Binomial tree over the members, rooted at index root: receive from the
 * parent, then send to the children (MPICH's order). */
static void g_bcast(const struct group *g, int root, unsigned long long b)
{
	int n = g->n, v = (g->me - root + n) % n, mask = 1;
	while (mask < n && !(v & mask))
		mask <<= 1;
	if (mask < n)
		g_msg(g, "recv", (v - mask + root) % n, b);
	for (mask >>= 1; mask > 0; mask >>= 1)
		if (v + mask < n)
			g_msg(g, "send", (v + mask + root) % n, b);
}

static void g_reduce(const struct group *g, int root, unsigned long long b)
{
	int n = g->n, v = (g->me - root + n) % n;
	for (int mask = 1; mask < n; mask <<= 1) {
		if (v & mask) {
			g_msg(g, "send", (v - mask + root) % n, b);
			return;
		}
		if (v + mask < n)
			g_msg(g, "recv", (v + mask + root) % n, b);
	}
}

/* Every member sends send[j] bytes to member j and receives recv[j]
 * from it (NULL: the same size s or r to or from each). */
static void g_exchange(const struct group *g, const unsigned long long *send,
		       unsigned long long s, const unsigned long long *recv,
		       unsigned long long r)
{
	for (int j = 0; j < g->n; j++)
		if (j != g->me)
			g_msg(g, "irecv", j, recv ? recv[j] : r);
	for (int j = 0; j < g->n; j++)
		if (j != g->me)
			g_msg(g, "isend", j, send ? send[j] : s);
	if (g->n > 1)
		fprintf(g->f, "%d waitall\n", g->r);
}

/* The root receives recv[j] (or r) from every other member, which sends
 * it s; scatter is the same the other way. */
static void g_gather(const struct group *g, int root, int scatter,
		     unsigned long long s, const unsigned long long *recv,
		     unsigned long long r)
{
	if (g->me != root) {
		g_msg(g, scatter ? "recv" : "send", root, s);
		return;
	}
	for (int j = 0; j < g->n; j++)
		if (j != root)
			g_msg(g, scatter ? "isend" : "irecv", j,
			      recv ? recv[j] : r);
	if (g->n > 1)
		fprintf(g->f, "%d waitall\n", g->r);
}

/* Index among the members of world rank w, or -1. */
static int g_index(const struct group *g, long w)
{
	for (int j = 0; j < g->n; j++)
		if (g->world[j] == w)
			return j;
	return -1;
}

/* Writes the replay of collective `name` (its "i" dropped) with fields
 * v[0..nv) among the members. Returns 0, or -1 when the fields do not fit
 * the collective. */
static int group_out(const struct group *g, const char *name,
		     const unsigned long long *v, int nv)
{
	int n = g->n, root;
	if (!strcmp(name, "barrier") && nv == 0) {
		g_reduce(g, 0, 0);
		g_bcast(g, 0, 0);
	} else if (!strcmp(name, "bcast") && nv == 2) {
		if ((root = g_index(g, (long)v[1])) < 0)
			return -1;
		g_bcast(g, root, v[0]);
	} else if (!strcmp(name, "reduce") && nv == 3) {
		if ((root = g_index(g, (long)v[2])) < 0)
			return -1;
		g_reduce(g, root, v[0]);
	} else if (!strcmp(name, "allreduce") && nv == 2) {
		g_reduce(g, 0, v[0]);
		g_bcast(g, 0, v[0]);
	} else if ((!strcmp(name, "scan") && nv == 2) ||
		   (!strcmp(name, "exscan") && nv == 1)) {
		if (g->me > 0)
			g_msg(g, "recv", g->me - 1, v[0]);
		if (g->me + 1 < n)
			g_msg(g, "send", g->me + 1, v[0]);
	} else if ((!strcmp(name, "gather") || !strcmp(name, "scatter")) &&
		   nv == 3) {
		if ((root = g_index(g, (long)v[2])) < 0)
			return -1;
		if (name[0] == 'g')
			g_gather(g, root, 0, v[0], NULL, v[1]);
		else
			g_gather(g, root, 1, v[1], NULL, v[0]);
	} else if (!strcmp(name, "gatherv") && nv == n + 2) {
		if ((root = g_index(g, (long)v[n + 1])) < 0)
			return -1;
		g_gather(g, root, 0, v[0], v + 1, 0);
	} else if (!strcmp(name, "scatterv") && nv == n + 2) {
		if ((root = g_index(g, (long)v[n + 1])) < 0)
			return -1;
		g_gather(g, root, 1, v[n], v, 0);
	} else if ((!strcmp(name, "allgather") || !strcmp(name, "alltoall")) &&
		   nv == 2) {
		g_exchange(g, NULL, v[0], NULL, v[1]);
	} else if (!strcmp(name, "allgatherv") && nv == n + 1) {
		g_exchange(g, NULL, v[0], v + 1, 0);
	} else if ((!strcmp(name, "alltoallv") || !strcmp(name, "alltoallw")) &&
		   nv == 2 * n + 2) {
		g_exchange(g, v + 1, 0, v + n + 2, 0);
	} else if (!strcmp(name, "reducescatter") && nv == n + 1) {
		g_exchange(g, v, 0, NULL, v[g->me]);
	} else {
		return -1;
	}
	return 0;
}

/* A collective whose args carry " @ <n> <members>": parsed and written by
 * group_out. Returns 1 when written, 0 when args have no member list, -1
 * when they are malformed (err says why). */
static int subgroup_out(FILE *f, int r, int nranks, const char *name,
			const char *args, char *err, size_t errlen)
{
	const char *at = strchr(args, '@'), *p = args, *list;
	unsigned long long *v = NULL;
	int *world = NULL, nv = 0, rc = -1;
	char *seen = NULL; /* each member once */
	long n;
	char *e;
	struct group g = {0};
	if (!at)
		return 0;
	if (at > args && at[-1] != ' ')
		goto bad;
	n = strtol(at + 1, &e, 10);
	if (e == at + 1 || n < 1 || n > 1 << 20)
		goto bad;
	list = e;
	v = malloc((size_t)(at - args) / 2 * sizeof *v + sizeof *v);
	world = malloc((size_t)n * sizeof *world);
	seen = calloc((size_t)nranks, 1);
	if (!v || !world || !seen) {
		snprintf(err, errlen, "rank %d: %s: out of memory", r, name);
		goto out;
	}
	while (p < at) {
		while (*p == ' ')
			p++;
		if (p == at)
			break;
		if (*p < '0' || *p > '9')
			goto bad;
		v[nv++] = strtoull(p, &e, 10);
		p = e;
	}
	g = (struct group){(int)n, -1, world, 0, f, r};
	p = list;
	for (long j = 0; j < n; j++) {
		world[j] = (int)strtol(p, &e, 10);
		if (e == p || world[j] < 0 || world[j] >= nranks ||
		    seen[world[j]]++)
			goto bad;
		if (world[j] == r)
			g.me = (int)j;
		p = e;
		/* The same tag on every member: a hash of the group. */
		g.tag =
		    (int)(((unsigned)g.tag * 31u + (unsigned)world[j]) % 700u);
	}
	while (*p == ' ')
		p++;
	if (*p || g.me < 0)
		goto bad;
	g.tag += GROUP_TAG;
	if (group_out(&g,
		      name[0] == 'i' && strcmp(name, "init") ? name + 1 : name,
		      v, nv) == 0) {
		rc = 1;
		goto out;
	}
bad:
	snprintf(err, errlen,
		 "rank %d: %s %s: expected the collective's fields, then @ "
		 "<n> and the n members' ranks (distinct, < %d), this rank "
		 "among them",
		 r, name, args, nranks);
out:
	free(v);
	free(world);
	free(seen);
	return rc;
}

int mpp_trace_write_replay(const struct mpp_trace *t, const char *dir,
			   size_t *approx, char *err, size_t errlen)
{
	char path[4096];
	FILE *list, *f;
	*approx = 0;
	snprintf(path, sizeof path, "%s/list", dir);
	list = fopen(path, "w");
	if (!list) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	for (int r = 0; r < t->nranks; r++) {
		snprintf(path, sizeof path, "%s/r%d.ti", dir, r);
		fprintf(list, "%s\n", path);
		f = fopen(path, "w");
		if (!f) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			fclose(list);
			return -1;
		}
		for (size_t i = 0; i < t->n[r]; i++) {
			const struct mpp_act *x = &t->a[r][i];
			const char *n = x->name;
			int g;
			if (!strcmp(n, "compute")) {
				if (x->flops >= 0.5)
					fprintf(f, "%d compute %.0f\n", r,
						x->flops);
			} else if (!strcmp(n, "send") || !strcmp(n, "isend") ||
				   !strcmp(n, "recv") || !strcmp(n, "irecv")) {
				if (first_int(x->args) >= 0)
					fprintf(f, "%d %s %s\n", r, n, x->args);
			} else if (!strcmp(n, "sendrecv")) {
				long d, st, s, rt;
				unsigned long long sb, rb;
				if (sscanf(x->args, "%ld %ld %llu %ld %ld %llu",
					   &d, &st, &sb, &s, &rt, &rb) != 6) {
					snprintf(
					    err, errlen,
					    "rank %d: sendrecv %s: expected "
					    "six fields",
					    r, x->args);
					fclose(f);
					fclose(list);
					return -1;
				}
				if (s >= 0)
					fprintf(f, "%d irecv %ld %ld %llu\n", r,
						s, rt, rb);
				if (d >= 0)
					fprintf(f, "%d isend %ld %ld %llu\n", r,
						d, st, sb);
				if (s >= 0 || d >= 0)
					fprintf(f, "%d waitall\n", r);
				(*approx)++;
			} else if (!strncmp(n, "neighbor_", 9) ||
				   !strncmp(n, "ineighbor_", 10)) {
				if (neighbor_out(f, r, x->args) < 0) {
					snprintf(
					    err, errlen,
					    "rank %d: %s %s: expected <nin> "
					    "<nout> and that many "
					    "<peer> <bytes> pairs",
					    r, n, x->args);
					fclose(f);
					fclose(list);
					return -1;
				}
				(*approx)++;
			} else if ((g = subgroup_out(f, r, t->nranks, n,
						     x->args, err, errlen)) !=
				   0) {
				if (g < 0) {
					fclose(f);
					fclose(list);
					return -1;
				}
				(*approx)++;
			} else if (!strcmp(n, "start") ||
				   !strcmp(n, "startall") ||
				   strstr(n, "_init")) {
				/* The requests started follow as isend and
				 * irecv lines; those it could not show (a
				 * persistent collective) are counted. */
				if (!strcmp(n, "start") ||
				    !strcmp(n, "startall"))
					*approx += first_int(x->args) > 0;
			} else if (!strcmp(n, "wait") ||
				   !strcmp(n, "waitany") ||
				   !strcmp(n, "waitsome")) {
				fprintf(f, "%d waitall\n", r);
				(*approx)++;
			} else if (!strncmp(n, "test", 4)) {
				/* "test <done>", "test{all,any,some} <n>
				 * <done>": one that finished something waits
				 * (as wait does); the others are dropped. */
				long done = !strcmp(n, "test")
						? first_int(x->args)
						: second_int(x->args);
				if (done > 0)
					fprintf(f, "%d waitall\n", r);
				(*approx)++;
			} else if (!strcmp(n, "scan") || !strcmp(n, "exscan") ||
				   !strcmp(n, "iscan") ||
				   !strcmp(n, "iexscan")) {
				fprintf(f, "%d allreduce %llu 0\n", r,
					strtoull(x->args, NULL, 10));
				(*approx)++;
			} else if (!strcmp(n, "alltoallw") ||
				   !strcmp(n, "ialltoallw")) {
				/* per-peer bytes, as alltoallv's */
				fprintf(f, "%d alltoallv %s\n", r, x->args);
				*approx += n[0] == 'i';
			} else if (n[0] == 'i' && replayable(n + 1) &&
				   strcmp(n, "init") && strcmp(n, "isend") &&
				   strcmp(n, "irecv")) {
				fprintf(f, "%d %s %s\n", r, n + 1, x->args);
				(*approx)++;
			} else if (replayable(n)) {
				fprintf(f, "%d %s%s%s\n", r, n,
					x->args[0] ? " " : "", x->args);
			} else {
				(*approx)++; /* no replay action: dropped */
			}
		}
		if (fclose(f) != 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			fclose(list);
			return -1;
		}
	}
	if (fclose(list) != 0) {
		snprintf(err, errlen, "%s/list: %s", dir, strerror(errno));
		return -1;
	}
	return 0;
}
