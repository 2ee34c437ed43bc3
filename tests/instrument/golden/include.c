/* include.c: `#include "local.h"` must still resolve after rewriting; the
 * header's own loops are not this file's to count. */
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
