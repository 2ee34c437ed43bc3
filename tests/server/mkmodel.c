/*
 * mkmodel: stores a hand-written model, so that the server tests can check
 * predictions against arithmetic done by hand rather than against the
 * trainer. Test helper only.
 *
 *   mkmodel DB APP INTERCEPT [FEATURE=COEF[@LOG_C[@VAR^EXPO]...]]...
 *
 * Each term predicts runtime += COEF * x; from job parameters
 * log(x) = LOG_C + sum EXPO * log(VAR). A term spelt progress:FEATURE=0@...
 * is the model's progress counter and its law instead (model.h), not a
 * term. Interval factors are 0.8/1.25 (features) and 0.5/2 (parameters).
 * Prints "ID VERSION".
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "schema/store.h"

static int parse_term(mpp_term *t, char *spec)
{
	char *eq = strchr(spec, '=');
	if (eq == NULL)
		return -1;
	*eq = '\0';
	t->feature = strdup(spec);
	char *rest = eq + 1;
	char *at = strchr(rest, '@');
	if (at)
		*at++ = '\0';
	t->coef = atof(rest);
	t->center = 0;
	t->scale = 1;
	t->pm.cv_mape = 5;
	t->pm.predictable = at != NULL;
	if (at == NULL)
		return 0;
	char *next = strchr(at, '@');
	if (next)
		*next++ = '\0';
	t->pm.log_c = atof(at);
	while (next) {
		char *var = next;
		next = strchr(var, '@');
		if (next)
			*next++ = '\0';
		char *caret = strchr(var, '^');
		if (caret == NULL)
			return -1;
		*caret = '\0';
		t->pm.vars =
		    realloc(t->pm.vars, (t->pm.nvars + 1) * sizeof *t->pm.vars);
		t->pm.expo =
		    realloc(t->pm.expo, (t->pm.nvars + 1) * sizeof *t->pm.expo);
		t->pm.vars[t->pm.nvars] = strdup(var);
		t->pm.expo[t->pm.nvars++] = atof(caret + 1);
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: mkmodel DB APP INTERCEPT "
				"[FEATURE=COEF[@LOG_C[@VAR^EXPO]...]]...\n");
		return 1;
	}
	mpp_model *m = mpp_model_new();
	m->app = strdup(argv[2]);
	m->build_id = strdup("test-build");
	m->method = strdup("default");
	m->fit = strdup("ols");
	m->created_at = (double)time(NULL);
	m->intercept = atof(argv[3]);
	m->nterms = (size_t)(argc - 4);
	m->terms = calloc(m->nterms + 1, sizeof *m->terms);
	size_t k = 0;
	for (size_t i = 0; i < m->nterms; i++) {
		int pg = !strncmp(argv[4 + i], "progress:", 9);
		mpp_term *t = &m->terms[k];
		if (parse_term(t, argv[4 + i] + (pg ? 9 : 0)) != 0) {
			fprintf(stderr, "mkmodel: bad term '%s'\n",
				argv[4 + i]);
			return 1;
		}
		if (!pg) {
			k++;
			continue;
		}
		m->progress_feature = t->feature;
		m->progress = t->pm;
		memset(t, 0, sizeof *t);
	}
	m->nterms = k;
	m->ntrain = 10;
	m->nfeatures_in = m->nterms;
	m->cv_mape = 3.5;
	m->cv_mape_params = 7.25;
	m->rel_lo = 0.8;
	m->rel_hi = 1.25;
	m->prel_lo = 0.5;
	m->prel_hi = 2;
	m->coverage = 0.9;
	mpp_store *s;
	char err[512];
	if (mpp_store_open(argv[1], MPP_STORE_CREATE, &s, err, sizeof err) ||
	    mpp_store_save_model(s, m, err, sizeof err)) {
		fprintf(stderr, "mkmodel: %s\n", err);
		return 2;
	}
	printf("%lld %d\n", (long long)m->id, m->version);
	mpp_store_close(s);
	mpp_model_free(m);
	return 0;
}
