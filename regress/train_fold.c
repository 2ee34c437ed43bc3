/*
 * train_fold.c: folding of constant and (near-)duplicate columns on one
 * fold's training runs (the default method's first step). Not for ranking.
 */
#include "regress/train_data.h"

#include <math.h>
#include <stdlib.h>

/* Near-duplicate columns: |correlation| at least this. */
#define DUP_CORR (1 - 1e-8)

static int cmp_keyed(const void *a, const void *b)
{
	double x = ((const struct keyed *)a)->key,
	       y = ((const struct keyed *)b)->key;
	return (x > y) - (x < y);
}

/*
 * On the training runs of fold f: rep[j] = j for a column kept, the kept
 * column it duplicates (|correlation| >= DUP_CORR), or (size_t)-1 when it is
 * constant. Near-duplicates have nearly equal projections on a random sign
 * vector, so only columns close in that projection are compared.
 */
int mpp_tr_fold_columns(const struct data *d, size_t f, size_t *rep)
{
	size_t k = d->k, m = d->m;
	double nt = (double)ntrain(d, f);
	double *mu = malloc(k * sizeof(*mu)), *nrm = malloc(k * sizeof(*nrm));
	double *sign = malloc(m * sizeof(*sign));
	struct keyed *key = malloc(k * sizeof(*key));
	size_t nkey = 0;
	uint64_t state = 12345;

	if (!mu || !nrm || !sign || !key) {
		free(mu);
		free(nrm);
		free(sign);
		free(key);
		return MPP_ENOMEM;
	}
	for (size_t r = 0; r < m; r++)
		sign[r] = (mix(&state) & 1) ? 1 : -1;
	for (size_t j = 0; j < k; j++) {
		const double *z = gsl_matrix_const_ptr(d->Zt, j, 0);
		double s = 0, ss = 0, p = 0;
		for (size_t r = 0; r < m; r++)
			if (in_train(d, f, r))
				s += z[r];
		mu[j] = s / nt;
		for (size_t r = 0; r < m; r++) {
			if (!in_train(d, f, r))
				continue;
			double c = z[r] - mu[j];
			ss += c * c;
			p += sign[r] * c;
		}
		nrm[j] = sqrt(ss);
		if (!(nrm[j] > 1e-9 * sqrt(nt))) {
			rep[j] = (size_t)-1;
			continue;
		}
		rep[j] = j;
		key[nkey].key = fabs(p / nrm[j]);
		key[nkey++].j = j;
	}
	qsort(key, nkey, sizeof(*key), cmp_keyed);
	double window = 10 * sqrt(2 * (1 - DUP_CORR));
	for (size_t a = 0; a < nkey; a++) {
		size_t i = key[a].j;
		if (rep[i] != i)
			continue;
		const double *zi = gsl_matrix_const_ptr(d->Zt, i, 0);
		for (size_t b = a + 1;
		     b < nkey && key[b].key - key[a].key <= window; b++) {
			size_t l = key[b].j;
			if (rep[l] != l)
				continue;
			const double *zl = gsl_matrix_const_ptr(d->Zt, l, 0);
			double dot = 0;
			for (size_t r = 0; r < m; r++)
				if (in_train(d, f, r))
					dot +=
					    (zi[r] - mu[i]) * (zl[r] - mu[l]);
			if (fabs(dot) >= DUP_CORR * nrm[i] * nrm[l])
				rep[l] = i;
		}
	}
	/* The representative of a group is its first column. */
	for (size_t j = 0; j < k; j++) {
		if (rep[j] == (size_t)-1 || rep[j] == j)
			continue;
		size_t r0 = rep[j];
		if (j < r0) {
			for (size_t l = 0; l < k; l++)
				if (rep[l] == r0)
					rep[l] = j;
		}
	}
	free(mu);
	free(nrm);
	free(sign);
	free(key);
	return MPP_OK;
}
