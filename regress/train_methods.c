/*
 * train_methods.c: the training methods --method picks from, as a table
 * (struct mpp_tr_method in train_data.h). Each entry says how the method
 * folds columns, ranks them in the top-p rounds, whether it refines the
 * kept columns, which final fits it cross-validates and how it chooses the
 * fit and the target. A new method is a new entry here and the functions it
 * names; no other file tests a method's name. Not for the steps themselves.
 */
#include "regress/train_data.h"

#include <string.h>

/* The seed's ranking: raw least-squares coefficients. */
static int rank_ols(const struct data *d, size_t f, const size_t *S, size_t s,
		    gsl_vector *beta)
{
	return mpp_tr_ols_raw(d, f, S, s, beta, NULL);
}

/* NNLS at its one-standard-error target, unless ridge (at its own) is
 * better by more than a standard error of the per-fold difference. */
static void choose_default(const struct data *d, const struct cv *cv, int *fit,
			   size_t *ti, mpp_train_report *rep)
{
	size_t tn = mpp_tr_one_se(d, cv, FIT_NNLS);
	size_t tr = mpp_tr_one_se(d, cv, FIT_RIDGE);

	rep->cv_mape_nnls = mpp_tr_pooled_mape(d, cv, FIT_NNLS, tn);
	rep->cv_mape_ridge = mpp_tr_pooled_mape(d, cv, FIT_RIDGE, tr);
	*fit = FIT_NNLS;
	*ti = tn;
	if (mpp_tr_prefer_ridge(d, cv, tn, tr)) {
		*fit = FIT_RIDGE;
		*ti = tr;
	}
}

/* The seed's least squares at its one-standard-error target. */
static void choose_seed(const struct data *d, const struct cv *cv, int *fit,
			size_t *ti, mpp_train_report *rep)
{
	rep->cv_mape_nnls = rep->cv_mape_ridge = NAN;
	*fit = FIT_OLS;
	*ti = mpp_tr_one_se(d, cv, FIT_OLS);
}

static const struct mpp_tr_method methods[] = {
    {
	.name = "default",
	.fold = mpp_tr_fold_columns,
	.rank = mpp_tr_rank_default,
	.refine = 1,
	.stable = 1,
	.target_up_to_k = 0,
	.nfits = 2,
	.fits = {FIT_NNLS, FIT_RIDGE},
	.choose = choose_default,
    },
    {
	.name = "seed",
	.fold = NULL,
	.rank = rank_ols,
	.refine = 0,
	.stable = 0,
	.target_up_to_k = 1,
	.nfits = 1,
	.fits = {FIT_OLS},
	.choose = choose_seed,
    },
};

const struct mpp_tr_method *mpp_tr_method_find(const char *name)
{
	if (!name)
		name = "default";
	for (size_t i = 0; i < sizeof(methods) / sizeof(*methods); i++)
		if (strcmp(methods[i].name, name) == 0)
			return &methods[i];
	return NULL;
}

int mpp_train_method_exists(const char *name)
{
	return name && mpp_tr_method_find(name) != NULL;
}

const char *mpp_train_method_names(void)
{
	return "default, seed";
}
