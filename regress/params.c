/*
 * params.c: turns a job's command line into named numbers (params.h).
 *
 * This is the only place that decides what `-n 512`, `--size=512` or a
 * positional `64` is called, so that training (run rows) and the daemon
 * (submissions) agree. It does not fit anything; regress/train.c does.
 */
#include "regress/params.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"

/* A token is a number when strtod() consumes all of it and it is finite. */
static int parse_number(const char *s, size_t len, double *out)
{
	char buf[64];
	char *end;

	if (len == 0 || len >= sizeof(buf))
		return 0;
	memcpy(buf, s, len);
	buf[len] = '\0';
	*out = strtod(buf, &end);
	return *end == '\0' && isfinite(*out);
}

/* Set name (of length len) to v, replacing an earlier value of the name. */
static int params_set(mpp_params *p, const char *name, size_t len, double v)
{
	for (size_t i = 0; i < p->n; i++) {
		if (strlen(p->names[i]) == len &&
		    memcmp(p->names[i], name, len) == 0) {
			p->values[i] = v;
			return MPP_OK;
		}
	}
	char **names = realloc(p->names, (p->n + 1) * sizeof(*names));
	if (!names)
		return MPP_ENOMEM;
	p->names = names;
	double *values = realloc(p->values, (p->n + 1) * sizeof(*values));
	if (!values)
		return MPP_ENOMEM;
	p->values = values;
	p->names[p->n] = strndup(name, len);
	if (!p->names[p->n])
		return MPP_ENOMEM;
	p->values[p->n++] = v;
	return MPP_OK;
}

/* Length of NAME in a token NAME=..., NAME a C identifier; else 0. */
static size_t name_len(const char *tok)
{
	if (!(tok[0] == '_' || (tok[0] >= 'A' && tok[0] <= 'Z') ||
	      (tok[0] >= 'a' && tok[0] <= 'z')))
		return 0;
	size_t k =
	    strspn(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
			"0123456789_");
	return tok[k] == '=' ? k : 0;
}

int mpp_params_declared_ok(const char *tok, size_t len)
{
	char buf[128];
	double v;

	if (len >= sizeof(buf))
		return 0;
	memcpy(buf, tok, len);
	buf[len] = '\0';
	size_t nl = name_len(buf);
	return nl && parse_number(buf + nl + 1, len - nl - 1, &v);
}

void mpp_params_hint(const char *name, double example, char *buf, size_t len)
{
	char v[32] = "...";

	if (isfinite(example))
		snprintf(v, sizeof(v), "%.6g", example);
	if (!strcmp(name, "nprocs"))
		snprintf(buf, len,
			 "give the job's ranks: --ntasks N (#SBATCH -n N, "
			 "ntasks in a request)");
	else if (!strcmp(name, "nnodes"))
		snprintf(buf, len,
			 "give the job's nodes: --nodes N (#SBATCH -N N, "
			 "nodes in a request)");
	else if (name[0] == '#')
		snprintf(buf, len,
			 "give the job its positional argument %s as the "
			 "training runs did (e.g. %s there)",
			 name + 1, v);
	else if (name[0] == '-')
		snprintf(buf, len,
			 "give it on the command line as the training runs "
			 "did (%s %s)",
			 name, v);
	else
		snprintf(buf, len,
			 "give it on the command line as the training runs "
			 "did (%s=%s) or declare it: #MPIPREDICT param %s=%s "
			 "in the script, or MPIPREDICT_PARAMS=\"%s=%s\"",
			 name, v, name, v, name, v);
}

int mpp_params_declare(mpp_params *p, const char *decl)
{
	const char *s = decl ? decl : "";
	double v;

	while (*s) {
		s += strspn(s, " \t\r\n");
		size_t len = strcspn(s, " \t\r\n");
		if (len == 0)
			break;
		if (!mpp_params_declared_ok(s, len))
			return MPP_EINVAL;
		size_t nl = strcspn(s, "=");
		parse_number(s + nl + 1, len - nl - 1, &v);
		if (params_set(p, s, nl, v))
			return MPP_ENOMEM;
		s += len;
	}
	return MPP_OK;
}

static int is_option(const char *tok, size_t len)
{
	double v;

	return len > 1 && tok[0] == '-' && !parse_number(tok, len, &v);
}

int mpp_params_from_argv(const char *const *argv, size_t argc, double nprocs,
			 double nnodes, mpp_params *out)
{
	size_t position = 0;
	int rc = MPP_OK;
	double v;

	memset(out, 0, sizeof(*out));
	if (nprocs >= 0)
		rc = params_set(out, "nprocs", 6, nprocs);
	if (rc == MPP_OK && nnodes >= 0)
		rc = params_set(out, "nnodes", 6, nnodes);
	for (size_t i = 0; rc == MPP_OK && i < argc; i++) {
		const char *tok = argv[i];
		size_t len = strlen(tok);

		if (is_option(tok, len)) {
			const char *eq = strchr(tok, '=');
			if (eq) {
				if (parse_number(eq + 1, strlen(eq + 1), &v))
					rc = params_set(out, tok, eq - tok, v);
			} else if (i + 1 < argc &&
				   parse_number(argv[i + 1],
						strlen(argv[i + 1]), &v)) {
				rc = params_set(out, tok, len, v);
				i++;
			}
			continue;
		}
		position++;
		size_t nl = name_len(tok);
		if (nl && parse_number(tok + nl + 1, len - nl - 1, &v)) {
			/* NAME=NUMBER: a named parameter (as declared ones
			 * are); it still counts as a positional argument. */
			rc = params_set(out, tok, nl, v);
			continue;
		}
		if (parse_number(tok, len, &v)) {
			char name[32];
			int n = snprintf(name, sizeof(name), "#%zu", position);
			rc = params_set(out, name, (size_t)n, v);
		}
	}
	if (rc != MPP_OK)
		mpp_params_free(out);
	return rc;
}

int mpp_params_from_string(const char *args, double nprocs, double nnodes,
			   mpp_params *out)
{
	char *copy = strdup(args ? args : "");
	size_t argc = 0, cap = 8;
	const char **argv = malloc(cap * sizeof(*argv));
	char *save = NULL;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!copy || !argv) {
		free(copy);
		free(argv);
		return MPP_ENOMEM;
	}
	for (char *tok = strtok_r(copy, " \t\r\n", &save); tok;
	     tok = strtok_r(NULL, " \t\r\n", &save)) {
		if (argc == cap) {
			const char **a = realloc(argv, 2 * cap * sizeof(*a));
			if (!a) {
				free(copy);
				free(argv);
				return MPP_ENOMEM;
			}
			argv = a;
			cap *= 2;
		}
		argv[argc++] = tok;
	}
	rc = mpp_params_from_argv(argv, argc, nprocs, nnodes, out);
	free(argv);
	free(copy);
	return rc;
}

const double *mpp_params_get(const mpp_params *p, const char *name)
{
	for (size_t i = 0; i < p->n; i++)
		if (strcmp(p->names[i], name) == 0)
			return &p->values[i];
	return NULL;
}

void mpp_params_free(mpp_params *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->n; i++)
		free(p->names[i]);
	free(p->names);
	free(p->values);
	memset(p, 0, sizeof(*p));
}
