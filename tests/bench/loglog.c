/*
 * loglog.c: the parameters-only baseline of `make bench-accuracy`: a
 * log-log (power-law) least-squares fit of run time on the raw job
 * parameters, with no counters,
 *     log runtime = c + sum_j b_j log param_j,
 * as a scheduler could fit from its job history. It is a yardstick for
 * mpipredict, not part of it (nothing here is installed).
 *
 * Usage: loglog TRAIN TEST
 * Both files are whitespace-separated tables with a header line naming the
 * columns: the first is the run time, the others positive parameters (the
 * same names in the same order in both files; TEST's run time column is
 * ignored, but must be a positive number too). Prints one line per TEST row:
 * "predicted lower upper", the interval from the 5th and 95th percentiles of
 * the training residuals in log space. The fit is a truncated SVD (GSL), so a
 * parameter that is constant over the training rows does not make it fail.
 *
 * Exit status: 0, 1 usage error, 2 bad input (message names file and line).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* A table: nrows x ncols values, row-major; ncols includes the run time. */
struct table {
	size_t nrows, ncols;
	double *v;
};

/* Reads path into t. Returns 0, or 2 with a message in err. */
static int read_table(const char *path, struct table *t, char *err,
		      size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return 2;
	}
	char *line = NULL;
	size_t cap = 0, lineno = 0, alloc = 0;
	int rc = 0;
	t->nrows = t->ncols = 0;
	t->v = NULL;
	while (rc == 0 && getline(&line, &cap, f) != -1) {
		lineno++;
		char *save = NULL, *tok;
		size_t n = 0;
		for (tok = strtok_r(line, " \t\n", &save); tok != NULL;
		     tok = strtok_r(NULL, " \t\n", &save)) {
			n++;
			if (lineno == 1)
				continue;
			char *end;
			double x = strtod(tok, &end);
			if (*end != '\0' || !(x > 0) || !isfinite(x)) {
				snprintf(err, errlen,
					 "%s:%zu: field %zu: expected a "
					 "positive number, got '%s'",
					 path, lineno, n, tok);
				rc = 2;
				break;
			}
			if (t->nrows * t->ncols + n > alloc) {
				alloc = alloc ? 2 * alloc : 1024;
				double *nv = realloc(t->v, alloc * sizeof *nv);
				if (nv == NULL) {
					snprintf(err, errlen, "out of memory");
					rc = 2;
					break;
				}
				t->v = nv;
			}
			t->v[t->nrows * t->ncols + n - 1] = x;
		}
		if (rc)
			break;
		if (lineno == 1) {
			t->ncols = n;
		} else if (n != t->ncols) {
			snprintf(err, errlen,
				 "%s:%zu: expected %zu fields, got %zu", path,
				 lineno, t->ncols, n);
			rc = 2;
		} else {
			t->nrows++;
		}
	}
	free(line);
	fclose(f);
	if (rc == 0 && (t->ncols < 2 || t->nrows == 0)) {
		snprintf(err, errlen,
			 "%s: expected a header and rows of "
			 "a run time and parameters",
			 path);
		rc = 2;
	}
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "--help") == 0) {
		printf("Usage: loglog TRAIN TEST\n");
		return 0;
	}
	if (argc != 3) {
		fprintf(stderr, "Usage: loglog TRAIN TEST\n");
		return 1;
	}
	char err[512];
	struct table tr, te;
	if (read_table(argv[1], &tr, err, sizeof err) ||
	    read_table(argv[2], &te, err, sizeof err)) {
		fprintf(stderr, "loglog: %s\n", err);
		return 2;
	}
	if (te.ncols != tr.ncols) {
		fprintf(stderr, "loglog: %s: expected %zu columns as in %s\n",
			argv[2], tr.ncols, argv[1]);
		return 2;
	}
	gsl_set_error_handler_off();

	size_t n = tr.nrows, p = tr.ncols; /* intercept + ncols-1 params */
	gsl_matrix *X = gsl_matrix_alloc(n, p);
	gsl_vector *y = gsl_vector_alloc(n), *c = gsl_vector_alloc(p);
	gsl_matrix *cov = gsl_matrix_alloc(p, p);
	gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(n, p);
	double *res = malloc(n * sizeof *res);
	if (!X || !y || !c || !cov || !w || !res) {
		fprintf(stderr, "loglog: out of memory\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		gsl_vector_set(y, i, log(tr.v[i * p]));
		gsl_matrix_set(X, i, 0, 1.0);
		for (size_t j = 1; j < p; j++)
			gsl_matrix_set(X, i, j, log(tr.v[i * p + j]));
	}
	double chisq;
	size_t rank;
	if (gsl_multifit_linear_tsvd(X, y, 1e-9, c, cov, &chisq, &rank, w)) {
		fprintf(stderr, "loglog: %s: the fit failed\n", argv[1]);
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		gsl_vector_const_view row = gsl_matrix_const_row(X, i);
		double f;
		gsl_blas_ddot(&row.vector, c, &f);
		res[i] = gsl_vector_get(y, i) - f;
	}
	gsl_sort(res, 1, n);
	double qlo = gsl_stats_quantile_from_sorted_data(res, 1, n, 0.05);
	double qhi = gsl_stats_quantile_from_sorted_data(res, 1, n, 0.95);
	for (size_t i = 0; i < te.nrows; i++) {
		double f = gsl_vector_get(c, 0);
		for (size_t j = 1; j < p; j++)
			f += gsl_vector_get(c, j) * log(te.v[i * p + j]);
		printf("%.6g %.6g %.6g\n", exp(f), exp(f + qlo), exp(f + qhi));
	}
	gsl_matrix_free(X);
	gsl_matrix_free(cov);
	gsl_vector_free(y);
	gsl_vector_free(c);
	gsl_multifit_linear_free(w);
	free(res);
	free(tr.v);
	free(te.v);
	return 0;
}
