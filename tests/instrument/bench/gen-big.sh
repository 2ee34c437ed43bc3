#!/usr/bin/env bash
# gen-big.sh LINES: writes a C file of about LINES lines to stdout for the
# rewrite-speed benchmark: many small functions full of loops, if/else
# chains and MPI calls, including <mpi.h> as real code does.
lines=${1:-20000}
echo '#include <mpi.h>'
echo '#include <stdio.h>'
n=$((lines / 24))
for f in $(seq 1 "$n"); do
	cat <<C
static int f$f(double *a, int n, MPI_Comm c)
{
	int i, j, s = 0;
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			s += (int)a[j];
	if (s > $f)
		s -= $f;
	else if (s < 0)
		s = 0;
	else
		s++;
	while (s > 100) {
		s /= 2;
		if (s & 1)
			continue;
	}
	do s++; while (s < 3);
	MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_INT, MPI_SUM, c);
	if (MPI_Barrier(c) != MPI_SUCCESS)
		return -1;
	return s;
}

C
done
echo 'int main(int argc, char **argv)'
echo '{'
echo '	double a[4] = {1, 2, 3, 4};'
echo '	MPI_Init(&argc, &argv);'
echo "	printf(\"%d\\n\", f1(a, 4, MPI_COMM_WORLD) + f$n(a, 4, MPI_COMM_WORLD));"
echo '	return MPI_Finalize();'
echo '}'
