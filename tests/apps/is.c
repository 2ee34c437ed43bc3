/*
 * is.c: example MPI application for mpipredict's tests and benchmarks
 * (the NAS IS kind: an integer bucket sort dominated by all-to-all traffic).
 *
 * Every iteration draws N keys of B bits from a counter-based generator (the
 * key at global index g of iteration t is a hash of g and t, so the keys do
 * not depend on the number of ranks), sends each key to the rank owning its
 * range of values (MPI_Alltoall of the counts, MPI_Alltoallv of the keys),
 * sorts locally by counting, and verifies the result: every rank sorted,
 * ranges in order across ranks, no key lost. The printed checksum is the sum
 * over the sorted sequence of position * key, modulo 2^64, over all
 * iterations: the same for every number of ranks.
 */
#include <getopt.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_args.h"

static const char *prog = "is";

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-n N] [-i I] [-b B]\n"
		"Bucket-sort N random keys of B bits, I times, and verify.\n"
		"  -n, --size=N        keys in total, 1..1000000000 "
		"(default 4000000)\n"
		"  -i, --iterations=I  sorts, 1..10000 (default 10)\n"
		"  -b, --bits=B        bits per key, 8..28 (default 20)\n"
		"  -h, --help          this message\n",
		prog);
}

/* splitmix64's output function: a good 64-bit mix of a counter. */
static uint64_t mix(uint64_t z)
{
	z += 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"size", required_argument, NULL, 'n'},
	    {"iterations", required_argument, NULL, 'i'},
	    {"bits", required_argument, NULL, 'b'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	long n = 4000000, iters = 10, bits = 20;
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "n:i:b:h", opts, NULL)) != -1) {
		int bad = 0;
		switch (c) {
		case 'n':
			bad = app_long(prog, "--size", optarg, 1, 1000000000L,
				       &n);
			break;
		case 'i':
			bad = app_long(prog, "--iterations", optarg, 1, 10000,
				       &iters);
			break;
		case 'b':
			bad = app_long(prog, "--bits", optarg, 8, 28, &bits);
			break;
		case 'h':
			if (app_first_process())
				usage(stdout);
			return 0;
		default:
			app_bad_option(prog, argv[optind - 1]);
			return 1;
		}
		if (bad)
			return 1;
	}
	if (optind < argc) {
		app_bad_option(prog, argv[optind]);
		return 1;
	}

	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);

	/* This rank draws the keys at global indices [first, first + mine)
	 * and owns the key values [vlo, vhi): the keys k with
	 * floor(k * size / 2^bits) == rank. */
	long q = n / size, r = n % size;
	long mine = q + (rank < r);
	long first = rank * q + (rank < r ? rank : r);
	uint64_t nvalues = 1ULL << bits;
	uint64_t usize = (uint64_t)size;
	uint64_t vlo = (nvalues * (uint64_t)rank + usize - 1) / usize;
	uint64_t vhi = (nvalues * (uint64_t)(rank + 1) + usize - 1) / usize;

	uint32_t *keys = malloc((size_t)(mine ? mine : 1) * sizeof *keys);
	uint32_t *sendbuf = malloc((size_t)(mine ? mine : 1) * sizeof *sendbuf);
	int *scount = calloc((size_t)size, sizeof *scount);
	int *rcount = calloc((size_t)size, sizeof *rcount);
	int *sdispl = calloc((size_t)size, sizeof *sdispl);
	int *rdispl = calloc((size_t)size, sizeof *rdispl);
	int *fill = calloc((size_t)size, sizeof *fill);
	long *hist = calloc((size_t)(vhi - vlo) + 1, sizeof *hist);
	uint32_t *recv = NULL;
	if (!keys || !sendbuf || !scount || !rcount || !sdispl || !rdispl ||
	    !fill || !hist) {
		fprintf(stderr, "%s: out of memory\n", prog);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}

	uint64_t checksum = 0;
	int failed = 0;
	for (long it = 0; it < iters; it++) {
		uint64_t seed = mix((uint64_t)it + 1);
		memset(scount, 0, (size_t)size * sizeof *scount);
		for (long g = 0; g < mine; g++) {
			uint64_t k =
			    mix(seed ^ (uint64_t)(first + g)) >> (64 - bits);
			keys[g] = (uint32_t)k;
			scount[k * (uint64_t)size >> bits]++;
		}
		MPI_Alltoall(scount, 1, MPI_INT, rcount, 1, MPI_INT,
			     MPI_COMM_WORLD);
		long nrecv = 0;
		for (int p = 0; p < size; p++) {
			sdispl[p] = p ? sdispl[p - 1] + scount[p - 1] : 0;
			rdispl[p] = p ? rdispl[p - 1] + rcount[p - 1] : 0;
			fill[p] = sdispl[p];
			nrecv += rcount[p];
		}
		for (long g = 0; g < mine; g++) {
			uint64_t k = keys[g];
			sendbuf[fill[k * (uint64_t)size >> bits]++] = keys[g];
		}
		uint32_t *nr =
		    realloc(recv, (size_t)(nrecv ? nrecv : 1) * sizeof *recv);
		if (nr == NULL) {
			fprintf(stderr, "%s: out of memory\n", prog);
			MPI_Abort(MPI_COMM_WORLD, 2);
		}
		recv = nr;
		MPI_Alltoallv(sendbuf, scount, sdispl, MPI_UINT32_T, recv,
			      rcount, rdispl, MPI_UINT32_T, MPI_COMM_WORLD);

		/* Counting sort of the local range, back into recv. */
		memset(hist, 0, (size_t)(vhi - vlo) * sizeof *hist);
		for (long x = 0; x < nrecv; x++) {
			if (recv[x] < vlo || recv[x] >= vhi)
				failed = 1;
			else
				hist[recv[x] - vlo]++;
		}
		long pos = 0;
		for (uint64_t v = vlo; v < vhi; v++)
			for (long m = hist[v - vlo]; m > 0; m--)
				recv[pos++] = (uint32_t)v;

		/* Verification: sorted here, in order across ranks, and no
		 * key lost; positions in the global order for the checksum. */
		for (long x = 1; x < nrecv; x++)
			if (recv[x - 1] > recv[x])
				failed = 1;
		long long cnt = nrecv, before = 0, all = 0;
		MPI_Exscan(&cnt, &before, 1, MPI_LONG_LONG, MPI_SUM,
			   MPI_COMM_WORLD);
		if (rank == 0)
			before = 0;
		MPI_Allreduce(&cnt, &all, 1, MPI_LONG_LONG, MPI_SUM,
			      MPI_COMM_WORLD);
		if (all != n)
			failed = 1;
		long long edge[2] = {nrecv ? (long long)recv[0] : -1,
				     nrecv ? (long long)recv[nrecv - 1] : -1};
		long long prev_max = -1;
		MPI_Sendrecv(&edge[1], 1, MPI_LONG_LONG,
			     rank + 1 < size ? rank + 1 : MPI_PROC_NULL, 0,
			     &prev_max, 1, MPI_LONG_LONG,
			     rank > 0 ? rank - 1 : MPI_PROC_NULL, 0,
			     MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (nrecv && prev_max > edge[0])
			failed = 1;
		for (long x = 0; x < nrecv; x++)
			checksum += (uint64_t)(before + x + 1) * recv[x];
	}

	uint64_t total = 0;
	int anyfail = 0;
	MPI_Reduce(&checksum, &total, 1, MPI_UINT64_T, MPI_SUM, 0,
		   MPI_COMM_WORLD);
	MPI_Reduce(&failed, &anyfail, 1, MPI_INT, MPI_MAX, 0, MPI_COMM_WORLD);
	if (rank == 0)
		printf("is N=%ld bits=%ld iterations=%ld checksum=%llu "
		       "verification=%s\n",
		       n, bits, iters, (unsigned long long)total,
		       anyfail ? "FAILED" : "passed");
	free(keys);
	free(sendbuf);
	free(scount);
	free(rcount);
	free(sdispl);
	free(rdispl);
	free(fill);
	free(hist);
	free(recv);
	MPI_Finalize();
	return anyfail ? 3 : 0;
}
