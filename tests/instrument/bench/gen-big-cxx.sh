#!/usr/bin/env bash
# gen-big-cxx.sh N: prints a C++ MPI source of about N lines in the shapes
# C++ codes have (class templates with member functions in the class body,
# function templates, range-for, lambdas passed to a loop helper, if with
# an init-statement, MPI calls in templates), for the rewrite-speed figure
# of tests/instrument/bench-cxx.sh. Every block is 40 lines.
n=${1:-20000}
cat <<'H'
#include <mpi.h>
#include <vector>
template <class F> void each(int n, F f) { for (int i = 0; i < n; i++) f(i); }
H
for ((b = 0; b < n / 40; b++)); do
	cat <<B
template <class T> struct K$b {
	std::vector<T> u, v;
	explicit K$b(int n) : u(n), v(n) {}
	T run(int it, MPI_Datatype t)
	{
		T s = 0;
		for (int k = 0; k < it; k++) {
			for (std::size_t i = 1; i + 1 < u.size(); i++)
				v[i] = (u[i - 1] + u[i + 1]) / T(2);
			u.swap(v);
			if (k % 3 == 0)
				s += u[0];
			else if (k % 3 == 1)
				s -= u[1];
			else
				s += 1;
		}
		MPI_Allreduce(MPI_IN_PLACE, &s, 1, t, MPI_SUM, MPI_COMM_WORLD);
		return s;
	}
};
static double f$b(std::vector<double> &x, int n)
{
	double acc = 0;
	for (double &e : x)
		e *= 0.5;
	each(n, [&](int i) {
		if (i % 2)
			acc += x[i % x.size()];
	});
	int w = 0;
	while (w < n)
		w += 3;
	if (int r = w % 5; r > 2)
		acc += r;
	do
		acc *= 0.99;
	while (acc > 100);
	return acc + K$b<double>(8).run(2, MPI_DOUBLE);
}
B
done
