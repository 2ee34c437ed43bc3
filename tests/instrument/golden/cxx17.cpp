// C++17 statements: if with an init-statement, a condition variable (also
// in while), if constexpr (in an else-if chain too), range-for over a
// vector, an array and an initializer list, do/while, a switch inside a
// loop, a member function defined in a class body, and a local class.
#include <cstdio>
#include <map>
#include <string>
#include <vector>

struct Counter {
	std::map<std::string, int> seen;
	int add(const std::string &k)
	{
		if (auto it = seen.find(k); it != seen.end())
			return ++it->second;
		seen[k] = 1;
		return 1;
	}
};

static int next(int *p)
{
	return (*p)-- > 0 ? *p + 1 : 0;
}

template <class T> const char *kind()
{
	if constexpr (sizeof(T) == 1)
		return "byte";
	else if constexpr (sizeof(T) == 4)
		return "word";
	else
		return "other";
}

int main()
{
	Counter c;
	const char *words[] = {"a", "b", "a", "c", "a"};
	int last = 0;
	for (const char *w : words)
		last = c.add(w);
	int n = 4, total = 0;
	while (int k = next(&n))
		total += k;
	if (int t = total; t > 5)
		std::printf("big %d\n", t);
	else if (t > 2)
		std::printf("mid\n");
	int odd = 0;
	for (int x : {1, 2, 3, 4, 5})
		switch (x % 3) {
		case 0:
			break;
		case 1:
			odd++;
			break;
		default:
			odd += 2;
		}
	std::vector<std::vector<int>> m{{1, 2}, {3}, {}};
	int cells = 0;
	for (auto &row : m)
		for (int v : row)
			cells += v;
	int d = 0;
	do
		d += 3;
	while (d < 10);
	struct Local {
		static int sum(int k)
		{
			int s = 0;
			for (int i = 0; i < k; i++)
				s += i;
			return s;
		}
	};
	std::printf("%d %d %d %d %d %s %s %s %d\n", last, total, odd, cells,
		    d, kind<char>(), kind<int>(), kind<double>(),
		    Local::sum(4));
	return 0;
}
