/* mpi_calls.c: MPI calls in every position. The "MPI" functions are fakes
 * defined here (no mpi.h): each reports to the test runtime, which takes
 * and clears the site pointer as the real PMPI layer does. The program
 * prints what its arguments were, so evaluating one twice shows. */
#include <stdio.h>

int mpp_testrt_hit(void);
static int last_count, ncalls;

int MPI_Send(const void *buf, int count, int type, int dest, int tag, int comm)
{
	(void)buf; (void)type; (void)dest; (void)tag; (void)comm;
	last_count = count;
	ncalls++;
	return mpp_testrt_hit();
}
int MPI_Barrier(int comm)
{
	ncalls++;
	return mpp_testrt_hit() + comm;
}
int MPI_Allreduce(const void *s, void *r, int n, int t, int op, int comm)
{
	(void)s; (void)r; (void)t; (void)op; (void)comm;
	ncalls++;
	last_count = n;
	return mpp_testrt_hit();
}
/* Not in the table: never tagged, and it must not see a stale tag. */
int MPI_Comm_rank(int comm, int *rank)
{
	*rank = comm;
	return mpp_testrt_hit();
}

#define CHECK(call) do { if ((call) != 0) return 1; } while (0)
#define TWICE(e) ((e) + (e))
#define BARRIER() MPI_Barrier(0)
#define MPI_SUCCESS 0
#define REPORT(call) if ((call) != MPI_SUCCESS) printf("%s failed\n", #call)

static int finish(void)
{
	return MPI_Barrier(0);
}

int main(void)
{
	int n = 0, i, rank, buf[4] = {0};
	if (MPI_Send(buf, n++, 0, 1, 0, 0) == 0)
		printf("cond n=%d count=%d\n", n, last_count);
	n = MPI_Barrier(0) == 0 ? MPI_Send(buf, n++, 0, 1, 0, 0) : -1;
	printf("ternary n=%d count=%d\n", n, last_count);
	n = 5;
	if (n > 0 && MPI_Allreduce(buf, buf, n++, 0, 0, 0) == 0)
		printf("and n=%d count=%d\n", n, last_count);
	for (i = 0; i < 3; i++)
		CHECK(MPI_Send(buf, i * 2, 0, 1, 0, 0));
	printf("twice %d\n", TWICE(MPI_Barrier(0)));
	BARRIER();
	REPORT(MPI_Barrier(1));
	MPI_Comm_rank(7, &rank);
	while (MPI_Barrier(0) != 0)
		;
	printf("rank=%d calls=%d\n", rank, ncalls);
	return finish();
}
