/*
 * runtime.c: the life cycle of libmpipredict in one MPI process. It keeps the
 * registry of instrumented units (__mpp_register), starts counting in
 * MPI_Init / MPI_Init_thread, and at MPI_Finalize reduces every counter over
 * the ranks to its sum (hence mean) and max, and has rank 0 append the run
 * row (row.c, runfile.c) when the process exits, with its exit status. With
 * MPIPREDICT_DUMP=<dir> every rank also writes its own counters to
 * <dir>/<run_id>.<rank>.dump, at MPI_Finalize or, when the run ends without it,
 * at exit(), MPI_Abort, a fatal signal or SIGTERM, for mpipredict-collect.
 *
 * Environment: MPIPREDICT_RUNS (file or directory, default
 * ./mpipredict-runs/), MPIPREDICT_APP (default: the units' --app name, else
 * the executable's name),
 * MPIPREDICT_DISABLE=1 (count nothing, write nothing), MPIPREDICT_DUMP,
 * MPIPREDICT_TEST_NODE_KEY (pmpi.c), SLURM_JOB_ID (the job_id column);
 * MPIPREDICT_URL, MPIPREDICT_CLIENT_CONF, MPIPREDICT_FORWARD and
 * MPIPREDICT_COLLECT: whether and how rank 0 also hands the row to the
 * centre's daemon (forward.c).
 *
 * Not for: what each MPI call counts (pmpi.c). Errors never change what the
 * program does or its exit status: they print one line on stderr (from rank
 * 0 when all ranks share them) and the row is not written.
 */
#include <errno.h>
#include <fcntl.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "collector/forward.h"
#include "collector/mpitime.h"
#include "collector/mpp_abi.h"
#include "collector/progress.h"
#include "collector/row.h"
#include "collector/runfile.h"
#include "collector/traffic.h"

#define PFX "mpipredict: "

static struct __mpp_unit *units;

/* State of this process's run. */
static struct {
	int started, finished, rank, nprocs, nnodes;
	MPI_Comm comm;
	struct timespec t0;
	double init_s; /* MPI_Init and this runtime's start */
	char run_id[40], started_at[32];
	char *app, *args, build_id[17];
	const char *dump_dir;
} run;

/* The features of this process: names and values, in one order that every
 * rank of an SPMD program shares. With values_only, feat() stores values
 * into vals[0..cap) and neither formats nor allocates (dumps written from
 * signal handlers). */
struct feats {
	size_t n, cap;
	char **names;
	unsigned long long *vals;
	int ok, values_only;
};

static void feat(struct feats *f, unsigned long long v, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void feat(struct feats *f, unsigned long long v, const char *fmt, ...)
{
	va_list ap;
	char *name;

	if (!f->ok)
		return;
	if (f->values_only) {
		if (f->n < f->cap)
			f->vals[f->n++] = v;
		else
			f->ok = 0;
		return;
	}
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 256;
		char **nn = realloc(f->names, cap * sizeof *nn);
		unsigned long long *nv;

		if (!nn) {
			f->ok = 0;
			return;
		}
		f->names = nn;
		nv = realloc(f->vals, cap * sizeof *nv);
		if (!nv) {
			f->ok = 0;
			return;
		}
		f->vals = nv;
		f->cap = cap;
	}
	va_start(ap, fmt);
	if (vasprintf(&name, fmt, ap) < 0) {
		f->ok = 0;
		va_end(ap);
		return;
	}
	va_end(ap);
	f->names[f->n] = name;
	f->vals[f->n++] = v;
}

static void feats_free(struct feats *f)
{
	size_t i;

	for (i = 0; i < f->n; i++)
		free(f->names[i]);
	free(f->names);
	free(f->vals);
	memset(f, 0, sizeof *f);
}

static int unit_cmp(const void *a, const void *b)
{
	const struct __mpp_unit *x = *(struct __mpp_unit *const *)a;
	const struct __mpp_unit *y = *(struct __mpp_unit *const *)b;
	int c = strcmp(x->file ? x->file : "", y->file ? y->file : "");

	return c ? c
		 : strcmp(x->build_id ? x->build_id : "",
			  y->build_id ? y->build_id : "");
}

/* The registered units sorted by file then build_id (link order must not
 * change the columns). Caller frees; *n set. NULL with *n = 0 when none. */
static struct __mpp_unit **sorted_units(size_t *n)
{
	struct __mpp_unit *u, **v;
	size_t i = 0;

	*n = 0;
	for (u = units; u; u = u->next)
		(*n)++;
	if (!*n || !(v = malloc(*n * sizeof *v))) {
		*n = 0;
		return NULL;
	}
	for (u = units; u; u = u->next)
		v[i++] = u;
	qsort(v, *n, sizeof *v, unit_cmp);
	return v;
}

static const char *const fn_names[MPP_NFN] = {
#define MPP_MPI(name, ret, kind, params, args, acct) #name,
#include "collector/mpi_table.def"
#undef MPP_MPI
};

/* Kept only so that a program built against ABI version 1, whose call
 * sites store to this variable, still loads and gets the refusal below
 * instead of a dynamic-linker error. Never read. */
_Thread_local void *__mpp_cur_site;

/* 1 + the table index of the MPI function a site name ends in
 * ("file:line:col:MPI_Send"), or 0 when this runtime does not know it. */
static int site_fn(const char *name)
{
	const char *f = name ? strrchr(name, ':') : NULL;
	int i;

	f = f ? f + 1 : name;
	for (i = 0; f && i < MPP_NFN; i++)
		if (!strcmp(fn_names[i], f))
			return i + 1;
	return 0;
}

void __mpp_register(struct __mpp_unit *u)
{
	struct __mpp_unit *p;
	unsigned i;

	/* Version 3 is version 4 without derived counters, version 4 is 5
	 * without scaled and scratch ones (mpp_abi.h). */
	if (u->abi_version < 3 || u->abi_version > MPP_ABI_VERSION) {
		/* abi_version, build_id and file lead every version. */
		fprintf(stderr,
			PFX "%s was instrumented for runtime ABI %d, this "
			    "runtime has ABI %d; its counters are ignored\n",
			u->file ? u->file : "a unit", u->abi_version,
			MPP_ABI_VERSION);
		return;
	}
	for (p = units; p; p = p->next)
		if (p == u)
			return;
	for (i = 0; i < u->nsites; i++)
		u->sites[i].fn = site_fn(u->site_names[i]);
	u->next = units;
	units = u;
}

/* Functions that move no bytes of their own have no bytes columns:
 * completion (WAIT), starting persistent requests (START: the bytes go to
 * the *_init call), one-sided synchronisation (SYNC), opening, closing and
 * other MPI-IO calls that transfer no data (IOMETA). */
#define HAS_BYTES_P2P    1
#define HAS_BYTES_COLL   1
#define HAS_BYTES_RMA    1
#define HAS_BYTES_IO     1
#define HAS_BYTES_WAIT   0
#define HAS_BYTES_START  0
#define HAS_BYTES_SYNC   0
#define HAS_BYTES_IOMETA 0
static const int fn_has_bytes[MPP_NFN] = {
#define MPP_MPI(name, ret, kind, params, args, acct) HAS_BYTES_##kind,
#include "collector/mpi_table.def"
#undef MPP_MPI
};

#define IS_COLL_P2P    0
#define IS_COLL_COLL   1
#define IS_COLL_RMA    0
#define IS_COLL_IO     0
#define IS_COLL_WAIT   0
#define IS_COLL_START  0
#define IS_COLL_SYNC   0
#define IS_COLL_IOMETA 0
static const int fn_is_coll[MPP_NFN] = {
#define MPP_MPI(name, ret, kind, params, args, acct) IS_COLL_##kind,
#include "collector/mpi_table.def"
#undef MPP_MPI
};

static const char *const level_names[MPP_NLEVEL] = {"cmp", "socket", "net"};

static double elapsed(void);

/* One level histogram as features: "<kind>:<level>:bytes", ":msgs", then
 * per bucket ":size:<lo>-<hi>:msgs" and ":bytes". */
static void level_features(struct feats *f, const char *kind,
			   const unsigned long long (*hmsgs)[MPP_NBUCKET],
			   const unsigned long long (*hbytes)[MPP_NBUCKET])
{
	const char *const *lv = level_names;
	unsigned long long msgs, vol;
	int l, b;
	char hi[32];

	for (l = 0; l < MPP_NLEVEL; l++) {
		msgs = vol = 0;
		for (b = 0; b < MPP_NBUCKET; b++) {
			msgs += hmsgs[l][b];
			vol += hbytes[l][b];
		}
		feat(f, vol, "%s:%s:bytes", kind, lv[l]);
		feat(f, msgs, "%s:%s:msgs", kind, lv[l]);
		for (b = 0; b < MPP_NBUCKET; b++) {
			hi[0] = '\0';
			if (b + 1 < MPP_NBUCKET && !f->values_only)
				snprintf(hi, sizeof hi, "%llu",
					 mpp_bucket_lo[b + 1] - 1);
			feat(f, hmsgs[l][b], "%s:%s:size:%llu-%s:msgs", kind,
			     lv[l], mpp_bucket_lo[b], hi);
			feat(f, hbytes[l][b], "%s:%s:size:%llu-%s:bytes", kind,
			     lv[l], mpp_bucket_lo[b], hi);
		}
	}
}

static unsigned long long to_ns(unsigned long long ticks, double rate)
{
	return (unsigned long long)((double)ticks * rate + 0.5);
}

/* Two units of one program with the same file name (two trees that no
 * checkout or build file joins, or one source compiled twice) would give
 * the same columns: each of them gets "@<8 hex of its build id>" after
 * the file in its names, and a number too when the build ids agree. tag
 * is "" for a unit whose file name is its own. */
static void same_file_tag(struct __mpp_unit *const *v, size_t nu, size_t i,
			  char *tag, size_t len)
{
	const char *fi = v[i]->file ? v[i]->file : "";
	const char *bi = v[i]->build_id ? v[i]->build_id : "";
	size_t k, first = i, twin = 0;
	int dup = 0;

	while (first > 0 && v[first - 1]->file &&
	       !strcmp(v[first - 1]->file, fi))
		first--;
	for (k = first; k < nu && v[k]->file && !strcmp(v[k]->file, fi); k++) {
		dup |= k != i;
		if (k < i && v[k]->build_id && !strcmp(v[k]->build_id, bi))
			twin++;
	}
	if (!dup)
		return;
	if (twin)
		snprintf(tag, len, "@%.8s.%zu", bi, twin + 1);
	else
		snprintf(tag, len, "@%.8s", bi);
	/* Nothing on stderr: a run's output stays the plain build's (issue
	 * 34); mpipredict-cc says it once when it links the units. */
}

/* Where the file part starts in a feature name of a unit with file `file`
 * ("loop:<file>:..." or "<file>:..."): the tag goes after it. */
static size_t file_at(const char *name, const char *file)
{
	const char *colon = strchr(name, ':');
	size_t n = file ? strlen(file) : 0;

	if (n && !strncmp(name, file, n) && name[n] == ':')
		return n;
	if (n && colon && !strncmp(colon + 1, file, n) && colon[1 + n] == ':')
		return (size_t)(colon + 1 - name) + n;
	return strlen(name);
}

/* The features of the units v[0..nu) and of the PMPI layer, into f (see
 * struct feats; f->ok says whether all went in). */
static void collect_features(struct feats *f, struct __mpp_unit *const *v,
			     size_t nu)
{
	const struct mpp_traffic *t = &mpp_traffic;
	unsigned long long calls[MPP_NFN], bytes[MPP_NFN], in_mpi = 0, wall,
							   init;
	unsigned long long cmsgs[MPP_NLEVEL], cbytes[MPP_NLEVEL];
	int l;
	const struct __mpp_site *s;
	double rate = mpp_time_ns_per_tick();
	struct rusage ru;
	size_t i, j;

	f->ok = 1;
	/* A function's totals: its untagged calls plus its sites' (traffic.h).
	 */
	memcpy(calls, t->untagged_calls, sizeof calls);
	memcpy(bytes, t->untagged_bytes, sizeof bytes);
	for (i = 0; i < nu; i++) {
		char tag[40] = "";

		same_file_tag(v, nu, i, tag, sizeof tag);
		for (j = 0; j < v[i]->ncounters; j++) {
			const char *c = v[i]->counter_names[j];
			size_t at = file_at(c, v[i]->file);

			feat(f, __mpp_counter_value(v[i], (unsigned)j),
			     "%.*s%s%s", (int)at, c, tag, c + at);
		}
		for (j = 0; j < v[i]->nsites; j++) {
			const char *c = v[i]->site_names[j];
			size_t at = file_at(c, v[i]->file);

			s = &v[i]->sites[j];
			feat(f, s->calls, "call:%.*s%s%s", (int)at, c, tag,
			     c + at);
			feat(f, s->bytes, "bytes:%.*s%s%s", (int)at, c, tag,
			     c + at);
			feat(f, to_ns(s->ticks, rate), "time:%.*s%s%s", (int)at,
			     c, tag, c + at);
			in_mpi += s->ticks;
			if (s->fn > 0 && s->fn <= MPP_NFN) {
				calls[s->fn - 1] += s->calls;
				bytes[s->fn - 1] += s->bytes;
			}
		}
	}
	for (i = 0; i < MPP_NFN; i++) {
		feat(f, calls[i], "mpi:%s:calls", fn_names[i]);
		if (fn_has_bytes[i])
			feat(f, bytes[i], "mpi:%s:bytes", fn_names[i]);
		feat(f, t->untagged_calls[i], "mpi:%s:untagged:calls",
		     fn_names[i]);
		if (fn_has_bytes[i])
			feat(f, t->untagged_bytes[i], "mpi:%s:untagged:bytes",
			     fn_names[i]);
	}
	feat(f, t->io_ns, "io:time_ns");
	for (i = 0; i < MPP_NFN; i++)
		in_mpi += t->untagged_ticks[i];
	/* Wall time of this rank since entering MPI_Init: in MPI_Init (and
	 * this runtime's start), inside the other MPI calls (the sites' own
	 * are "time:<site>"), and the rest. */
	in_mpi = to_ns(in_mpi, rate);
	init = (unsigned long long)(run.init_s * 1e9);
	wall = (unsigned long long)(elapsed() * 1e9);
	feat(f, init, "time:mpi_init");
	feat(f, in_mpi, "time:in_mpi");
	feat(f, wall > in_mpi + init ? wall - in_mpi - init : 0,
	     "time:outside_mpi");
	feat(f, (unsigned long long)t->unbound, "topo:unbound");
	/* This rank's peak resident memory so far (the working set the
	 * program and its MPI library touched), in KiB as Linux reports it.
	 * getrusage is one system call on Linux, so the crash dumps' signal
	 * handlers may take it too. */
	if (getrusage(RUSAGE_SELF, &ru) != 0)
		ru.ru_maxrss = 0;
	feat(f, ru.ru_maxrss > 0 ? (unsigned long long)ru.ru_maxrss : 0,
	     "mem:peak_rss_kib");
	level_features(f, "comm", t->hist_msgs, t->hist_bytes);
	/* Collectives: those on other communicators were classified per call;
	 * the rest of the collective functions' totals were on
	 * MPI_COMM_WORLD (pmpi.c). */
	memcpy(cmsgs, t->coll_msgs, sizeof cmsgs);
	memcpy(cbytes, t->coll_bytes, sizeof cbytes);
	for (i = 0; i < MPP_NFN; i++)
		if (fn_is_coll[i]) {
			cmsgs[t->world_widest] += calls[i];
			cbytes[t->world_widest] += bytes[i];
		}
	for (l = 0; l < MPP_NLEVEL; l++) {
		cmsgs[t->world_widest] -= t->coll_msgs[l];
		cbytes[t->world_widest] -= t->coll_bytes[l];
	}
	for (l = 0; l < MPP_NLEVEL; l++) {
		feat(f, cbytes[l], "coll:%s:bytes", level_names[l]);
		feat(f, cmsgs[l], "coll:%s:msgs", level_names[l]);
	}
}

static uint64_t fnv1a64(uint64_t h, const char *s)
{
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return (h ^ 0xff) * 0x100000001b3ull; /* separator */
}

/* One build_id for the program: a hash of the units' build_ids (sorted)
 * and of this runtime's version, which fixes the whole-program columns. */
static void combined_build_id(char out[17])
{
	struct __mpp_unit **v;
	size_t n, i;
	uint64_t h =
	    fnv1a64(0xcbf29ce484222325ull, "libmpipredict " MPP_VERSION);

	v = sorted_units(&n);
	for (i = 0; i < n; i++)
		h = fnv1a64(h, v[i]->build_id ? v[i]->build_id : "");
	free(v);
	snprintf(out, 17, "%016llx", (unsigned long long)h);
}

/* argv[1..] joined by single spaces, from /proc/self/cmdline. */
static char *read_argv(void)
{
	char buf[65536], *s;
	ssize_t n = 0, r;
	size_t i, start;
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		while (n < (ssize_t)sizeof buf - 1 &&
		       (r = read(fd, buf + n, sizeof buf - 1 - (size_t)n)) > 0)
			n += r;
		close(fd);
	}
	buf[n] = '\0';
	start = strlen(buf) + 1; /* skip argv[0] */
	if ((ssize_t)start >= n)
		return strdup("");
	if (buf[n - 1] == '\0')
		n--;
	for (i = start; i < (size_t)n; i++)
		if (buf[i] == '\0')
			buf[i] = ' ';
	s = strndup(buf + start, (size_t)n - start);
	return s;
}

/* The args column: argv[1..], then the parameters the job declares in
 * MPIPREDICT_PARAMS ("N=20000 NB=192", regress/params.h), blanks turned
 * into single spaces, so that training reads them with the same names as
 * the daemon reads a script's `#MPIPREDICT param` lines. */
static char *read_args(void)
{
	char *a = read_argv();
	const char *decl = getenv("MPIPREDICT_PARAMS");

	if (!a || !decl || decl[strspn(decl, " \t\r\n")] == '\0')
		return a;
	size_t la = strlen(a), ld = strlen(decl);
	char *s = malloc(la + ld + 2), *o;
	if (!s) {
		free(a);
		return NULL;
	}
	memcpy(s, a, la);
	o = s + la;
	for (const char *p = decl; *p;) {
		p += strspn(p, " \t\r\n");
		size_t w = strcspn(p, " \t\r\n");
		if (w == 0)
			break;
		if (o > s)
			*o++ = ' ';
		memcpy(o, p, w);
		o += w;
		p += w;
	}
	*o = '\0';
	free(a);
	return s;
}

static void make_run_id(char out[40])
{
	unsigned char r[16];
	size_t i;

	if (getrandom(r, sizeof r, 0) != (ssize_t)sizeof r) {
		/* No entropy source: host-pid-time is still unique enough. */
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		for (i = 0; i < sizeof r; i++)
			r[i] = (unsigned char)((ts.tv_nsec >> (i % 4 * 8)) ^
					       (getpid() >> (i % 3 * 8)) ^
					       (ts.tv_sec >> (i % 5 * 8)));
	}
	r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
	r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
	for (i = 0; i < 16; i++)
		sprintf(out + 2 * i + (i >= 4) + (i >= 6) + (i >= 8) +
			    (i >= 10),
			"%02x", r[i]);
	out[8] = out[13] = out[18] = out[23] = '-';
	out[36] = '\0';
}

static double elapsed(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - run.t0.tv_sec) +
	       1e-9 * (double)(t.tv_nsec - run.t0.tv_nsec);
}

static void fill_meta(struct mpp_run_meta *m, double runtime)
{
	const char *job = getenv("SLURM_JOB_ID");

	m->run_id = run.run_id;
	m->app = run.app;
	m->build_id = run.build_id;
	m->started_at = run.started_at;
	m->job_id = job ? job : "";
	m->args = run.args;
	m->nprocs = run.nprocs;
	m->nnodes = run.nnodes;
	m->runtime_s = runtime;
}

/* This rank's features now, from the registered units: f->ok says whether
 * all went in. */
static void features_now(struct feats *f)
{
	struct __mpp_unit **v;
	size_t nu;

	v = sorted_units(&nu);
	collect_features(f, v, nu);
	free(v);
}

static char *dump_path(void)
{
	char *p;

	return asprintf(&p, "%s/%s.%d.dump", run.dump_dir, run.run_id,
			run.rank) < 0
		   ? NULL
		   : p;
}

/* The dump written at MPI_Finalize (status 0), and again at exit when the
 * process then exits with another status. */
static void write_dump(const struct feats *f, double runtime, int status)
{
	struct mpp_run_meta m;
	char *path = dump_path(), err[512];

	fill_meta(&m, runtime);
	m.exit_status = status;
	if (!path)
		fprintf(stderr, PFX "out of memory writing the dump\n");
	else if (mpp_dump_write(path, &m, run.rank, 1, f->n, f->names, f->vals,
				err, sizeof err) < 0)
		fprintf(stderr, PFX "%s\n", err);
	free(path);
}

/* Dumps of runs that end without MPI_Finalize: at exit(), at MPI_Abort, and
 * on a fatal signal or the SIGTERM a launcher sends to the other ranks when
 * one fails (SIGKILL leaves nothing). Everything is prepared at MPI_Init so
 * that writing needs only async-signal-safe calls: the dump's head, the
 * escaped feature names (from the units registered by then), a buffer for
 * the values, the paths. The dump is written once (claimed atomically); the
 * dump of MPI_Finalize replaces it. */
static struct {
	struct __mpp_unit **units;
	size_t nu, nf;
	char *head, **names, *path, *tmp;
	unsigned long long *vals;
	int ready, claimed;
} crash;

static const int crash_signals[] = {
    SIGTERM, SIGINT,  SIGHUP, SIGQUIT, SIGXCPU,
    SIGABRT, SIGSEGV, SIGBUS, SIGFPE,  SIGILL,
};
static struct sigaction
    crash_old[sizeof crash_signals / sizeof crash_signals[0]];

/* A buffered write(2) writer. */
struct out {
	int fd, ok;
	size_t len;
	char buf[4096];
};

static void out_flush(struct out *o)
{
	size_t off = 0;
	ssize_t w;

	while (o->ok && off < o->len) {
		w = write(o->fd, o->buf + off, o->len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			o->ok = 0;
		else
			off += (size_t)w;
	}
	o->len = 0;
}

static void out_put(struct out *o, const char *s)
{
	for (; *s; s++) {
		if (o->len == sizeof o->buf)
			out_flush(o);
		o->buf[o->len++] = *s;
	}
}

static void out_u64(struct out *o, unsigned long long v)
{
	char d[24], *p = d + sizeof d - 1;

	*p = '\0';
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	out_put(o, p);
}

/* Write this rank's dump, marked not finalized, unless one was written or
 * is being written. Async-signal-safe. */
static void crash_dump(int status)
{
	struct feats f = {0};
	struct timespec now;
	long long ns;
	struct out o;
	size_t i;

	if (!crash.ready ||
	    __atomic_exchange_n(&crash.claimed, 1, __ATOMIC_ACQ_REL))
		return;
	f.ok = f.values_only = 1;
	f.vals = crash.vals;
	f.cap = crash.nf;
	collect_features(&f, crash.units, crash.nu);
	if (!f.ok || f.n != crash.nf)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (long long)(now.tv_sec - run.t0.tv_sec) * 1000000000LL +
	     (now.tv_nsec - run.t0.tv_nsec);
	if (ns < 0)
		ns = 0;
	o.fd = open(crash.tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (o.fd < 0)
		return;
	o.ok = 1;
	o.len = 0;
	out_put(&o, crash.head);
	out_put(&o, "exit_status\t");
	out_u64(&o, (unsigned long long)(status & 0xff));
	out_put(&o, "\nruntime_s\t");
	out_u64(&o, (unsigned long long)(ns / 1000000000));
	out_put(&o, ".");
	for (i = 100000000; i > 0; i /= 10) /* nine digits, leading zeros */
		out_u64(&o, (unsigned long long)(ns % 1000000000) / i % 10);
	out_put(&o, "\nfeatures\t");
	out_u64(&o, crash.nf);
	out_put(&o, "\n");
	for (i = 0; i < crash.nf; i++) {
		out_put(&o, crash.names[i]);
		out_put(&o, "\t");
		out_u64(&o, crash.vals[i]);
		out_put(&o, "\n");
	}
	out_flush(&o);
	if (close(o.fd) != 0 || !o.ok || rename(crash.tmp, crash.path) != 0)
		unlink(crash.tmp);
}

static void on_crash_signal(int sig, siginfo_t *si, void *ctx)
{
	int saved = errno;
	size_t i;

	(void)ctx;
	crash_dump(128 + sig);
	for (i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
		if (crash_signals[i] == sig)
			sigaction(sig, &crash_old[i], NULL);
	/* A fault made by an instruction happens again when the handler
	 * returns, now with the previous disposition; a sent signal must be
	 * sent again. */
	if (si->si_code <= 0 ||
	    (sig != SIGSEGV && sig != SIGBUS && sig != SIGFPE && sig != SIGILL))
		raise(sig);
	errno = saved;
}

/* exit() without MPI_Finalize. */
static void dump_at_exit(int status, void *arg)
{
	(void)arg;
	if (run.started && !run.finished)
		crash_dump(status);
}

/* Prepare the dumps of a run that ends without MPI_Finalize (dump mode,
 * after start() filled run). One line on stderr when it cannot. */
static void crash_prepare(void)
{
	struct feats f = {0};
	struct mpp_run_meta m;
	struct sigaction sa;
	size_t i;
	int ok;

	if (mkdir(run.dump_dir, 0777) != 0 && errno != EEXIST) {
		fprintf(stderr, PFX "cannot create dump directory %s: %s\n",
			run.dump_dir, strerror(errno));
		return;
	}
	crash.units = sorted_units(&crash.nu);
	collect_features(&f, crash.units, crash.nu);
	fill_meta(&m, 0);
	crash.head = mpp_dump_head(&m, run.rank, 0);
	crash.path = dump_path();
	if (crash.path &&
	    asprintf(&crash.tmp, "%s.tmp.%ld", crash.path, (long)getpid()) < 0)
		crash.tmp = NULL;
	crash.nf = f.n;
	crash.names = calloc(f.n ? f.n : 1, sizeof *crash.names);
	crash.vals = calloc(f.n ? f.n : 1, sizeof *crash.vals);
	for (i = 0; crash.names && i < f.n; i++)
		if (!(crash.names[i] = mpp_dump_escape(f.names[i])))
			break;
	ok = f.ok;
	feats_free(&f);
	if (!ok || (crash.nu && !crash.units) || !crash.head || !crash.tmp ||
	    !crash.names || !crash.vals || i < crash.nf) {
		fprintf(stderr, PFX "out of memory; no dump if the run ends "
				    "without MPI_Finalize\n");
		return;
	}
	crash.ready = 1;
	on_exit(dump_at_exit, NULL);
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_crash_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
		sigaddset(&sa.sa_mask, crash_signals[i]);
	/* A signal the program ignores stays ignored; a handler of the
	 * program's or the MPI library's still runs after the dump. */
	for (i = 0; i < sizeof crash_signals / sizeof crash_signals[0]; i++)
		if (sigaction(crash_signals[i], NULL, &crash_old[i]) == 0 &&
		    crash_old[i].sa_handler != SIG_IGN)
			sigaction(crash_signals[i], &sa, NULL);
}

/* progress.h's callback, on rank 0's helper thread: this rank's counters
 * now as a dump (elapsed time as runtime_s, not finalized). The counters
 * are read while the program changes them: each is one aligned 64-bit
 * load, so a value is one the counter had. */
static int progress_write(const char *path, char *err, size_t errlen)
{
	struct feats f = {0};
	struct mpp_run_meta m;
	int rc = -1;

	features_now(&f);
	if (f.ok) {
		fill_meta(&m, elapsed());
		m.exit_status = 0;
		rc = mpp_dump_write(path, &m, run.rank, 0, f.n, f.names, f.vals,
				    err, errlen);
	} else
		snprintf(err, errlen, "out of memory");
	feats_free(&f);
	return rc;
}

/* The run's app: $MPIPREDICT_APP, else the name the units were built with
 * (--app), else the executable's name. Units built with different names:
 * the first by file name (mpipredict-cc's link says so; the run says
 * nothing, issue 34). */
static char *app_name(void)
{
	const char *env = getenv("MPIPREDICT_APP"), *a = NULL;
	struct __mpp_unit **v;
	size_t n, i;

	if (env && *env)
		return strdup(env);
	v = sorted_units(&n);
	for (i = 0; i < n && !a; i++)
		if (v[i]->app && *v[i]->app)
			a = v[i]->app;
	free(v);
	return strdup(a ? a : program_invocation_short_name);
}

static void start(int provided)
{
	const char *dis = getenv("MPIPREDICT_DISABLE");
	char err[256], ids[72];
	struct tm tm;
	time_t now;

	if (dis && !strcmp(dis, "1"))
		return;
	if (PMPI_Comm_dup(MPI_COMM_WORLD, &run.comm) != MPI_SUCCESS)
		return;
	PMPI_Comm_rank(run.comm, &run.rank);
	PMPI_Comm_size(run.comm, &run.nprocs);
	if (mpp_traffic_start(run.comm, provided == MPI_THREAD_MULTIPLE,
			      &run.nnodes, err, sizeof err) < 0) {
		if (run.rank == 0)
			fprintf(stderr, PFX "%s; no run row will be written\n",
				err);
		PMPI_Comm_free(&run.comm);
		return;
	}
	/* Rank 0 names the run; every rank shares the name (dumps). */
	if (run.rank == 0) {
		make_run_id(ids);
		now = time(NULL);
		gmtime_r(&now, &tm);
		strftime(ids + 40, 32, "%Y-%m-%dT%H:%M:%SZ", &tm);
	}
	PMPI_Bcast(ids, sizeof ids, MPI_CHAR, 0, run.comm);
	memcpy(run.run_id, ids, sizeof run.run_id);
	memcpy(run.started_at, ids + 40, sizeof run.started_at);
	run.app = app_name();
	run.args = read_args();
	combined_build_id(run.build_id);
	run.dump_dir = getenv("MPIPREDICT_DUMP");
	if (run.dump_dir && !*run.dump_dir)
		run.dump_dir = NULL;
	if (!run.app || !run.args) {
		if (run.rank == 0)
			fprintf(stderr, PFX
				"out of memory; no run row will be written\n");
		mpp_traffic_stop();
		free(run.app);
		free(run.args);
		PMPI_Comm_free(&run.comm);
		return;
	}
	run.started = 1;
	if (run.dump_dir)
		crash_prepare();
	run.init_s = elapsed();
	if (run.rank == 0)
		mpp_progress_start(run.run_id, progress_write);
}

int MPI_Init(int *argc, char ***argv)
{
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &run.t0);
	rc = PMPI_Init(argc, argv);
	if (rc == MPI_SUCCESS)
		start(MPI_THREAD_SINGLE);
	return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int rc;

	clock_gettime(CLOCK_MONOTONIC, &run.t0);
	rc = PMPI_Init_thread(argc, argv, required, provided);
	if (rc == MPI_SUCCESS)
		start(*provided);
	return rc;
}

/* Per-rank time in and outside MPI (issue 16): the row keeps mean and max
 * over ranks; each rank's three times go to a sidecar of the runs file
 * <dir>/<stem>.csv, <dir>/ranks/<stem>.csv, one line per rank,
 *   run_id,rank,time:in_mpi,time:outside_mpi,time:mpi_init
 * (nanoseconds, as the row's columns), for runs of at most this many ranks
 * (a larger run writes none: its report shows mean and max only). */
#define RANK_TIMES_MAX 4096
static const char *const rank_time_cols[3] = {"time:in_mpi", "time:outside_mpi",
					      "time:mpi_init"};

/* Rank 0, after the row went to `path` (<dir>/<stem>.csv): the sidecar
 * <dir>/ranks/<stem>.csv from ranks (3 values per rank). A subfolder, so
 * that a glob of the .csv files in <dir> still names only runs files. */
static void write_rank_times(const char *path, const unsigned long long *ranks)
{
	size_t len = strlen(path), cap = (size_t)run.nprocs * 100 + 1, at = 0;
	const char *slash = strrchr(path, '/');
	char *dir = malloc(len + 16), *stem = malloc(len + 1),
	     *body = malloc(cap), err[4200];

	if (dir && stem && body && len > 4 && !strcmp(path + len - 4, ".csv")) {
		size_t d = slash ? (size_t)(slash - path) + 1 : 0;
		memcpy(dir, path, d);
		strcpy(dir + d, "ranks/");
		memcpy(stem, path + d, len - 4 - d);
		stem[len - 4 - d] = '\0';
		for (int r = 0; r < run.nprocs && at < cap; r++)
			at += (size_t)snprintf(
			    body + at, cap - at, "%s,%d,%llu,%llu,%llu\n",
			    run.run_id, r, ranks[3 * r], ranks[3 * r + 1],
			    ranks[3 * r + 2]);
		if (at < cap &&
		    mpp_runfile_append(dir, stem,
				       "run_id,rank,time:in_mpi,"
				       "time:outside_mpi,time:mpi_init\n",
				       body, NULL, 0, err, sizeof err) < 0)
			fprintf(stderr,
				PFX "%s; the per-rank times were not "
				    "written\n",
				err);
	}
	free(dir);
	free(stem);
	free(body);
}

/* Rank 0: build and append the row from the reduced counters, then the
 * per-rank times when they were gathered. */
static void write_row(const struct feats *f, const unsigned long long *sum,
		      const unsigned long long *max, double runtime, int status,
		      const unsigned long long *ranks)
{
	struct mpp_run_meta m;
	char *header = NULL, *row = NULL, err[4200], path[4096];

	fill_meta(&m, runtime);
	m.exit_status = status;
	if (mpp_row_build(&m, f->n, f->names, sum, max, &header, &row, err,
			  sizeof err) < 0 ||
	    mpp_runfile_append(getenv("MPIPREDICT_RUNS"), run.app, header, row,
			       path, sizeof path, err, sizeof err) < 0)
		fprintf(stderr, PFX "%s; the run row was not written\n", err);
	else {
		if (ranks)
			write_rank_times(path, ranks);
		/* The local file first, as without a daemon: the outbox
		 * copy is for the centre's store, not instead of it. A
		 * failed run stays local: the daemon refuses its row
		 * (POST /v1/runs stores only runs a training may use). */
		if (status == 0)
			mpp_forward_row(path, run.run_id, header, row);
	}
	free(header);
	free(row);
}

/* What MPI_Finalize leaves for exit: the row (rank 0) and, in dump mode,
 * the features to dump again when the exit status is not 0. The row is
 * written at exit so that it holds the exit status: a run that finalizes
 * and then calls exit(1) failed. */
static struct {
	struct feats f;
	unsigned long long *sum, *max;
	unsigned long long *ranks; /* rank 0: 3 per rank, or NULL */
	double mine, slowest;
	int row;
} after;

static void free_after(void)
{
	free(after.sum);
	free(after.max);
	free(after.ranks);
	feats_free(&after.f);
	free(run.app);
	free(run.args);
	run.app = run.args = NULL;
	memset(&after, 0, sizeof after);
}

/* on_exit: the row with the status given to exit() or returned by main. */
static void write_at_exit(int status, void *arg)
{
	(void)arg;
	status &= 0xff;
	if (after.row)
		write_row(&after.f, after.sum, after.max, after.slowest, status,
			  after.ranks);
	if (run.dump_dir && after.f.ok && status != 0)
		write_dump(&after.f, after.mine, status);
	free_after();
}

/* Each rank's time in MPI, outside it and in MPI_Init, gathered on rank 0
 * (returned there, malloc'ed; NULL elsewhere, above RANK_TIMES_MAX ranks,
 * or out of memory). Collective over run.comm; every rank holds the same
 * columns (checked by the caller). */
static unsigned long long *gather_rank_times(const struct feats *f)
{
	unsigned long long mine[3] = {0, 0, 0}, *all = NULL;
	int have = 0, ok, all_ok;

	if (run.nprocs > RANK_TIMES_MAX)
		return NULL;
	for (size_t i = 0; i < f->n; i++)
		for (int k = 0; k < 3; k++)
			if (!strcmp(f->names[i], rank_time_cols[k])) {
				mine[k] = f->vals[i];
				have |= 1 << k;
			}
	if (run.rank == 0)
		all = malloc((size_t)run.nprocs * 3 * sizeof *all);
	ok = have == 7 && (run.rank != 0 || all);
	PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, run.comm);
	if (all_ok)
		PMPI_Gather(mine, 3, MPI_UNSIGNED_LONG_LONG, all, 3,
			    MPI_UNSIGNED_LONG_LONG, 0, run.comm);
	if (!all_ok) {
		free(all);
		all = NULL;
	}
	return all;
}

/* Reduce, dump, and leave the row to exit. Collective over run.comm. */
static void finish(void)
{
	struct feats f = {0};
	unsigned long long h[2], hmax[2], *sum = NULL, *max = NULL;
	double mine = elapsed(), slowest = 0;
	int ok, all_ok, row = 0;
	unsigned long long *ranks = NULL;
	size_t i;

	mpp_progress_stop(); /* before the counters stop and are reduced */
	run.finished = 1;
	__atomic_store_n(&crash.claimed, 1, __ATOMIC_RELEASE);
	mpp_traffic_stop();
	features_now(&f);
	if (run.dump_dir && f.ok)
		write_dump(&f, mine, 0);
	/* Every rank must hold the same columns in the same order: compare a
	 * hash of the names (max of h and of ~h equal to one's own on every
	 * rank means all are equal). */
	h[0] = 0xcbf29ce484222325ull;
	for (i = 0; i < f.n; i++)
		h[0] = fnv1a64(h[0], f.names[i]);
	h[1] = ~h[0];
	ok = f.ok;
	if (ok && run.rank == 0) {
		sum = malloc((f.n ? f.n : 1) * sizeof *sum);
		max = malloc((f.n ? f.n : 1) * sizeof *max);
		ok = sum && max;
	}
	PMPI_Allreduce(h, hmax, 2, MPI_UNSIGNED_LONG_LONG, MPI_MAX, run.comm);
	ok = ok && hmax[0] == h[0] && hmax[1] == h[1];
	PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, run.comm);
	if (all_ok) {
		PMPI_Reduce(f.vals, sum, (int)f.n, MPI_UNSIGNED_LONG_LONG,
			    MPI_SUM, 0, run.comm);
		PMPI_Reduce(f.vals, max, (int)f.n, MPI_UNSIGNED_LONG_LONG,
			    MPI_MAX, 0, run.comm);
		PMPI_Reduce(&mine, &slowest, 1, MPI_DOUBLE, MPI_MAX, 0,
			    run.comm);
		row = run.rank == 0;
		ranks = gather_rank_times(&f);
	} else if (run.rank == 0) {
		fprintf(stderr, PFX
			"ranks hold different counters (out of memory, or not "
			"one program); the run row was not written\n");
	}
	PMPI_Comm_free(&run.comm);
	after.f = f;
	after.sum = sum;
	after.max = max;
	after.mine = mine;
	after.slowest = slowest;
	after.row = row;
	after.ranks = ranks;
	if (on_exit(write_at_exit, NULL) != 0)
		write_at_exit(0, NULL); /* cannot wait: the row now */
}

/* In dump mode, the dump of this rank before the job is torn down. */
int MPI_Abort(MPI_Comm comm, int errorcode)
{
	if (run.started && !run.finished)
		crash_dump(errorcode ? errorcode : 1);
	return PMPI_Abort(comm, errorcode);
}

int MPI_Finalize(void)
{
	if (run.started && !run.finished)
		finish();
	return PMPI_Finalize();
}
