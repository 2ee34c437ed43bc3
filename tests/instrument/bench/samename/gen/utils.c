/*
 * samename/gen/utils.c: one of bench-overhead's two files named utils.c
 * (issue 34: outside a checkout the runtime once said so on every run;
 * the build now says it once). A dot product over a window.
 */
double utils_gen(const double *v, int n, int w);
double utils_gen(const double *v, int n, int w)
{
	double s = 0;
	for (int i = 0; i + w <= n; i += w)
		for (int j = 0; j < w; j++)
			s += v[i + j] * v[i + w - 1 - j];
	return s;
}
