/*
 * halo.cpp: a C++ MPI program in the shapes C++ codes have, for
 * t-cxx-through-mpicxx.sh: a class template owning persistent requests
 * (MPI_Send_init/MPI_Recv_init in its constructor, MPI_Startall in a
 * member function defined in the class body, instantiated for double and
 * float), a loop helper taking a lambda, a range-for over a std::vector,
 * a datatype traits template, and the number of steps from the command
 * line. The marks in comments name the lines the test looks up.
 */
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

template <class T> struct Mpi;
template <> struct Mpi<double> {
	static MPI_Datatype type() { return MPI_DOUBLE; }
};
template <> struct Mpi<float> {
	static MPI_Datatype type() { return MPI_FLOAT; }
};

template <class T> class Ring
{
      public:
	Ring(int n, int rank, int size) : n_(n), buf_(2 * n, T(rank + 1))
	{
		int right = (rank + 1) % size, left = (rank + size - 1) % size;
		MPI_Send_init(buf_.data(), n, Mpi<T>::type(), right, 0, /* SEND_INIT */
			      MPI_COMM_WORLD, &req_[0]);
		MPI_Recv_init(buf_.data() + n, n, Mpi<T>::type(), left, 0, /* RECV_INIT */
			      MPI_COMM_WORLD, &req_[1]);
	}
	~Ring()
	{
		for (auto &r : req_)
			MPI_Request_free(&r);
	}
	T exchange()
	{
		MPI_Startall(2, req_); /* STARTALL */
		MPI_Waitall(2, req_, MPI_STATUSES_IGNORE);
		T s = 0;
		for (int i = n_; i < 2 * n_; i++) /* SUM */
			s += buf_[i];
		return s;
	}

      private:
	int n_;
	std::vector<T> buf_;
	MPI_Request req_[2];
};

template <class F> void steps(int n, F f)
{
	for (int i = 0; i < n; i++) /* STEPS */
		f(i);
}

int main(int argc, char **argv)
{
	MPI_Init(&argc, &argv);
	int rank, size;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	int iters = argc > 1 ? std::atoi(argv[1]) : 3;
	double total = 0;
	{
		Ring<double> rd(4, rank, size);
		Ring<float> rf(2, rank, size);
		steps(iters, [&](int i) {
			total += rd.exchange();
			if (i % 2 == 0) /* EVEN */
				total += rf.exchange();
		});
	}
	std::vector<double> parts(size, 0.0);
	MPI_Allgather(&total, 1, MPI_DOUBLE, parts.data(), 1, MPI_DOUBLE, /* ALLGATHER */
		      MPI_COMM_WORLD);
	double all = 0;
	for (double p : parts) /* PARTS */
		all += p;
	std::printf("rank %d: %g %g\n", rank, total, all);
	MPI_Finalize();
	return 0;
}
