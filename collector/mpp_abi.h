/*
 * mpp_abi.h: the contract between code rewritten by mpipredict-instrument and
 * the libmpipredict runtime. It is what the two parts promise each other;
 * neither part's internals belong here.
 *
 * What a rewritten translation unit holds (the rewriter generates it, with
 * every identifier under the reserved prefix __mpp_ and no #include, so that
 * user macros such as `#define r 2836` or `#define _GNU_SOURCE` cannot touch
 * it):
 *
 *   - one counter array, `static unsigned long long __mpp_c_<id>[N]`, one slot
 *     per loop body, then-branch and else-branch; the rewritten code adds to
 *     the slots (plain, non-atomic adds);
 *   - one site array, `static struct __mpp_site __mpp_s_<id>[M]`, one entry
 *     per MPI call site; each call site is rewritten so that it pushes the
 *     address of its entry on the calling thread's tag stack (__mpp_tags)
 *     before the MPI function is entered, e.g.
 *         MPI_Send(a, n, t, d, g, c)
 *      -> (__mpp_tag_<id>(&__mpp_s_<id>[3]), MPI_Send)(a, n, t, d, g, c)
 *     which evaluates no argument twice and keeps the call an expression.
 *     __mpp_tag_<id> is a static inline function of the unit that calls
 *     __mpp_tag (below) when the runtime is there;
 *   - one struct __mpp_unit describing both arrays, registered from a
 *     constructor: `__attribute__((constructor)) static void f(void)
 *     { __mpp_register(&unit); }`.
 *
 * A rewritten unit references __mpp_register and __mpp_tag weakly and
 * nothing else of the runtime, so that a program linked by a command that
 * does not add -lmpipredict ($(LD) = mpicc) still links. When its
 * constructor finds the runtime missing, it loads it with dlopen (the path
 * the rewriter knew: $MPIPREDICT_LIBDIR, else <tool dir>/../lib), calls
 * its __mpp_interpose (which binds the program's MPI_* references to the
 * runtime's wrappers, as a preload would have) and registers through
 * dlsym; the tag function found so goes into the weak pointer __mpp_tagf
 * that the units' __mpp_tag_<id> call when __mpp_tag is null. No second
 * exec: debuggers, valgrind and profilers see one process. If that fails,
 * one line on stderr and the run is not counted. MPIPREDICT_DISABLE=1
 * skips it.
 *
 * What the runtime does with them: __mpp_register resolves each site's MPI
 * function from its name ("...:MPI_Send") into the site's `fn`. On entry to
 * every intercepted MPI function the PMPI layer looks at the top of the
 * thread's tag stack: when that site's fn is its own function it pops it
 * (restoring the tag that was current before) and adds calls and bytes to
 * that site; otherwise it leaves the stack alone and counts the call as the
 * function's untagged total. So a tagged call whose arguments make other MPI
 * calls (tagged, or untagged from a helper or an uninstrumented library) is
 * attributed exactly whether the compiler evaluates the callee or the
 * arguments first. The one case no tag scheme can tell apart: when the
 * callee is evaluated first, an *untagged* call of the *same* MPI function
 * made inside the arguments takes the outer call's tag.
 * At MPI_Finalize the runtime reduces every registered counter and site over
 * the ranks and writes the run row. Names in the row are the unit's names
 * plus ".mean" or ".max" (see docs/design.md, "Run records").
 *
 * The app name: a unit built with `mpipredict-instrument --app NAME` (or
 * `mpipredict-cc --app NAME`) carries NAME in `app`; the run's app is
 * $MPIPREDICT_APP if set and not empty, else the units' app, else the
 * executable's basename.
 *
 * Lifetime: a unit and everything it points to are static data of the
 * program; the runtime never frees or moves them, only reads the names and
 * writes the sites. __mpp_register may run before main and before MPI_Init,
 * in any order of units; registering the same unit twice is harmless.
 */
#ifndef MPP_ABI_H
#define MPP_ABI_H

/* Bumped whenever the layout or meaning below changes; the runtime refuses
 * (one line on stderr, the unit is ignored) a unit built against a version
 * it does not know. The version is the first member of struct __mpp_unit in
 * every version. */
#define MPP_ABI_VERSION 5

/* One MPI call site. */
struct __mpp_site {
	unsigned long long calls; /* times the call was made                 */
	unsigned long long bytes; /* bytes sent + received (see collector)   */
	unsigned long long ticks; /* time inside the call, in the runtime's
				     clock ticks (converted at MPI_Finalize) */
	/* Set by __mpp_register: 1 + the runtime's index of the site's MPI
	 * function; 0 (as initialised) until then or when the runtime does
	 * not know the function, and such a tag is never taken. */
	int fn;
};

/* The per-thread stack of pushed, not yet taken, call-site tags. Depth is
 * the nesting of MPI calls inside MPI call arguments; deeper nesting than
 * MPP_TAG_DEPTH wraps around (the oldest tags are lost, memory is safe). */
#define MPP_TAG_DEPTH 8
struct __mpp_tags {
	unsigned n; /* tags pushed minus tags taken */
	struct __mpp_site *site[MPP_TAG_DEPTH];
};

/* One rewritten translation unit. */
struct __mpp_unit {
	int abi_version;   /* MPP_ABI_VERSION                                    */
	const char *build_id;  /* hex hash of the rewritten text and tool version */
	const char *file;  /* source file as it appears in feature names          */
	const char *app;   /* default app name (--app), or 0                      */

	unsigned ncounters;
	unsigned long long *counters;
	/* Feature names without the aggregate, e.g. "loop:jacobi.c:42:5",
	 * "then:jacobi.c:50:9", "else:jacobi.c:50:9". */
	const char *const *counter_names;

	unsigned nsites;
	struct __mpp_site *sites;
	/* "<file>:<line>:<col>:<MPI function>", e.g. "jacobi.c:88:9:MPI_Sendrecv";
	 * the runtime derives "call:<that>" and "bytes:<that>" feature names. */
	const char *const *site_names;

	struct __mpp_unit *next; /* the runtime's list link; initialise to 0 */

	/* Since version 4 (a version 3 unit ends at next: none). Counters the
	 * program does not count, by flow conservation: nderived triples
	 * (e, body, then) in derived, meaning counters[e] = counters[body] -
	 * counters[then] (an if's else count from the count of the block it
	 * runs once per pass of, and its then count), or, when the third has
	 * MPP_DERIVE_SUM set, counters[e] = counters[body] + counters[then
	 * without the flag] (an else-if's count from its then and else),
	 * applied in order (a body may be an earlier triple's e). The
	 * runtime computes them whenever it reads the counters.
	 * Since version 5: a third with MPP_DERIVE_SCALE set is a constant,
	 * counters[e] = counters[body] * (third without the flag) (a loop of
	 * constant trip count from the count of the block it runs once per
	 * pass of); and an index with MPP_DERIVE_SCRATCH set names a count
	 * no feature reports, defined by a triple of its own (how often the
	 * statements after `if (c) continue;` run: the block's count less
	 * that then's). */
	unsigned nderived;
	const unsigned *derived;
};
#define MPP_DERIVE_SUM 0x80000000u
#define MPP_DERIVE_SCALE 0x40000000u
#define MPP_DERIVE_SCRATCH 0x20000000u

/* Counter j of unit u as the program would have counted it: a derived one
 * from the others, through the triples that define them (the rewriter
 * makes no cycle); 0 when a read in a running job caught a then count
 * ahead of its block's (the progress thread reads while the program
 * counts). What every reader of the counters uses. */
static inline unsigned long long
__mpp_counter_value(const struct __mpp_unit *u, unsigned j)
{
	const unsigned *d = u->abi_version >= 4 ? u->derived : 0;
	unsigned i = d ? u->nderived : 0;

	while (i-- > 0)
		if (d[3 * i] == j) {
			unsigned k = d[3 * i + 2];
			unsigned long long b = __mpp_counter_value(u, d[3 * i + 1]),
					   t;
			if (k & MPP_DERIVE_SCALE)
				return b * (k & ~MPP_DERIVE_SCALE);
			t = __mpp_counter_value(u, k & ~MPP_DERIVE_SUM);
			if (k & MPP_DERIVE_SUM)
				return b + t;
			return b > t ? b - t : 0;
		}
	return j & MPP_DERIVE_SCRATCH ? 0 : u->counters[j];
}

/* The tag push as a function: what rewritten units call (a call costs a
 * few instructions more than the inline push, next to the hundreds of an
 * MPI call), so that they reference no thread-local object of the runtime
 * and link without it. */
void __mpp_tag(struct __mpp_site *site);

/* Provided by libmpipredict. The tag stack is initial-exec TLS, so that a
 * tag push does not go through __tls_get_addr; a runtime opened by dlopen
 * (above) takes it from glibc's static TLS reserve. */
void __mpp_register(struct __mpp_unit *unit);
/* After a dlopen of the runtime: rebinds the loaded objects' MPI_*
 * references to its wrappers (collector/interpose.c); 0 on success. */
int __mpp_interpose(void);
extern _Thread_local struct __mpp_tags __mpp_tags
    __attribute__((__tls_model__("initial-exec")));

/* What each rewritten call site does before the call (hand-built units, such
 * as the collector's test programs, use it directly). */
static inline void __mpp_tag_push(struct __mpp_site *site)
{
	unsigned n = __mpp_tags.n;

	__mpp_tags.site[n % MPP_TAG_DEPTH] = site;
	__mpp_tags.n = n + 1;
}

#endif
