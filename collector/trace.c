/*
 * trace.c: the trace mode of libmpipredict (MPIPREDICT_TRACE=DIR), see
 * trace.h for the file format.
 *
 * One generated function per row of mpi_table.def formats the call as a
 * SimGrid time-independent action from its arguments (a TR_<shape> macro
 * per acct shape of the table). The computation segment is the wall time
 * from the end of one traced call (after its line is formatted, so the
 * tracer's own cost is left out) to the start of the next. Lines go
 * through a 1 MiB stdio buffer.
 *
 * Also compiled with smpicc by simulate/ (then the clock is SimGrid's: the
 * segment is the computation SMPI benchmarked and injected). Nothing here
 * depends on the rest of libmpipredict.
 *
 * Not for: counting or the run row. Threads: tracing assumes one thread
 * makes MPI calls (the segment clock is per process).
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "collector/trace.h"

#ifdef MPP_TRACE_SMPI
#include <simgrid/engine.h> /* simgrid_get_clock */
#endif

#pragma GCC diagnostic ignored "-Wunused-parameter"

int mpp_trace_on;

static FILE *out;
static char *outbuf;
static int me, nworld;
/* t_seg: where the current segment starts, moved on past the time it
 * leaves out; t_call: the traced call began; t_end: the last traced call
 * ended. */
static double t_start, t_seg, t_call, t_end;

/* Nonblocking receives posted with a wildcard (MPI_ANY_SOURCE or
 * MPI_ANY_TAG) learn their source and tag only when they complete, and
 * SimGrid's replay matches a receive by both exactly. The post writes
 * "irecv -2 <tag> <bytes>" (mpipredict-simulate drops it); the completion
 * call that finishes one writes, on lines right after its own, "recvd
 * <world source> <tag> <bytes>" from the status, and mpipredict-simulate
 * replays that as a receive just before the completion. The completion
 * call's wrapper names its requests before the PMPI call
 * (mpp_trace_waiting), because the call sets finished handles to
 * MPI_REQUEST_NULL; and passes statuses of its own when the program
 * ignores them. One thread makes the MPI calls (as for the whole trace). */
struct wild {
	MPI_Request req;
	MPI_Comm comm;
	unsigned long long bytes;
	int idx; /* in the completion call's array; -1 once resolved */
};
static struct wild *wild, *snap; /* posted; taken by a completion call */
static size_t nwild, capwild, nsnap, capsnap;

/* Persistent point-to-point requests (MPI_Send_init, MPI_Recv_init and
 * the like). SimGrid's replay has no action for them, and a halo
 * exchange set up once and started every iteration was replayed with no
 * messages at all (t-persistent-halo.sh). The init call keeps what the
 * request does (its line is the name alone); each MPI_Start and
 * MPI_Startall writes, on lines after its own, the isend or irecv it
 * starts (a wildcard receive as MPI_Irecv's: struct wild), then
 * completion calls finish them as usual. MPI_Request_free forgets one. */
struct pers {
	MPI_Request req;
	MPI_Comm comm;
	unsigned long long bytes;
	int send, peer, tag; /* peer: the rank in comm, as given */
};
static struct pers *pers;
static size_t npers, cappers;

#ifdef MPP_TRACE_SMPI
/* SMPI's clock_gettime ends the running burst (injects it into the
 * simulation), reads the simulated clock and then, as smpi/wtime asks,
 * sleeps: one more simulation step at each of the two reads per traced
 * call. Here the same without the sleep: the SMPI run of miniFE at 64
 * ranks 14.5 -> 11.6-12.0 s traced (8 s untraced), and fewer switches
 * between ranks perturb SMPI's benchmark less (its simulated time 0.143
 * -> 0.129 s; untraced, the program reports 0.113 s). */
static double now(void)
{
	smpi_bench_end();
	double t = simgrid_get_clock();
	smpi_bench_begin();
	return t;
}
#else
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
#endif

/* The program's arguments, space-separated, from /proc/self/cmdline. */
static void write_meta(const char *dir, int nprocs)
{
	char path[4096], args[8192];
	size_t n = 0;
	FILE *f = fopen("/proc/self/cmdline", "rb");
	if (f) {
		n = fread(args, 1, sizeof args - 1, f);
		fclose(f);
	}
	args[n] = '\0';
	/* Skip argv[0]; NULs between arguments become spaces. */
	size_t skip = strlen(args) + 1;
	char *a = skip <= n ? args + skip : args + n;
	for (char *p = a; p < args + n; p++)
		if (*p == '\0')
			*p = ' ';
	while (n > skip && args[n - 1] == ' ')
		args[--n] = '\0';
	snprintf(path, sizeof path, "%s/meta", dir);
	f = fopen(path, "w");
	if (!f) {
		fprintf(stderr, "mpipredict: %s: %s; no trace meta\n", path,
			strerror(errno));
		return;
	}
	/* The parameters the job declares (MPIPREDICT_PARAMS, as the run
	 * row's args get them: runtime.c), so that a program whose sizes
	 * come from an input deck has them in its trace too. */
	const char *decl = getenv("MPIPREDICT_PARAMS");
	int sep = *a != '\0';
	fprintf(f, "nprocs %d\nargs %s", nprocs, a);
	for (const char *p = decl; p && *p;) {
		p += strspn(p, " \t\r\n");
		size_t w = strcspn(p, " \t\r\n");
		if (w)
			fprintf(f, "%s%.*s", sep ? " " : "", (int)w, p);
		sep |= w > 0;
		p += w;
	}
	fprintf(f, "\n");
	fclose(f);
}

void mpp_trace_start(void)
{
	const char *dir = getenv("MPIPREDICT_TRACE");
	char path[4096];
	int n;

	if (!dir || !*dir)
		return;
	PMPI_Comm_rank(MPI_COMM_WORLD, &me);
	PMPI_Comm_size(MPI_COMM_WORLD, &n);
	nworld = n;
	if (mkdir(dir, 0777) < 0 && errno != EEXIST) {
		if (me == 0)
			fprintf(stderr,
				"mpipredict: MPIPREDICT_TRACE=%s: %s; "
				"no trace\n",
				dir, strerror(errno));
		return;
	}
	snprintf(path, sizeof path, "%s/rank-%d.ti", dir, me);
	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "mpipredict: %s: %s; no trace\n", path,
			strerror(errno));
		return;
	}
	outbuf = malloc(1 << 20);
	if (outbuf)
		setvbuf(out, outbuf, _IOFBF, 1 << 20);
	if (me == 0)
		write_meta(dir, n);
	fprintf(out, "%d init\n", me);
	mpp_trace_on = 1;
	t_start = t_seg = t_end = now();
}

void mpp_trace_pre(void)
{
	t_call = now();
}

const void *mpp_trace_ra;

/* Call sites: mpipredict-simulate matches segments across rank counts
 * by where they start and end in the program, not by the names of the
 * calls around them (a set-up that makes an extra MPI_Allreduce only at
 * more than one rank gave its segment another name pair, a law with a
 * rank-count exponent near 10, and predictions of 1e20 s: issue 38).
 * An address is written as its object (a "# object <k> <path>" line
 * when first seen) and its offset in it, the address inside the call
 * instruction (return address - 1): addr2line gives its file and line
 * when the program has debug information, in a real build and in the
 * smpicc build alike. dladdr costs a few hundred ns; a small cache keeps
 * it to the first call from each site. */
#define NSITE 256
static struct {
	const void *ra;
	int obj;
	uintptr_t off;
} site[NSITE];
static char *objs[32];
static int nobjs;

static int object_of(const char *name)
{
	char rp[PATH_MAX];
	const char *p = realpath(name, rp) ? rp : name;
	int k;

	for (k = 0; k < nobjs; k++)
		if (!strcmp(objs[k], p))
			return k;
	if (nobjs == (int)(sizeof objs / sizeof objs[0]) ||
	    !(objs[k] = strdup(p)))
		return -1;
	nobjs++;
	fprintf(out, "# object %d %s\n", k, p);
	return k;
}

/* "# @ <object> 0x<offset>" for the call about to be written. */
static void site_line(void)
{
	const void *ra = mpp_trace_ra;
	size_t h = ((uintptr_t)ra >> 2) % NSITE;
	Dl_info di;

	mpp_trace_ra = NULL;
	if (!ra)
		return;
	if (site[h].ra != ra) {
		if (!dladdr(ra, &di) || !di.dli_fbase || !di.dli_fname ||
		    !*di.dli_fname)
			return;
		int k = object_of(di.dli_fname);
		if (k < 0)
			return;
		uintptr_t off = (uintptr_t)ra - 1;
		/* addr2line takes a position-independent object's offsets,
		 * a fixed executable's addresses */
		if (((const ElfW(Ehdr) *)di.dli_fbase)->e_type != ET_EXEC)
			off -= (uintptr_t)di.dli_fbase;
		site[h].ra = ra;
		site[h].obj = k;
		site[h].off = off;
	}
	fprintf(out, "# @ %d 0x%lx\n", site[h].obj, (unsigned long)site[h].off);
}

/* The computation segment that ends where the traced call began, after
 * the call's site. */
static void compute_line(void)
{
	site_line();
	fprintf(out, "%d compute %.0f\n", me, (t_call - t_seg) * 1e9);
}

/* A blocking probe waits for a message; that wait is not computation,
 * yet the probe writes no action (SimGrid's replay has none), so its time
 * would stay in the segment: a task farm's master, which waits in
 * MPI_Probe for the next result, was traced as computing all along, and
 * predict scaled that wait as work (t-task-farm.sh). The segment skips
 * the probe's time; the receive that follows carries the wait in the
 * replay, as it would without the probe. MPI_Iprobe is left alone: a
 * polling loop's wait is the loop's own code. Defined here because both
 * builds that trace link this file: libmpipredict and the smpicc wrapper
 * (simulate/smpi_wrap.c). Not a call site: no row of mpi_table.def, no
 * bytes to count. */
int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
	double t0;
	int rc;

	if (!mpp_trace_on)
		return PMPI_Probe(source, tag, comm, status);
	t0 = now();
	rc = PMPI_Probe(source, tag, comm, status);
	t_seg += now() - t0;
	return rc;
}

void mpp_trace_stop(void)
{
	if (!mpp_trace_on)
		return;
	mpp_trace_pre();
	mpp_trace_ra = NULL; /* a quiet test's, not MPI_Finalize's */
	compute_line();
	fprintf(out, "%d finalize\n# wall %.9f\n", me, now() - t_start);
	mpp_trace_on = 0;
	if (fclose(out) != 0)
		fprintf(stderr, "mpipredict: trace of rank %d: %s\n", me,
			strerror(errno));
	out = NULL;
	free(outbuf);
	outbuf = NULL;
	free(wild);
	free(snap);
	free(pers);
	for (int k = 0; k < nobjs; k++)
		free(objs[k]);
	nobjs = 0;
	memset(site, 0, sizeof site);
	wild = snap = NULL;
	pers = NULL;
	nwild = capwild = nsnap = capsnap = npers = cappers = 0;
}

/* World rank of `r` in `comm`; -1 for MPI_PROC_NULL, -2 for
 * MPI_ANY_SOURCE. */
static int world(MPI_Comm comm, int r)
{
	MPI_Group g, wg;
	int w = r;

	if (r == MPI_PROC_NULL)
		return -1;
	if (r == MPI_ANY_SOURCE)
		return -2;
	if (comm == MPI_COMM_WORLD)
		return r;
	if (PMPI_Comm_group(comm, &g) != MPI_SUCCESS)
		return r;
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	PMPI_Group_translate_ranks(g, 1, &r, wg, &w);
	PMPI_Group_free(&g);
	PMPI_Group_free(&wg);
	return w == MPI_UNDEFINED ? r : w;
}

static unsigned long long bytes(long long count, MPI_Datatype t)
{
	int s = 0;
	if (count <= 0 || PMPI_Type_size(t, &s) != MPI_SUCCESS || s < 0)
		return 0;
	return (unsigned long long)count * (unsigned long long)s;
}

/* Bytes a status says arrived; `dflt` when it was ignored. */
static unsigned long long got(const MPI_Status *st, unsigned long long dflt)
{
	int c;
	if (st == MPI_STATUS_IGNORE || st == NULL)
		return dflt;
	if (PMPI_Get_count(st, MPI_BYTE, &c) != MPI_SUCCESS ||
	    c == MPI_UNDEFINED || c < 0)
		return dflt;
	return (unsigned long long)c;
}

static int wild_push(struct wild **a, size_t *n, size_t *cap, struct wild w)
{
	if (*n == *cap) {
		size_t c = *cap ? 2 * *cap : 16;
		struct wild *x = realloc(*a, c * sizeof *x);
		if (!x)
			return -1;
		*a = x;
		*cap = c;
	}
	(*a)[(*n)++] = w;
	return 0;
}

/* A handle given again (its earlier request was freed or cancelled, so no
 * completion call saw it finish) is a new request. */
static void wild_forget(MPI_Request r)
{
	for (size_t j = 0; j < nwild; j++)
		if (wild[j].req == r) {
			wild[j] = wild[--nwild];
			return;
		}
}

void mpp_trace_waiting(int n, const MPI_Request *reqs)
{
	nsnap = 0;
	for (int i = 0; i < n && nwild; i++)
		for (size_t j = 0; j < nwild; j++)
			if (reqs[i] != MPI_REQUEST_NULL &&
			    wild[j].req == reqs[i]) {
				struct wild w = wild[j];
				w.idx = i;
				if (wild_push(&snap, &nsnap, &capsnap, w) < 0)
					break; /* stays posted, unresolved */
				wild[j] = wild[--nwild];
				break;
			}
}

/* Request idx of the completion call finished with status st. */
static void resolve(int idx, const MPI_Status *st)
{
	for (size_t k = 0; k < nsnap; k++) {
		struct wild *w = &snap[k];
		if (w->idx != idx)
			continue;
		if (st == MPI_STATUS_IGNORE || st == NULL)
			fprintf(out, "\n%d recvd -2 -1 %llu", me, w->bytes);
		else
			fprintf(out, "\n%d recvd %d %d %llu", me,
				world(w->comm, st->MPI_SOURCE), st->MPI_TAG,
				got(st, w->bytes));
		w->idx = -1;
		return;
	}
}

/* After the completion call's line: the taken requests that did not
 * finish are posted again. */
static void resolve_end(void)
{
	for (size_t k = 0; k < nsnap; k++)
		if (snap[k].idx >= 0)
			wild_push(&wild, &nwild, &capwild, snap[k]);
	nsnap = 0;
}

static void resolve_all(int n, const MPI_Status *sts)
{
	for (size_t k = 0; k < nsnap; k++)
		if (snap[k].idx >= 0 && snap[k].idx < n)
			resolve(snap[k].idx, sts == MPI_STATUSES_IGNORE
						 ? MPI_STATUS_IGNORE
						 : &sts[snap[k].idx]);
}

static void resolve_some(int outcount, const int *indices,
			 const MPI_Status *sts)
{
	for (int k = 0; k < outcount && outcount != MPI_UNDEFINED; k++)
		resolve(indices[k], sts == MPI_STATUSES_IGNORE
					? MPI_STATUS_IGNORE
					: &sts[k]);
}

static int comm_size(MPI_Comm comm)
{
	int n = 1;
	PMPI_Comm_size(comm, &n);
	return n;
}

static int comm_rank(MPI_Comm comm)
{
	int r = 0;
	PMPI_Comm_rank(comm, &r);
	return r;
}

/* A collective on a communicator that holds only some of the ranks (a row
 * or a column of a process grid, from MPI_Comm_split) ends with " @ <n>
 * <world rank of each member, in the communicator's rank order>".
 * SimGrid's replay runs every collective over all ranks, so a row's
 * broadcast, or a gather only one column calls, was replayed as a world
 * collective, and the replay broke off (MPI_ERR_TRUNCATE) or waited
 * forever (t-subcomm-grid.sh); mpipredict-simulate replays these as
 * point-to-point messages among the members. A communicator with every
 * rank (MPI_COMM_WORLD, a duplicate, a reordered Cartesian one) needs no
 * list: its roots are already world ranks. Intercommunicators are left
 * as they were. */
static void members(MPI_Comm comm)
{
	int n, inter = 0, *r, *w;
	MPI_Group g, wg;

	if (comm == MPI_COMM_WORLD || (n = comm_size(comm)) >= nworld ||
	    PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
		return;
	r = malloc(2 * (size_t)n * sizeof *r);
	if (!r || PMPI_Comm_group(comm, &g) != MPI_SUCCESS) {
		free(r);
		return;
	}
	w = r + n;
	for (int i = 0; i < n; i++)
		r[i] = i;
	PMPI_Comm_group(MPI_COMM_WORLD, &wg);
	PMPI_Group_translate_ranks(g, n, r, wg, w);
	PMPI_Group_free(&g);
	PMPI_Group_free(&wg);
	fprintf(out, " @ %d", n);
	for (int i = 0; i < n; i++)
		fprintf(out, " %d", w[i]);
	free(r);
}

/* "MPI_Issend" -> "isend": SimGrid's name for the function's kind. */
static void action_name(const char *mpi, char *nm, size_t len)
{
	static const char *const same[][2] = {
	    {"MPI_Ssend", "send"},
	    {"MPI_Bsend", "send"},
	    {"MPI_Rsend", "send"},
	    {"MPI_Issend", "isend"},
	    {"MPI_Ibsend", "isend"},
	    {"MPI_Irsend", "isend"},
	    {"MPI_Sendrecv_replace", "sendrecv"},
	    {"MPI_Reduce_scatter", "reducescatter"},
	    {"MPI_Reduce_scatter_block", "reducescatter"},
	};
	size_t i;
	for (i = 0; i < sizeof same / sizeof same[0]; i++)
		if (!strcmp(mpi, same[i][0])) {
			snprintf(nm, len, "%s", same[i][1]);
			return;
		}
	for (i = 0; mpi[4 + i] && i + 1 < len; i++)
		nm[i] = (char)(mpi[4 + i] >= 'A' && mpi[4 + i] <= 'Z'
				   ? mpi[4 + i] - 'A' + 'a'
				   : mpi[4 + i]);
	nm[i] = '\0';
}

static void counts_out(const int *c, int n, MPI_Datatype t)
{
	for (int i = 0; i < n; i++)
		fprintf(out, " %llu", c ? bytes(c[i], t) : 0ull);
}

static unsigned long long counts_sum(const int *c, int n, MPI_Datatype t)
{
	unsigned long long s = 0;
	for (int i = 0; c && i < n; i++)
		s += bytes(c[i], t);
	return s;
}

/* A nonblocking receive: a wildcard one is resolved at its completion
 * (struct wild). */
static void tr_irecv(int source, int tag, MPI_Comm comm, MPI_Request req,
		     unsigned long long b)
{
	wild_forget(req);
	if ((source == MPI_ANY_SOURCE || tag == MPI_ANY_TAG) &&
	    wild_push(&wild, &nwild, &capwild,
		      (struct wild){req, comm, b, -1}) == 0) {
		fprintf(out, " -2 %d %llu", tag, b);
		return;
	}
	fprintf(out, " %d %d %llu", world(comm, source), tag, b);
}

/* The kept persistent request with handle req, or NULL. */
static struct pers *pers_find(MPI_Request req)
{
	for (size_t j = 0; j < npers; j++)
		if (pers[j].req == req)
			return &pers[j];
	return NULL;
}

/* A persistent request made (a handle given again is a new request). No
 * memory: the request is not traced when started. */
static void pers_keep(MPI_Request req, int send, int peer, int tag,
		      MPI_Comm comm, unsigned long long b)
{
	struct pers *p = pers_find(req);
	if (!p) {
		if (npers == cappers) {
			size_t c = cappers ? 2 * cappers : 16;
			struct pers *x = realloc(pers, c * sizeof *x);
			if (!x)
				return;
			pers = x;
			cappers = c;
		}
		p = &pers[npers++];
	}
	*p = (struct pers){req, comm, b, send, peer, tag};
}

void mpp_trace_request_free(MPI_Request req)
{
	struct pers *p = pers_find(req);
	if (p)
		*p = pers[--npers];
}

/* MPI_Start(all): " <requests not shown>" (persistent collectives,
 * requests made before tracing), then a line per point-to-point request
 * started. */
static void pers_start(int n, const MPI_Request *reqs)
{
	int unknown = 0;
	for (int i = 0; i < n; i++)
		unknown += !pers_find(reqs[i]);
	fprintf(out, " %d", unknown);
	for (int i = 0; i < n; i++) {
		const struct pers *p = pers_find(reqs[i]);
		if (!p)
			continue;
		if (p->send) {
			fprintf(out, "\n%d isend %d %d %llu", me,
				world(p->comm, p->peer), p->tag, p->bytes);
		} else {
			fprintf(out, "\n%d irecv", me);
			tr_irecv(p->peer, p->tag, p->comm, p->req, p->bytes);
		}
	}
}

/* One TR_<shape> per acct shape of mpi_table.def: prints the arguments
 * after "<rank> <name>". The parameter names they use beyond the shape's
 * own (tag, count, datatype, sendtag, recvtag) are those of the table's
 * rows of that shape. */
#define TR_SEND(count, type, dest, comm)                                       \
	fprintf(out, " %d %d %llu", world(comm, dest), tag, bytes(count, type))
/* The source and tag a receive matched. A wildcard (MPI_ANY_SOURCE,
 * MPI_ANY_TAG) is written as the status names it: SimGrid's replay
 * matches a recv to a send by source and tag exactly (its own wildcards
 * are SMPI's values, not the MPI library's), so a task farm's master
 * receiving with MPI_ANY_TAG traced as "recv 1 -1 4" waited forever in
 * the replay (t-task-farm.sh). pmpi.c and smpi_wrap.c pass a status of
 * their own when the program ignores it. Only the wildcards are taken
 * from the status: a receive from MPI_PROC_NULL has MPI_ANY_TAG there. */
#define RECV_SRC(source, status)                                               \
	(source == MPI_ANY_SOURCE && status != MPI_STATUS_IGNORE               \
	     ? status->MPI_SOURCE                                              \
	     : source)
#define RECV_TAG(tag, status)                                                  \
	(tag == MPI_ANY_TAG && status != MPI_STATUS_IGNORE ? status->MPI_TAG   \
							   : tag)
#define TR_RECV(type, source, comm, status)                                    \
	fprintf(out, " %d %d %llu", world(comm, RECV_SRC(source, status)),     \
		RECV_TAG(tag, status), got(status, bytes(count, type)))
#define TR_IRECV(source, comm, request)                                        \
	tr_irecv(source, tag, comm, *request, bytes(count, datatype))
#define TR_SENDRECV(scount, stype, dest, source, comm, status)                 \
	fprintf(out, " %d %d %llu %d %d %llu", world(comm, dest), sendtag,     \
		bytes(scount, stype), world(comm, RECV_SRC(source, status)),   \
		RECV_TAG(recvtag, status), got(status, bytes(scount, stype)))
/* The completion calls resolve the wildcard receives they finished (see
 * struct wild). */
#define TR_WAIT1(request, status) (resolve(0, status), resolve_end())
/* A test call writes its line only when it finished something (QUIET_,
 * below), with " 1" after its fields: mpipredict-simulate replays such a
 * test as a wait, and drops the tests of traces written before, which
 * have no such field and did not say whether they finished anything. */
#define TR_TEST1(request, flag, status)                                        \
	(fprintf(out, " %d", *flag != 0),                                      \
	 (*flag ? resolve(0, status) : (void)0), resolve_end())
#define TR_WAITALL(n, reqs, sts)                                               \
	(fprintf(out, " %d", n), resolve_all(n, sts), resolve_end())
#define TR_TESTALL(n, reqs, flag, sts)                                         \
	(fprintf(out, " %d %d", n, *flag != 0),                                \
	 (*flag ? resolve_all(n, sts) : (void)0), resolve_end())
#define TR_WAITANY(n, reqs, index, status)                                     \
	(fprintf(out, " %d", n),                                               \
	 (*index != MPI_UNDEFINED ? resolve(*index, status) : (void)0),        \
	 resolve_end())
#define TR_TESTANY(n, reqs, index, flag, status)                               \
	(fprintf(out, " %d %d", n, *flag && *index != MPI_UNDEFINED),          \
	 (*flag && *index != MPI_UNDEFINED ? resolve(*index, status)           \
					   : (void)0),                         \
	 resolve_end())
#define TR_SOME(n, reqs, outcount, indices, sts)                               \
	(fprintf(out, " %d %d", n,                                             \
		 *outcount != MPI_UNDEFINED && *outcount > 0),                 \
	 resolve_some(*outcount, indices, sts), resolve_end())
#define TR_BARRIER(comm) members(comm)
#define TR_BCAST(count, type, root, comm)                                      \
	(fprintf(out, " %llu %d", bytes(count, type), world(comm, root)),      \
	 members(comm))
#define TR_REDUCE(count, type, root, comm)                                     \
	(fprintf(out, " %llu 0 %d", bytes(count, type), world(comm, root)),    \
	 members(comm))
#define TR_ALLREDUCE(count, type, comm)                                        \
	(fprintf(out, " %llu 0", bytes(count, type)), members(comm))
#define TR_EXSCAN(count, type, comm)                                           \
	(fprintf(out, " %llu", bytes(count, type)), members(comm))
#define TR_SCATTER(scount, stype, rbuf, rcount, rtype, root, comm)             \
	(fprintf(out, " %llu %llu %d", bytes(scount, stype),                   \
		 bytes(rcount, rtype), world(comm, root)),                     \
	 members(comm))
#define TR_SCATTERV(scounts, stype, rbuf, rcount, rtype, root, comm)           \
	do {                                                                   \
		int root_ = comm_rank(comm) == root;                           \
		counts_out(root_ ? scounts : NULL, comm_size(comm), stype);    \
		fprintf(out, " %llu %d", bytes(rcount, rtype),                 \
			world(comm, root));                                    \
		members(comm);                                                 \
	} while (0)
#define TR_GATHER(sbuf, scount, stype, rcount, rtype, root, comm)              \
	(fprintf(out, " %llu %llu %d", bytes(scount, stype),                   \
		 bytes(rcount, rtype), world(comm, root)),                     \
	 members(comm))
#define TR_GATHERV(sbuf, scount, stype, rcounts, rtype, root, comm)            \
	do {                                                                   \
		int root_ = comm_rank(comm) == root;                           \
		fprintf(out, " %llu", bytes(scount, stype));                   \
		counts_out(root_ ? rcounts : NULL, comm_size(comm), rtype);    \
		fprintf(out, " %d", world(comm, root));                        \
		members(comm);                                                 \
	} while (0)
#define TR_ALLGATHER(sbuf, scount, stype, rcount, rtype, comm)                 \
	(fprintf(out, " %llu %llu", bytes(scount, stype),                      \
		 bytes(rcount, rtype)),                                        \
	 members(comm))
#define TR_ALLGATHERV(sbuf, scount, stype, rcounts, rtype, comm)               \
	do {                                                                   \
		fprintf(out, " %llu", bytes(scount, stype));                   \
		counts_out(rcounts, comm_size(comm), rtype);                   \
		members(comm);                                                 \
	} while (0)
#define TR_ALLTOALL(sbuf, scount, stype, rcount, rtype, comm)                  \
	(fprintf(out, " %llu %llu", bytes(scount, stype),                      \
		 bytes(rcount, rtype)),                                        \
	 members(comm))
#define TR_ALLTOALLV(sbuf, scounts, stype, rcounts, rtype, comm)               \
	do {                                                                   \
		int n_ = comm_size(comm);                                      \
		fprintf(out, " %llu", counts_sum(scounts, n_, stype));         \
		counts_out(scounts, n_, stype);                                \
		fprintf(out, " %llu", counts_sum(rcounts, n_, rtype));         \
		counts_out(rcounts, n_, rtype);                                \
		members(comm);                                                 \
	} while (0)
#define TR_REDSCAT(rcounts, type, comm)                                        \
	do {                                                                   \
		counts_out(rcounts, comm_size(comm), type);                    \
		fprintf(out, " 0");                                            \
		members(comm);                                                 \
	} while (0)
#define TR_REDSCAT_BLOCK(rcount, type, comm)                                   \
	do {                                                                   \
		for (int i_ = comm_size(comm); i_ > 0; i_--)                   \
			fprintf(out, " %llu", bytes(rcount, type));            \
		fprintf(out, " 0");                                            \
		members(comm);                                                 \
	} while (0)

/* Neighbourhood collectives: the neighbours of comm's topology, sources
 * in nb[0..*nin) and destinations in nb[*nin..*nin + *nout), in the order
 * the standard gives the buffer blocks (a Cartesian topology: for each
 * dimension the rank at -1 and then at +1, for sending and receiving).
 * Returns a malloc'ed array, or NULL (no topology, no memory). Here and
 * not in pmpi.c so that the smpicc build of this file has it too. */
int *mpp_trace_neighbors(MPI_Comm comm, int *nin, int *nout)
{
	int topo = MPI_UNDEFINED, k = 0, d, rank = 0, w = 0, *nb = NULL,
	    *wt = NULL;

	*nin = *nout = 0;
	if (PMPI_Topo_test(comm, &topo) != MPI_SUCCESS)
		return NULL;
	if (topo == MPI_CART) {
		PMPI_Cartdim_get(comm, &k);
		if (!(nb = malloc(4 * (size_t)k * sizeof *nb + 1)))
			return NULL;
		for (d = 0; d < k; d++)
			PMPI_Cart_shift(comm, d, 1, &nb[2 * d], &nb[2 * d + 1]);
		memcpy(nb + 2 * k, nb, 2 * (size_t)k * sizeof *nb);
		*nin = *nout = 2 * k;
	} else if (topo == MPI_GRAPH) {
		PMPI_Comm_rank(comm, &rank);
		PMPI_Graph_neighbors_count(comm, rank, &k);
		if (!(nb = malloc(2 * (size_t)k * sizeof *nb + 1)))
			return NULL;
		PMPI_Graph_neighbors(comm, rank, k, nb);
		memcpy(nb + k, nb, (size_t)k * sizeof *nb);
		*nin = *nout = k;
	} else if (topo == MPI_DIST_GRAPH) {
		PMPI_Dist_graph_neighbors_count(comm, nin, nout, &w);
		k = *nin + *nout;
		nb = malloc((size_t)k * sizeof *nb + 1);
		wt = w ? malloc((size_t)k * sizeof *wt + 1) : NULL;
		if (!nb || (w && !wt)) {
			free(nb);
			free(wt);
			*nin = *nout = 0;
			return NULL;
		}
		PMPI_Dist_graph_neighbors(
		    comm, *nin, nb, w ? wt : MPI_UNWEIGHTED, *nout, nb + *nin,
		    w ? wt + *nin : MPI_UNWEIGHTED);
		free(wt);
	}
	return nb;
}

/* A neighbourhood collective: " <nin> <nout>", then per source
 * " <world rank> <bytes received>" and per destination " <world rank>
 * <bytes sent>" (-1 for MPI_PROC_NULL; " 0 0" without a topology).
 * mpipredict-simulate replays it as irecvs, isends and a waitall. */
static void tr_neighbor(MPI_Comm comm, const int *sc, int ss,
			const MPI_Datatype *st, int sts, const int *rc, int rs,
			const MPI_Datatype *rt, int rts)
{
	int nin, nout, *nb = mpp_trace_neighbors(comm, &nin, &nout);
	if (!nb) {
		fprintf(out, " 0 0");
		return;
	}
	fprintf(out, " %d %d", nin, nout);
	for (int i = 0; i < nin; i++)
		fprintf(out, " %d %llu", world(comm, nb[i]),
			bytes(rc[i * rs], rt[i * rts]));
	for (int i = 0; i < nout; i++)
		fprintf(out, " %d %llu", world(comm, nb[nin + i]),
			bytes(sc[i * ss], st[i * sts]));
	free(nb);
}
#define TR_NEIGHBOR(sc, ss, st, sts, rc, rs, rt, rts, comm)                    \
	tr_neighbor(comm, sc, ss, st, sts, rc, rs, rt, rts)

/* Alltoallw: a count and a type per peer, written like Alltoallv's
 * fields (per-peer bytes); mpipredict-simulate replays it as alltoallv.
 * With MPI_IN_PLACE the receive blocks are sent. */
static void tr_alltoallw(const void *sbuf, const int *sc,
			 const MPI_Datatype *st, const int *rc,
			 const MPI_Datatype *rt, MPI_Comm comm)
{
	int n = comm_size(comm);
	unsigned long long s = 0, r = 0;
	if (sbuf == MPI_IN_PLACE) {
		sc = rc;
		st = rt;
	}
	for (int i = 0; i < n; i++) {
		s += bytes(sc[i], st[i]);
		r += bytes(rc[i], rt[i]);
	}
	fprintf(out, " %llu", s);
	for (int i = 0; i < n; i++)
		fprintf(out, " %llu", bytes(sc[i], st[i]));
	fprintf(out, " %llu", r);
	for (int i = 0; i < n; i++)
		fprintf(out, " %llu", bytes(rc[i], rt[i]));
	members(comm);
}
#define TR_ALLTOALLW(sbuf, scounts, stypes, rcounts, rtypes, comm)             \
	tr_alltoallw(sbuf, scounts, stypes, rcounts, rtypes, comm)

/* Persistent point-to-point requests: see struct pers. */
#define TR_PSEND(count, type, dest, comm, request)                             \
	pers_keep(*request, 1, dest, tag, comm, bytes(count, type))
#define TR_PRECV(source, comm, request)                                        \
	pers_keep(*request, 0, source, tag, comm, bytes(count, datatype))
#define TR_START(n, requests) pers_start(n, requests)

/* Shapes with no SimGrid replay action (persistent collectives,
 * one-sided, I/O): the name alone, so that the segment boundaries stay;
 * mpipredict-simulate drops them from replays. */
#define TR_PCOLL(...)
#define TR_RMA(...)
#define TR_NONE(...)
#define TR_IOTIME(...)
#define TR_FILEIO(...)
#define TR_IFILEIO(...)

/* A test call that finished nothing (QUIET_<shape>) writes no line: its
 * time is left out of the segment, which goes on (as for MPI_Probe), and
 * so is the time since the call before it when that is under POLL_GAP:
 * that is the polling loop itself (its branch, and libmpipredict's
 * accounting of every call), not work. A loop polling with MPI_Test until
 * a message is in wrote a line per poll (258,000 in a 0.2 s run of
 * progs/poll.c), and its time between polls, 2-12 ms per wait there,
 * grew with the wait and was scaled as work; now the trace holds the work
 * done between polls (a loop that computes a chunk between tests keeps
 * its chunks) and the test that finished, which mpipredict-simulate
 * replays as a wait. Waitsome never returns 0 requests. POLL_GAP is 5 us,
 * 10x one poll's turn here (about 0.5 us with the counting on) and
 * 5x SMPI's default smpi/cpu-threshold, below which SMPI injects no
 * computation either. */
#define POLL_GAP                           5e-6
#define QUIET_TEST1(request, flag, status) (!*flag)
#define QUIET_TESTALL(n, reqs, flag, sts)  (!*flag)
#define QUIET_TESTANY(n, reqs, index, flag, status)                            \
	(!*flag || *index == MPI_UNDEFINED)
#define QUIET_SOME(n, reqs, outcount, indices, sts) (*outcount == 0)
/* Every other shape of mpi_table.def always writes its line. */
#define QUIET_ALLGATHER(...)     0
#define QUIET_ALLGATHERV(...)    0
#define QUIET_ALLREDUCE(...)     0
#define QUIET_ALLTOALL(...)      0
#define QUIET_ALLTOALLV(...)     0
#define QUIET_ALLTOALLW(...)     0
#define QUIET_BARRIER(...)       0
#define QUIET_BCAST(...)         0
#define QUIET_EXSCAN(...)        0
#define QUIET_FILEIO(...)        0
#define QUIET_GATHER(...)        0
#define QUIET_GATHERV(...)       0
#define QUIET_IFILEIO(...)       0
#define QUIET_IOTIME(...)        0
#define QUIET_IRECV(...)         0
#define QUIET_NEIGHBOR(...)      0
#define QUIET_NONE(...)          0
#define QUIET_PCOLL(...)         0
#define QUIET_PRECV(...)         0
#define QUIET_PSEND(...)         0
#define QUIET_RECV(...)          0
#define QUIET_REDSCAT(...)       0
#define QUIET_REDSCAT_BLOCK(...) 0
#define QUIET_REDUCE(...)        0
#define QUIET_RMA(...)           0
#define QUIET_SCATTER(...)       0
#define QUIET_SCATTERV(...)      0
#define QUIET_SEND(...)          0
#define QUIET_SENDRECV(...)      0
#define QUIET_START(...)         0
#define QUIET_WAIT1(...)         0
#define QUIET_WAITALL(...)       0
#define QUIET_WAITANY(...)       0
#define MPP_MPI(name, ret, kind, params, args, acct)                           \
	void mpp_trace_##name params                                           \
	{                                                                      \
		static char nm_[32];                                           \
		if (QUIET_##acct) {                                            \
			double t_ = now();                                     \
			resolve_end();                                         \
			t_seg += t_ - t_call;                                  \
			if (t_call - t_end < POLL_GAP)                         \
				t_seg += t_call - t_end;                       \
			t_end = t_;                                            \
			return;                                                \
		}                                                              \
		if (!nm_[0])                                                   \
			action_name(#name, nm_, sizeof nm_);                   \
		compute_line();                                                \
		fprintf(out, "%d %s", me, nm_);                                \
		TR_##acct;                                                     \
		fputc('\n', out);                                              \
		t_seg = t_end = now();                                         \
	}
#include "collector/mpi_table.def"
#undef MPP_MPI
