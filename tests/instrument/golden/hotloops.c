/* hotloops.c: loops whose counters count into locals flushed once per
 * loop exit, and loops that must keep plain counters. Every count is
 * worked out in hotloops.counts. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

#define UNROLL _Pragma("GCC unroll 2")
#define GIVE_UP(v) return v

static jmp_buf env;
static void stop(const char *why) __attribute__((__noreturn__));

static _Noreturn void die(int code)
{
	printf("die %d\n", code);
	exit(code);
}

static int shapes(int n)
{
	int i, j, s = 0;
	for (i = 0; i < n; i++) {
		if (i == 7)
			break;
		if (i % 3 == 0)
			continue;
		s += i;
	}
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (j & 1)
				s += j;
			else if (j % 3 == 0)
				s -= 1;
			else
				s ^= j;
outer:
	for (i = 0; i < 4; i++)
		s++;
	if (s > 1000)
		goto outer;
	if (n > 0)
		for (i = 0; i < n; i++)
			s += 2;
	i = 0;
	do
		s += i++;
	while (i < 5);
	if (n < 0)
		for(;;);
	return s;
}

/* A return inside: flushed before it. */
static int find(const int *v, int n, int x)
{
	for (int i = 0; i < n; i++)
		if (v[i] == x)
			return i;
	return -1;
}

/* Plain counters: a label inside, a return from a macro, setjmp, a case
 * of a switch outside the loop, a pragma before the loop or inside it. */
static int plain(int n)
{
	int i, s = 0;
	for (i = 0; i < n; i++) {
		if (i == 2)
			goto inside;
		s++;
	inside:
		s++;
	}
	for (i = 0; i < n; i++) {
		if (i == 30) {
			GIVE_UP(s);
		}
		s++;
	}
	for (i = 0; i < 2; i++)
		if (setjmp(env) == 0)
			s += 5;
	switch (n % 2) {
	case 0:
		do {
			s++;
			/* fall through */
		case 1:
			s += 2;
		} while (--n > 0);
	}
	UNROLL for (i = 0; i < 3; i++) s += i;
	_Pragma("GCC unroll 2") for (i = 0; i < 3; i++) s += i;
	for (int r = 0; r < 2; r++) {
#pragma omp parallel for reduction(+ : s)
		for (i = 0; i < 4; i++)
			s += i;
	}
	return s;
}

/* Leaving through exit() and a _Noreturn function: flushed first. */
static void finish(int n)
{
	for (int i = 0;; i++) {
		if (i == n)
			die(0);
		if (i > 100)
			exit(1);
		if (i < 0)
			stop("negative");
		switch (i % 3) {
		case 0:
			printf("tick %d\n", i);
			break;
		default:
			break;
		}
	}
}

static void stop(const char *why)
{
	printf("stop: %s\n", why);
	exit(2);
}

/* More counters than fit in registers beside inner loops: the outer loop
 * keeps plain counters, each inner loop hosts its own. */
static int crowded(int n)
{
	int s = 0;
	for (int it = 0; it < n; it++) {
		for (int a = 0; a < 3; a++)
			if (a & 1)
				s += a;
			else
				s -= 1;
		for (int b = 0; b < 4; b++)
			if (b == 2)
				s *= 2;
			else
				s++;
		if (s > 40)
			s -= 40;
		else
			s += 3;
	}
	return s;
}

int main(void)
{
	int v[6] = {4, 8, 15, 16, 23, 42};
	printf("%d\n", shapes(10));
	printf("%d %d\n", find(v, 6, 16), find(v, 6, 5));
	printf("%d\n", plain(5));
	printf("%d\n", crowded(4));
	finish(4);
}
