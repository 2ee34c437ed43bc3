/* local.h: a header next to include.c, found only through "" includes. */
#define LOCAL_N 6
static int local_sum(int n)
{
	int s = 0, i;
	for (i = 0; i < n; i++)
		s += i;
	return s;
}
