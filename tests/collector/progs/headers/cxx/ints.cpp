// ints.cpp: Field<int> from field.hpp.
#include "field.hpp"

double run_ints(int n)
{
	Field<int> b(n);
	b.allreduce();
	return b.total();
}
