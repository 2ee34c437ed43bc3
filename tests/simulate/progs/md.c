/*
 * md.c: a molecular-dynamics-like step loop in the shape of issue 38's
 * third-party code: a box of -x by -y by -z cells, decomposed over a
 * rank grid -i by -j by -k given on the command line (its product must
 * be the rank count), each step a face exchange with the six neighbours
 * of a periodic Cartesian communicator, a pair-force loop over the
 * rank's cells and an MPI_Allreduce of the energy. The sizes are often
 * given equal (-x = -y = -z) and the rank grid follows the rank count:
 * parameters that are one variable for a law, not four.
 *
 * Usage: md -x X -y Y -z Z -i I -j J -k K [-s STEPS].
 */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	int box[3] = {16, 16, 16}, dims[3] = {1, 1, 1}, per[3] = {1, 1, 1};
	int steps = 10, me, np, a;
	MPI_Comm cart;

	for (a = 1; a + 1 < argc; a += 2) {
		const char *o = argv[a];
		int v = atoi(argv[a + 1]);
		if (o[0] == '-' && o[1] >= 'x' && o[1] <= 'z' && !o[2])
			box[o[1] - 'x'] = v;
		else if (o[0] == '-' && o[1] >= 'i' && o[1] <= 'k' && !o[2])
			dims[o[1] - 'i'] = v;
		else if (!strcmp(o, "-s"))
			steps = v;
	}
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &me);
	MPI_Comm_size(MPI_COMM_WORLD, &np);
	if (dims[0] * dims[1] * dims[2] != np) {
		if (me == 0)
			fprintf(stderr,
				"md: -i %d -j %d -k %d is not a grid of %d "
				"ranks\n",
				dims[0], dims[1], dims[2], np);
		MPI_Finalize();
		return 1;
	}
	MPI_Cart_create(MPI_COMM_WORLD, 3, dims, per, 0, &cart);
	int n[3], cells = 1;
	for (a = 0; a < 3; a++) {
		n[a] = box[a] / dims[a] > 0 ? box[a] / dims[a] : 1;
		cells *= n[a];
	}
	/* four atoms per cell, positions only */
	double *x = malloc((size_t)cells * 4 * 3 * sizeof *x);
	for (int c = 0; c < cells * 12; c++)
		x[c] = sin(0.37 * c + me);
	int face = 4 * 3 * (cells / (n[0] < n[1] ? n[0] : n[1]));
	double *out = calloc((size_t)face, sizeof *out);
	double *in = calloc((size_t)face, sizeof *in);
	double energy = 0, total = 0;
	for (int s = 0; s < steps; s++) {
		for (a = 0; a < 3; a++) {
			int lo, hi;
			MPI_Cart_shift(cart, a, 1, &lo, &hi);
			MPI_Sendrecv(out, face, MPI_DOUBLE, hi, a, in, face,
				     MPI_DOUBLE, lo, a, cart,
				     MPI_STATUS_IGNORE);
			MPI_Sendrecv(out, face, MPI_DOUBLE, lo, a + 3, in, face,
				     MPI_DOUBLE, hi, a + 3, cart,
				     MPI_STATUS_IGNORE);
		}
		energy = 0;
		for (int c = 0; c < cells; c++)
			for (int p = 0; p < 4; p++)
				for (int q = 0; q < 27 * 4; q++) {
					int o = (c * 4 + q) % (cells * 4);
					double d = x[(c * 4 + p) * 3] -
						   x[o * 3 + 1] + 1.5;
					energy += 1 / (d * d * d * d * d * d);
				}
		MPI_Allreduce(&energy, &total, 1, MPI_DOUBLE, MPI_SUM, cart);
	}
	if (me == 0)
		printf("energy %.6e\n", total);
	free(x);
	free(out);
	free(in);
	MPI_Comm_free(&cart);
	MPI_Finalize();
	return 0;
}
