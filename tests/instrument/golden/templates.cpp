// Templates in the shapes C++ codes have: a stencil templated on the value
// type and instantiated for three types (one counter per source location,
// shared by the instantiations), a class template with member functions
// defined in the class body, an out-of-class member, a constexpr function
// (left alone), and a loop helper taking a lambda.
#include <array>
#include <cstdio>
#include <vector>

constexpr int cube(int a)
{
	int r = 1;
	for (int i = 0; i < 3; i++)
		r *= a;
	return r;
}

template <class T> void stencil(std::vector<T> &out, const std::vector<T> &in)
{
	for (std::size_t i = 1; i + 1 < in.size(); i++)
		out[i] = (in[i - 1] + in[i] + in[i + 1]) / T(3);
}

template <class T, int N> struct Field {
	std::array<T, N> v{};
	T total() const
	{
		T s = 0;
		for (const T &x : v)
			s += x;
		return s;
	}
	void fill(T x)
	{
		int i = 0;
		while (i < N)
			v[i++] = x;
	}
	int positives() const;
};

template <class T, int N> int Field<T, N>::positives() const
{
	int n = 0;
	for (auto x : v)
		if (x > 0)
			n++;
		else
			n += 0;
	return n;
}

template <class F> void each(int n, F f)
{
	for (int i = 0; i < n; i++)
		f(i);
}

int main()
{
	static_assert(cube(2) == 8, "constexpr stays constexpr");
	std::vector<double> a(6, 1.0), b(6, 0.0);
	std::vector<float> c(4, 2.0f), d(4, 0.0f);
	std::vector<int> e(3, 3), f(3, 0);
	stencil(b, a);
	stencil(d, c);
	stencil(f, e);
	Field<int, 4> fi;
	fi.fill(2);
	Field<double, 2> fd;
	fd.fill(-1.5);
	long sum = 0;
	each(5, [&](int i) { sum += i; });
	each(3, [&](int i) {
		for (int j = 0; j < i; j++)
			sum += j;
	});
	std::printf("%g %g %d %d %g %d %d %ld\n", b[1], d[1], f[1],
		    fi.total(), fd.total(), fi.positives(), fd.positives(),
		    sum);
	return 0;
}
