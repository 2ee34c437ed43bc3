/* include.c: `#include "local.h"` points at the header's rewritten copy
 * (the line keeps its number); the header's loop is counted there, in a
 * table of the header's own. */
#include <stdio.h>
#include "local.h"

int main(void)
{
	int i, s = 0;
	for (i = 0; i < LOCAL_N; i++)
		s += local_sum(i);
	printf("%d\n", s);
	return 0;
}
