/*
 * train_select.c: the selection path: the ranking fits (standardised
 * ridge for the default method, raw least squares for the seed), the rounds
 * of the top-p loop, and the swaps that refine its choice. Not for the
 * final fit (train_final.c).
 */
#include "regress/train_data.h"

#include <gsl/gsl_blas.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "regress/fit.h"

/* Weighted (w = 1/y^2) sums over the training runs of fold f: total
 * weight, weighted mean run time, weighted centred sum of squares. */
void mpp_tr_wstats(const struct data *d, size_t f, double *W, double *ybar,
		   double *yy)
{
	double wy = 0, n = 0;

	*W = 0;
	for (size_t r = 0; r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		*W += 1 / (d->y[r] * d->y[r]);
		wy += 1 / d->y[r];
		n++;
	}
	*ybar = wy / *W;
	*yy = n - wy * wy / *W;
	if (*yy < 0)
		*yy = 0;
}

/*
 * Rows (one per column of S) of the weighted, centred training values:
 * (z - weighted mean) / y, and yc = (y - weighted mean) / y. With unit
 * set, each row is scaled to unit norm.
 */
static void weighted_rows(const struct data *d, size_t f, const size_t *S,
			  size_t s, gsl_matrix *Z, gsl_vector *yc, int unit)
{
	double W, ybar, yy;

	mpp_tr_wstats(d, f, &W, &ybar, &yy);
	for (size_t r = 0, c = 0; r < d->m; r++)
		if (in_train(d, f, r))
			gsl_vector_set(yc, c++, (d->y[r] - ybar) / d->y[r]);
	for (size_t i = 0; i < s; i++) {
		const double *z = gsl_matrix_const_ptr(d->Zt, S[i], 0);
		double *o = gsl_matrix_ptr(Z, i, 0), mu = 0, ss = 0;
		size_t c = 0;
		for (size_t r = 0; r < d->m; r++)
			if (in_train(d, f, r))
				mu += z[r] / (d->y[r] * d->y[r]);
		mu /= W;
		for (size_t r = 0; r < d->m; r++) {
			if (!in_train(d, f, r))
				continue;
			o[c] = (z[r] - mu) / d->y[r];
			ss += o[c] * o[c];
			c++;
		}
		for (c = 0; unit && ss > 0 && c < Z->size2; c++)
			o[c] /= sqrt(ss);
	}
}

/* Weighted centred moments of the columns S over the training runs of
 * fold f: C = sum w (z - mu)(z - mu)^T, g = sum w (z - mu)(y - ybar). */
static int moments(const struct data *d, size_t f, const size_t *S, size_t s,
		   gsl_matrix *C, gsl_vector *g, double *yy)
{
	double W, ybar;

	mpp_tr_wstats(d, f, &W, &ybar, yy);
	if (d->G) {
		double *sz = calloc(s, sizeof(*sz));
		if (!sz)
			return MPP_ENOMEM;
		gsl_matrix_set_zero(C);
		gsl_vector_set_zero(g);
		for (size_t b = 0; b < d->K; b++) {
			if (b == f)
				continue;
			for (size_t i = 0; i < s; i++) {
				const double *gr =
				    gsl_matrix_const_ptr(d->G[b], S[i], 0);
				double *cr = gsl_matrix_ptr(C, i, 0);
				for (size_t j = 0; j < s; j++)
					cr[j] += gr[S[j]];
				sz[i] += d->bs[b][S[i]];
				*gsl_vector_ptr(g, i) += d->bzy[b][S[i]];
			}
		}
		for (size_t i = 0; i < s; i++) {
			double *cr = gsl_matrix_ptr(C, i, 0);
			for (size_t j = 0; j < s; j++)
				cr[j] -= sz[i] * sz[j] / W;
			*gsl_vector_ptr(g, i) -= sz[i] * ybar;
		}
		free(sz);
		return MPP_OK;
	}
	size_t nt = ntrain(d, f);
	gsl_matrix *Zs = gsl_matrix_alloc(s, nt);
	gsl_vector *yc = gsl_vector_alloc(nt);
	if (!Zs || !yc) {
		gsl_matrix_free(Zs);
		gsl_vector_free(yc);
		return MPP_ENOMEM;
	}
	weighted_rows(d, f, S, s, Zs, yc, 0);
	gsl_blas_dgemv(CblasNoTrans, 1, Zs, yc, 0, g);
	gsl_blas_dsyrk(CblasLower, CblasNoTrans, 1, Zs, 0, C);
	for (size_t i = 0; i < s; i++)
		for (size_t j = i + 1; j < s; j++)
			gsl_matrix_set(C, i, j, gsl_matrix_get(C, j, i));
	gsl_matrix_free(Zs);
	gsl_vector_free(yc);
	return MPP_OK;
}

/* Standardised coefficients of the columns S (default method). */
int mpp_tr_rank_default(const struct data *d, size_t f, const size_t *S,
			size_t s, gsl_vector *beta)
{
	size_t nt = ntrain(d, f);
	int rc;

	if (s <= nt) {
		gsl_matrix *C = gsl_matrix_alloc(s, s);
		gsl_vector *g = gsl_vector_alloc(s);
		double yy;
		rc = C && g ? moments(d, f, S, s, C, g, &yy) : MPP_ENOMEM;
		if (rc == MPP_OK)
			rc = mpp_fit_rank_primal(C, g, yy, nt, beta);
		gsl_matrix_free(C);
		gsl_vector_free(g);
		return rc;
	}
	gsl_matrix *Zc = gsl_matrix_alloc(s, nt);
	gsl_vector *yc = gsl_vector_alloc(nt);
	if (!Zc || !yc) {
		gsl_matrix_free(Zc);
		gsl_vector_free(yc);
		return MPP_ENOMEM;
	}
	weighted_rows(d, f, S, s, Zc, yc, 1);
	rc = mpp_fit_rank_dual(Zc, yc, beta);
	gsl_matrix_free(Zc);
	gsl_vector_free(yc);
	return rc;
}

/* Raw least-squares coefficients of the columns S (the seed's step 1):
 * minimum-norm, with the intercept taken out by centring. */
int mpp_tr_ols_raw(const struct data *d, size_t f, const size_t *S, size_t s,
		   gsl_vector *a, double *intercept)
{
	size_t nt = ntrain(d, f);
	gsl_matrix *A = gsl_matrix_alloc(nt, s);
	gsl_vector *b = gsl_vector_alloc(nt);
	double *mu = calloc(s, sizeof(*mu)), ybar = 0;
	int rc;

	if (!A || !b || !mu) {
		rc = MPP_ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		ybar += d->y[r] / (double)nt;
		for (size_t i = 0; i < s; i++)
			mu[i] += xval(d, r, S[i]) / (double)nt;
	}
	for (size_t r = 0, c = 0; r < d->m; r++) {
		if (!in_train(d, f, r))
			continue;
		for (size_t i = 0; i < s; i++)
			gsl_matrix_set(A, c, i, xval(d, r, S[i]) - mu[i]);
		gsl_vector_set(b, c++, d->y[r] - ybar);
	}
	rc = mpp_fit_minnorm(A, b, a);
	if (rc == MPP_OK && intercept) {
		*intercept = ybar;
		for (size_t i = 0; i < s; i++)
			*intercept -= gsl_vector_get(a, i) * mu[i];
	}
out:
	gsl_matrix_free(A);
	gsl_vector_free(b);
	free(mu);
	return rc;
}

/* ---- the selection path -------------------------------------------------- */

void mpp_tr_path_free(struct path *p)
{
	free(p->size);
	free(p->off);
	free(p->order);
	free(p->rep);
	memset(p, 0, sizeof(*p));
}

static int cmp_abs_desc(const void *a, const void *b)
{
	double x = fabs(((const struct keyed *)a)->key),
	       y = fabs(((const struct keyed *)b)->key);
	if (x != y)
		return (x < y) - (x > y);
	size_t i = ((const struct keyed *)a)->j,
	       j = ((const struct keyed *)b)->j;
	return (i > j) - (i < j);
}

/* The size of the round after one of s columns. */
static size_t next_size(const struct data *d, size_t s)
{
	size_t next = (size_t)ceil((double)s * d->top_p);
	return next >= s ? s - 1 : next < 1 ? 1 : next;
}

int mpp_tr_run_path(const struct data *d, size_t f, struct path *p)
{
	size_t k = d->k, s = 0, cap = 0, rounds = 0, used = 0;
	size_t *S = malloc(k * sizeof(*S));
	struct keyed *kb = malloc(k * sizeof(*kb));
	int rc = MPP_OK;

	memset(p, 0, sizeof(*p));
	p->rep = malloc(k * sizeof(*p->rep));
	if (!S || !kb || !p->rep) {
		rc = MPP_ENOMEM;
		goto out;
	}
	if (!d->method->fold) {
		for (size_t j = 0; j < k; j++)
			p->rep[j] = j;
	} else {
		rc = d->method->fold(d, f, p->rep);
		if (rc)
			goto out;
	}
	for (size_t j = 0; j < k; j++)
		if (p->rep[j] == j)
			S[s++] = j;
	for (size_t n = s; n > 1; n = next_size(d, n)) {
		cap += n;
		rounds++;
	}
	p->size = malloc((rounds + 1) * sizeof(size_t));
	p->off = malloc((rounds + 1) * sizeof(size_t));
	p->order = malloc((cap + 1) * sizeof(size_t));
	if (!p->size || !p->off || !p->order) {
		rc = MPP_ENOMEM;
		goto out;
	}
	while (s > 1) {
		gsl_vector *beta = gsl_vector_alloc(s);
		if (!beta) {
			rc = MPP_ENOMEM;
			goto out;
		}
		rc = d->method->rank(d, f, S, s, beta);
		for (size_t i = 0; rc == MPP_OK && i < s; i++) {
			kb[i].key = gsl_vector_get(beta, i);
			kb[i].j = S[i];
		}
		gsl_vector_free(beta);
		if (rc)
			goto out;
		qsort(kb, s, sizeof(*kb), cmp_abs_desc);
		p->size[p->nrounds] = s;
		p->off[p->nrounds] = used;
		for (size_t i = 0; i < s; i++)
			p->order[used + i] = S[i] = kb[i].j;
		used += s;
		p->nrounds++;
		s = next_size(d, s);
	}
	if (p->nrounds == 0 && s == 1) {
		/* One column only: nothing to rank. */
		p->size[0] = 1;
		p->off[0] = 0;
		p->order[0] = S[0];
		p->nrounds = 1;
	}
out:
	free(S);
	free(kb);
	if (rc)
		mpp_tr_path_free(p);
	return rc;
}

/*
 * Swaps that refine the loop's choice of t columns: |coefficient| ranks
 * collinear columns unreliably, and where counters scale almost alike the
 * loop can drop the one that matters early (a jacobi3d stencil kept its
 * halo-face counter, n^2 per iteration, over its cell counter, n^3, and
 * erred by 23 % on held-out sizes). Starting from the loop's choice K, one
 * kept column is swapped for one of a wider round R (s columns, K among
 * them) while that raises the weighted sum of squares explained on the
 * training runs of fold f, at most SWAP_PASSES passes over the kept
 * columns. The target stays what cross-validation picks, and every fold
 * refines its own choice, so the cross-validated error still measures the
 * whole procedure. K gets the t columns, in R's ranking order.
 */
#define SWAP_PASSES 4
/* The candidates: the smallest round with at least this many columns and
 * at least twice the target. */
#define SWAP_POOL 8

static int refine_keep(const struct data *d, size_t f, const size_t *R,
		       size_t s, size_t t, size_t *K)
{
	gsl_matrix *C = gsl_matrix_alloc(s, s), *L = gsl_matrix_alloc(t, t);
	gsl_vector *g = gsl_vector_alloc(s), *gt = gsl_vector_alloc(t),
		   *x = gsl_vector_alloc(t);
	size_t *pos = malloc(t * sizeof(*pos)), n = 0;
	char *in = calloc(s, 1);
	double yy, cur = -INFINITY;
	int rc = C && L && g && gt && x && pos && in ? MPP_OK : MPP_ENOMEM;

	if (rc == MPP_OK)
		rc = moments(d, f, R, s, C, g, &yy);
	if (rc == MPP_OK)
		rc = mpp_fit_unit_scale(C, g);
	for (size_t j = 0; rc == MPP_OK && j < s; j++)
		for (size_t i = 0; i < t; i++)
			if (R[j] == K[i]) {
				in[j] = 1;
				pos[n++] = j;
			}
	if (rc == MPP_OK && n != t)
		rc = MPP_EINVAL; /* rounds are nested: cannot happen */
	if (rc == MPP_OK)
		cur = mpp_fit_explained(C, g, pos, L, gt, x);
	for (int pass = 0, moved = 1;
	     rc == MPP_OK && moved && pass < SWAP_PASSES; pass++) {
		moved = 0;
		for (size_t i = 0; i < t; i++) {
			size_t was = pos[i], best = was;
			for (size_t j = 0; j < s; j++) {
				if (in[j])
					continue;
				pos[i] = j;
				double e =
				    mpp_fit_explained(C, g, pos, L, gt, x);
				/* Clearly better only: ties keep the rank. */
				if (e > cur + 1e-9 * (yy > 0 ? yy : 1)) {
					cur = e;
					best = j;
				}
			}
			pos[i] = best;
			in[was] = 0;
			in[best] = 1;
			moved |= best != was;
		}
	}
	for (size_t j = 0, k = 0; rc == MPP_OK && j < s; j++)
		if (in[j])
			K[k++] = R[j];
	gsl_matrix_free(C);
	gsl_matrix_free(L);
	gsl_vector_free(g);
	gsl_vector_free(gt);
	gsl_vector_free(x);
	free(pos);
	free(in);
	return rc;
}

/*
 * The columns the loop keeps for target t on fold f, into K (room for t);
 * *n gets how many (<= t). The loop keeps the first t of its smallest
 * round with more than t columns; the default method then refines that
 * choice (refine_keep) when the method says so, else keeps it as it is.
 */
int mpp_tr_path_keep(const struct data *d, size_t f, const struct path *p,
		     size_t t, size_t *K, size_t *n)
{
	*n = 0;
	if (p->nrounds == 0)
		return MPP_OK;
	size_t best = 0, pool = 0, want = 2 * t > SWAP_POOL ? 2 * t : SWAP_POOL;
	for (size_t i = 0; i < p->nrounds; i++) {
		if (p->size[i] > t)
			best = i;
		if (p->size[i] >= want)
			pool = i;
	}
	size_t s = p->size[best];
	*n = s < t ? s : t;
	memcpy(K, p->order + p->off[best], *n * sizeof(*K));
	if (!d->method->refine || s <= t)
		return MPP_OK;
	return refine_keep(d, f, p->order + p->off[pool], p->size[pool], t, K);
}
