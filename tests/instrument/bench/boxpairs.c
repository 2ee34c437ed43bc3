/*
 * boxpairs.c: a molecular-dynamics force loop over link cells as CoMD's ljForce
 * writes it: for each box, its 27 neighbour boxes, a pair loop over their
 * atoms with `continue` past the cutoff, and an if/else on whether the
 * neighbour box is local, for `make bench-overhead` (issue 34), in a file of
 * its own so that its counters change no other kernel's inlining: `boxpairs N
 * REPS`.
 */
#include <stdio.h>
#include <stdlib.h>

/* Link cells: NB^3 unit boxes of ATOMS atoms each, numbered with the
 * local (inner) boxes first, as CoMD's link cells are; the outer layer
 * stands for the halo's remote boxes. */
#define NB    6
#define ATOMS 16
static int inner_box(int b)
{
	int x = b % NB, y = b / NB % NB, z = b / (NB * NB);
	return x && y && z && x < NB - 1 && y < NB - 1 && z < NB - 1;
}

/* The 27 neighbour boxes (itself included) of the box at position b. */
static int neighbours(const int *id, int b, int *nbrs)
{
	int x = b % NB, y = b / NB % NB, z = b / (NB * NB), k = 0;
	for (int dz = -1; dz <= 1; dz++)
		for (int dy = -1; dy <= 1; dy++)
			for (int dx = -1; dx <= 1; dx++)
				nbrs[k++] = id[(x + dx) +
					       NB * ((y + dy) + NB * (z + dz))];
	return k;
}

static double boxpairs(int n, int reps)
{
	int nBoxes = NB * NB * NB, nLocalBoxes = 0, nbrBoxes[27];
	double(*r)[ATOMS][3] = malloc((size_t)nBoxes * sizeof(*r));
	double(*f)[ATOMS][3] = calloc((size_t)nBoxes, sizeof(*f));
	int *id = malloc((size_t)nBoxes * sizeof(*id));
	int *at = malloc((size_t)nBoxes * sizeof(*at));
	const double rCut2 = 0.49 * n / 10.0;
	double ePot = 0;
	unsigned s = 777;
	for (int b = 0; b < nBoxes; b++)
		if (inner_box(b))
			at[id[b] = nLocalBoxes++] = b;
	for (int b = 0, k = nLocalBoxes; b < nBoxes; b++)
		if (!inner_box(b))
			at[id[b] = k++] = b;
	for (int i = 0; i < nBoxes; i++)
		for (int a = 0; a < ATOMS; a++)
			for (int d = 0; d < 3; d++) {
				s = s * 1103515245u + 12345u;
				r[i][a][d] = (double)(s >> 8) / 16777216.0 +
					     (at[i] / (d == 0   ? 1
						       : d == 1 ? NB
								: NB * NB)) %
						 NB;
			}
	for (int it = 0; it < reps; it++) {
		for (int iBox = 0; iBox < nLocalBoxes; iBox++) {
			int nNbrBoxes = neighbours(id, at[iBox], nbrBoxes);
			for (int jTmp = 0; jTmp < nNbrBoxes; jTmp++) {
				int jBox = nbrBoxes[jTmp];
				for (int iOff = 0; iOff < ATOMS; iOff++) {
					for (int jOff = 0; jOff < ATOMS;
					     jOff++) {
						double dr[3], r2 = 0;
						for (int m = 0; m < 3; m++) {
							dr[m] =
							    r[iBox][iOff][m] -
							    r[jBox][jOff][m];
							r2 += dr[m] * dr[m];
						}
						if (r2 > rCut2 || r2 == 0)
							continue;
						double ir2 = 1.0 / r2;
						double ir6 = ir2 * ir2 * ir2;
						double fr =
						    ir6 * (ir6 - 0.5) * ir2;
						if (jBox < nLocalBoxes)
							ePot += 0.5 * ir6 *
								(ir6 - 1.0);
						else
							ePot +=
							    ir6 * (ir6 - 1.0);
						for (int m = 0; m < 3; m++)
							f[iBox][iOff][m] +=
							    fr * dr[m];
					}
				}
			}
		}
	}
	ePot += f[0][0][0];
	free(r);
	free(f);
	free(id);
	free(at);
	return ePot;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: boxpairs N REPS\n");
		return 1;
	}
	printf("boxpairs %.6g\n", boxpairs(atoi(argv[1]), atoi(argv[2])));
	return 0;
}
