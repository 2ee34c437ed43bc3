// main.cpp: uses field.hpp, and the two other units.
#include <cstdio>
#include <field.hpp>

double run_ints(int n);
double run_doubles(int n);

int main(int argc, char **argv)
{
	int rank;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	Field<double> a(6 + rank);
	double t = a.total();
	t += run_ints(5) + run_doubles(4);
	repeat(2 + rank, [&](int k) { t += k; });
	double all = 0;
	MPI_Reduce(&t, &all, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
	if (rank == 0)
		std::printf("%.3f\n", all);
	MPI_Finalize();
	return 0;
}
