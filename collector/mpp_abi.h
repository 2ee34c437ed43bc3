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
 *     per MPI call site; each call site is rewritten so that it stores the
 *     address of its entry in __mpp_cur_site immediately before the MPI
 *     function is entered, e.g.
 *         MPI_Send(a, n, t, d, g, c)
 *      -> (__mpp_cur_site = &__mpp_s_<id>[3], MPI_Send)(a, n, t, d, g, c)
 *     which evaluates no argument twice and keeps the call an expression;
 *   - one struct __mpp_unit describing both arrays, registered from a
 *     constructor: `__attribute__((constructor)) static void f(void)
 *     { __mpp_register(&unit); }`.
 *
 * What the runtime does with them: the PMPI layer reads __mpp_cur_site on
 * entry to every intercepted MPI function, clears it, and adds calls and bytes
 * to that entry (or to the function's unattributed total when it is NULL).
 * At MPI_Finalize it reduces every registered counter and site over the ranks
 * and writes the run row. Names in the row are the unit's names plus ".mean"
 * or ".max" (see DESIGN.md, "Run records").
 *
 * Lifetime: a unit and everything it points to are static data of the
 * program; the runtime never frees or moves them, and only reads the names.
 * __mpp_register may run before main and before MPI_Init, in any order of
 * units; registering the same unit twice is harmless.
 */
#ifndef MPP_ABI_H
#define MPP_ABI_H

/* Bumped whenever the layout below changes; the runtime refuses (one line on
 * stderr, the unit is ignored) a unit built against another version. */
#define MPP_ABI_VERSION 1

/* One MPI call site. Written only by the runtime. */
struct __mpp_site {
	unsigned long long calls;       /* times the call was made            */
	unsigned long long bytes;       /* bytes sent + received (see collector) */
	unsigned long long intra_bytes; /* point-to-point bytes within a node  */
	unsigned long long inter_bytes; /* point-to-point bytes between nodes  */
};

/* One rewritten translation unit. */
struct __mpp_unit {
	int abi_version;   /* MPP_ABI_VERSION                                    */
	const char *build_id;  /* hex hash of the rewritten text and tool version */
	const char *file;  /* source file as it appears in feature names          */

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
};

/* Provided by libmpipredict. */
void __mpp_register(struct __mpp_unit *unit);
extern _Thread_local struct __mpp_site *__mpp_cur_site;

#endif
