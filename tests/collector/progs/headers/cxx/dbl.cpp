// dbl.cpp: Field<double> and repeat() from field.hpp.
#include <field.hpp>

double run_doubles(int n)
{
	Field<double> c(n);
	repeat(3, [&](int) { c.allreduce(); });
	return c.total();
}
