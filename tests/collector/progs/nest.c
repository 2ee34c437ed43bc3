/*
 * nest.c: tagged MPI calls whose arguments make other MPI calls, for the
 * collector's test of call-site attribution (t-nested-call-sites.sh). It
 * carries a hand-built unit like traffic.c and tags its calls with
 * __mpp_tag_push, in the order the program is told:
 *   callee  the tag is pushed before the arguments are evaluated (what gcc
 *           and clang do with `(__mpp_tag(&s), MPI_X)(args)`);
 *   args    the arguments are evaluated first, then the tag is pushed (also
 *           allowed by C, which leaves the order unspecified).
 * Usage: nest callee|args. Every rank runs, in both orders:
 *   a  Bcast(count = (tagged Allreduce of 1 int, 3))          other function
 *   b  Bcast(count = helper())  helper: untagged Allreduce of 2 ints, 5
 *   c  Allreduce(count = (tagged Allreduce of 1 int, 4))      same function
 *   d  Bcast(count = (tagged Allreduce of count
 *            = (untagged Bcast of 1 int, 1), 6))              three levels
 * The expected counts are in the test script.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "mpp_abi.h"

enum { A_OUT, A_IN, B_OUT, C_OUT, C_IN, D_OUT, D_MID, NSITES };
static const char *const site_names[NSITES] = {
    "n.c:1:1:MPI_Bcast",     "n.c:2:1:MPI_Allreduce", "n.c:3:1:MPI_Bcast",
    "n.c:4:1:MPI_Allreduce", "n.c:5:1:MPI_Allreduce", "n.c:6:1:MPI_Bcast",
    "n.c:7:1:MPI_Allreduce",
};
static struct __mpp_site sites[NSITES];
static struct __mpp_unit unit = {
    MPP_ABI_VERSION, "nest", "n.c",      NULL, 0, NULL, NULL,
    NSITES,          sites,  site_names, 0,
};

__attribute__((constructor)) static void reg(void)
{
	__mpp_register(&unit);
}

static int callee_first;
static int buf[64], in[64], out[64];

/* Push the tag of site s and evaluate arg() in the selected order; returns
 * arg()'s value for the call that follows. */
static int tagged(int s, int (*arg)(void))
{
	int v;

	if (callee_first) {
		__mpp_tag_push(&sites[s]);
		return arg();
	}
	v = arg();
	__mpp_tag_push(&sites[s]);
	return v;
}

static int three(void)
{
	__mpp_tag_push(&sites[A_IN]);
	MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	return 3;
}

static int helper(void)
{
	MPI_Allreduce(in, out, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	return 5;
}

static int four(void)
{
	__mpp_tag_push(&sites[C_IN]);
	MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	return 4;
}

static int one(void)
{
	MPI_Bcast(buf, 1, MPI_INT, 0, MPI_COMM_WORLD);
	return 1;
}

static int six(void)
{
	int n = tagged(D_MID, one);

	MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	return 6;
}

int main(int argc, char **argv)
{
	int n;

	MPI_Init(&argc, &argv);
	if (argc != 2 ||
	    (strcmp(argv[1], "callee") && strcmp(argv[1], "args"))) {
		fprintf(stderr, "usage: nest callee|args\n");
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	callee_first = !strcmp(argv[1], "callee");
	n = tagged(A_OUT, three);
	MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD);
	n = tagged(B_OUT, helper);
	MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD);
	n = tagged(C_OUT, four);
	MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	n = tagged(D_OUT, six);
	MPI_Bcast(buf, n, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
