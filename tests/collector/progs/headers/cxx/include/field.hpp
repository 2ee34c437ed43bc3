// field.hpp: a class template and a loop helper of a C++ code, included by
// main.cpp, ints.cpp and dbl.cpp (t-header-counters.sh): one counter per
// source location, for every unit and every instantiation.
#pragma once
#include <mpi.h>
#include <vector>

template <typename T> class Field
{
      public:
	explicit Field(int n) : v_(n)
	{
		for (int i = 0; i < n; i++) /* FILL */
			v_[i] = T(i % 4);
	}
	T total() const
	{
		T s = 0;
		for (const T &x : v_) /* TOTAL */
			if (x > T(1)) /* BIG */
				s += x;
		return s;
	}
	void allreduce()
	{
		MPI_Allreduce(MPI_IN_PLACE, v_.data(), (int)v_.size(), type(), MPI_SUM, MPI_COMM_WORLD); /* REDUCE */
	}

      private:
	static MPI_Datatype type() { return sizeof(T) == 8 ? MPI_DOUBLE : MPI_INT; }
	std::vector<T> v_;
};

template <typename F> inline void repeat(int n, F f)
{
	int k = 0;
	while (k < n) { /* REPEAT */
		f(k);
		k++;
	}
}
