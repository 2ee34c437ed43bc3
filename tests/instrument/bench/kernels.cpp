/*
 * kernels.cpp: C++ kernels in the shapes C++ HPC codes have, for
 * `make bench-instrument-cxx` (tests/instrument/bench-cxx.sh), which
 * builds it plain and through mpipredict-mpicxx and compares instructions
 * (callgrind) and wall time. Not a test: it prints a checksum only so that
 * the work is not optimised away.
 *
 * Usage: kernels-cxx SCALE KERNEL, KERNEL one of
 *   t  a 2-D 5-point stencil templated on the value type (double and
 *      float instantiations), on a grid class with member functions
 *      defined in the class body;
 *   v  range-for over std::vector: a dot product and a clamp;
 *   l  a lambda passed to a loop helper (a parallel_for in the style of
 *      Kokkos/RAJA), an axpy and a reduction.
 */
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

template <class T> class Grid
{
      public:
	Grid(int nx, int ny) : nx_(nx), ny_(ny), u_(nx * ny), v_(nx * ny)
	{
		for (int i = 0; i < nx * ny; i++)
			u_[i] = T(i % 7);
	}
	T &at(int i, int j) { return u_[j * nx_ + i]; }
	void sweep()
	{
		for (int j = 1; j < ny_ - 1; j++)
			for (int i = 1; i < nx_ - 1; i++)
				v_[j * nx_ + i] =
				    T(0.25) * (u_[j * nx_ + i - 1] +
					       u_[j * nx_ + i + 1] +
					       u_[(j - 1) * nx_ + i] +
					       u_[(j + 1) * nx_ + i]);
		u_.swap(v_);
	}
	T sum() const
	{
		T s = 0;
		for (const T &x : u_)
			s += x;
		return s;
	}

      private:
	int nx_, ny_;
	std::vector<T> u_, v_;
};

template <class T> T stencil(int n, int iters)
{
	Grid<T> g(n, n);
	for (int it = 0; it < iters; it++)
		g.sweep();
	return g.sum();
}

static double ranges(int n, int iters)
{
	std::vector<double> a(n), b(n);
	for (int i = 0; i < n; i++) {
		a[i] = i % 13;
		b[i] = (i % 5) - 2.0;
	}
	double dot = 0;
	for (int it = 0; it < iters; it++) {
		for (double &x : a)
			if (x > 10)
				x -= 10;
			else
				x += 0.5;
		for (std::size_t i = 0; i < a.size(); i++)
			dot += a[i] * b[i];
	}
	return dot;
}

template <class F> void parallel_for(int n, F f)
{
	for (int i = 0; i < n; i++)
		f(i);
}

template <class F> double parallel_reduce(int n, F f)
{
	double s = 0;
	for (int i = 0; i < n; i++)
		s += f(i);
	return s;
}

static double lambdas(int n, int iters)
{
	std::vector<double> x(n, 1.0), y(n, 2.0);
	double r = 0;
	for (int it = 0; it < iters; it++) {
		double a = 1e-3 * it;
		parallel_for(n, [&](int i) { y[i] += a * x[i]; });
		r += parallel_reduce(n, [&](int i) { return x[i] * y[i]; });
	}
	return r;
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int scale = argc > 1 ? std::atoi(argv[1]) : 1;
	char k = argc > 2 ? argv[2][0] : 't';
	double r = 0;
	if (k == 't')
		r = stencil<double>(200, 10 * scale) +
		    stencil<float>(200, 10 * scale);
	else if (k == 'v')
		r = ranges(100000, 10 * scale);
	else
		r = lambdas(100000, 10 * scale);
	std::printf("%c %g\n", k, r);
	MPI_Finalize();
	return 0;
}
