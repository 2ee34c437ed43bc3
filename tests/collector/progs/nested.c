/*
 * nested.c: a plain MPI program whose MPI calls sit in the arguments of
 * other MPI calls, for the end-to-end half of t-nested-call-sites.sh: built
 * with mpipredict-cc (gcc and clang), linked with nested_lib.c, which is
 * not instrumented. The test finds each call site by the marker on the
 * line before it. Per rank:
 *   A  Bcast of 3 ints; its count comes after a tagged Allreduce of 1 int
 *   B  Bcast of 5 ints; its count comes from an untagged Allreduce of 2
 *      ints in nested_lib.c
 *   C  Allreduce of 4 ints; its count comes after a tagged Allreduce of 1
 *   D  Bcast of 6 ints around a tagged Allreduce of 1 int, whose count
 *      comes from an untagged Bcast of 1 int in nested_lib.c
 */
#include <mpi.h>

int lib_allreduce(int n, MPI_Comm c);
int lib_bcast(int n, MPI_Comm c);

int main(int argc, char **argv)
{
	int buf[8] = {0}, in[8] = {0}, out[8];
	MPI_Comm w;

	MPI_Init(&argc, &argv);
	w = MPI_COMM_WORLD;
	/* A */
	MPI_Bcast(buf,
		  /* A_IN */
		  (MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, w), 3), MPI_INT,
		  0, w);
	/* B */
	MPI_Bcast(buf, lib_allreduce(2, w) + 3, MPI_INT, 0, w);
	/* C */
	MPI_Allreduce(in, out,
		      /* C_IN */
		      (MPI_Allreduce(in, out, 1, MPI_INT, MPI_SUM, w), 4),
		      MPI_INT, MPI_SUM, w);
	/* D */
	MPI_Bcast(
	    buf,
	    /* D_MID */
	    (MPI_Allreduce(in, out, lib_bcast(1, w), MPI_INT, MPI_SUM, w), 6),
	    MPI_INT, 0, w);
	MPI_Finalize();
	return 0;
}
