/* switch.c: case and default labels are counted each time control passes
 * them: a jump from the switch, a fall-through from the case above, labels
 * sharing a statement, a default, a case whose body is only a call (the
 * solver chosen from an input deck), a switch in a hot loop (counted into
 * the loop's locals) and a nested switch. */
#include <stdio.h>

enum solver { CG, GMRES, JACOBI };

static int cg(int n) { return n + 1; }
static int gmres(int n) { return 2 * n; }

static int solve(enum solver s, int n)
{
	switch (s) {
	case CG:
		return cg(n);
	case GMRES:
		return gmres(n);
	default:
		return n;
	}
}

int main(void)
{
	int i, a = 0, b = 0;
	for (i = 0; i < 10; i++) {
		switch (i % 4) {
		case 0:
			a++;
			/* fall through */
		case 1:
			b++;
			break;
		case 2:
		case 3:
			switch (i) {
			case 2:
				a += 10;
				break;
			default:
				b += 10;
			}
			break;
		}
	}
	printf("%d %d %d %d %d\n", a, b, solve(CG, 3), solve(GMRES, 3),
	       solve(JACOBI, 3));
	return 0;
}
