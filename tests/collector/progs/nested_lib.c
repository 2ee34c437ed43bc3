/*
 * nested_lib.c: the uninstrumented library half of nested.c: each function
 * makes one untagged MPI call of n ints and returns n.
 */
#include <mpi.h>

int lib_allreduce(int n, MPI_Comm c);
int lib_bcast(int n, MPI_Comm c);

int lib_allreduce(int n, MPI_Comm c)
{
	int in[8] = {0}, out[8];

	MPI_Allreduce(in, out, n, MPI_INT, MPI_SUM, c);
	return n;
}

int lib_bcast(int n, MPI_Comm c)
{
	int buf[8] = {0};

	MPI_Bcast(buf, n, MPI_INT, 0, c);
	return n;
}
