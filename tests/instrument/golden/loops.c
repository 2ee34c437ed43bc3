/* loops.c: loop shapes the rewriter must brace without changing meaning. */
#include <stdio.h>

static int f(int n)
{
	int i, j, s = 0;
	for (i = 0; i < n; i++)
		s += i
		;
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			s++;
	i = 0;
	do i++; while (i < 7);
	j = 0;
	for (;;)
		if (++j >= 4) break;
	for (i = 0; i < 3; i++);
	while (i < 100) {
		i++;
		if (i % 2)
			continue;
		if (i > 20)
			goto out;
		s += i; /* } { */
	}
out:
	for (i = 0; i < 5; i++) { const char *p = "for (;;) {"; s += p[0] == 'f'; }
	while (j-- > 0) /* { */ s += 2;
	return s;
}

int main(void)
{
	printf("%d\n", f(10));
	return 0;
}
