// Exceptions thrown out of counted loops: the counts stay exact. A loop
// counting into locals adds them to the counters in a catch (...) that
// rethrows, so loops whose calls may throw count into locals as those whose
// calls are all noexcept. Also try/catch inside a loop, rethrow, a throw
// from a lambda, and a return whose value throws after the flush before it
// (its locals were zeroed there: not added twice). An else count is derived
// (passes less thens) only where nothing before the decision can throw:
// not where the condition calls a function that may.
#include <cstdio>
#include <stdexcept>
#include <vector>

static int check(int i)
{
	if (i == 5)
		throw std::runtime_error("five");
	return i;
}

static int twice(int i) noexcept
{
	return 2 * i;
}

static long hot(const std::vector<int> &v) noexcept
{
	long s = 0;
	for (std::size_t i = 0; i < v.size(); i++)
		for (int k = 0; k < 3; k++)
			s += twice(v[i]) + k;
	return s;
}

static long thrower(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++) {
		for (int j = 0; j < 2; j++)
			s += check(i);
	}
	return s;
}

static int first_over(const std::vector<int> &v, int lim)
{
	for (std::size_t i = 0; i < v.size(); i++)
		if (v[i] > lim)
			return check(v[i]);
	return -1;
}

static long derived(const std::vector<int> &v)
{
	const int *p = v.data();
	long s = 0;
	for (std::size_t i = 0; i < v.size(); i++)
		if (p[i] > 2)
			s += p[i];
		else
			s--;
	return s;
}

static long not_derived(int n)
{
	long s = 0;
	for (int i = 0; i < n; i++)
		if (check(i) > 2)
			s += i;
		else
			s--;
	return s;
}

int main()
{
	std::vector<int> v{1, 2, 3, 4};
	long s = hot(v);
	try {
		s += thrower(10);
	} catch (const std::exception &e) {
		std::printf("caught %s\n", e.what());
	}
	int caught = 0;
	for (int i = 0; i < 8; i++) {
		try {
			s += check(i);
		} catch (...) {
			caught++;
			continue;
		}
		if (i % 2)
			s++;
	}
	auto f = [](int n) {
		for (int i = 0;; i++)
			if (i == n)
				throw i;
	};
	try {
		f(3);
	} catch (int i) {
		std::printf("lambda threw %d\n", i);
	}
	try {
		s += first_over({1, 5, 2}, 4);
	} catch (const std::exception &e) {
		std::printf("first_over threw %s\n", e.what());
	}
	s += derived({1, 5, 2, 7});
	try {
		s += not_derived(10);
	} catch (const std::exception &e) {
		std::printf("not_derived threw %s\n", e.what());
	}
	std::printf("%ld %d\n", s, caught);
	return 0;
}
