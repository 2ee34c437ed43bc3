/*
 * request.h: the body of POST /v1/predict, decoded and type-checked.
 *
 * One pass of yajl's event parser over the body: no JSON tree is built.
 * Known fields are checked as they arrive, unknown ones are skipped
 * whatever they hold. Strings are UTF-8 (yajl validates them) and copied
 * once into one buffer the request owns. A syntax error anywhere wins over
 * a wrong field; otherwise the first wrong field is reported.
 *
 * Every string must be strictly UTF-8 (utf8.h) without NUL bytes; app,
 * user, partition and job_id are labels (common/text.h: no control byte,
 * at most MPP_REQUEST_MAX_LABEL bytes), the rule of every route that
 * writes to the store.
 *
 * Errors name the field: "ntasks: expected a positive integer up to 1e9",
 * "features.NAME: expected a finite number >= 0", "args[2]: expected a
 * string", "body: invalid JSON at byte N: ...". Duplicate keys (a field
 * given twice, a feature named twice) are errors. Not for deciding what
 * the request means (api.c): only what it says.
 */
#ifndef MPP_SERVER_REQUEST_H
#define MPP_SERVER_REQUEST_H

#include <stddef.h>

#include "common/text.h"
#include "regress/model.h"

/* The longest app, user, partition and job_id accepted, in bytes: they go
 * into the audit, and an unbounded one lets any client fill its disk. */
#define MPP_REQUEST_MAX_LABEL MPP_TEXT_MAX_LABEL

typedef struct mpp_request {
	/* NULL when absent or null. */
	const char *app, *user, *partition, *script;
	size_t script_len;
	const char *job_id; /* a string, or a JSON integer's digits */
	double ntasks, nodes, per_node; /* -1 when absent */
	const char *submit_line; /* the command line that submitted the job
				    (the Slurm plugin sends it; for srun it
				    is the only place the arguments are) */
	size_t submit_line_len;
	double uid;          /* the submitting user's uid, -1 when absent */
	double time_limit_s; /* the job's limit, -1 when absent (history) */

	int has_features; /* "features" was an object (maybe empty) */
	mpp_kv *features; /* names unique, values finite and >= 0 */
	size_t nfeatures;

	int has_args;            /* "args" was a string or an array */
	const char *args_string; /* when a string */
	const char **args;       /* when an array */
	size_t nargs;

	int has_argv; /* "argv" was an array */
	const char **argv;
	size_t nargv;

	char *strings; /* owns every string above */
} mpp_request;

/* Decodes body[0..len). Returns MPP_OK, MPP_EINVAL with err saying what is
 * wrong (the request is then empty), or MPP_ENOMEM. At most max_features
 * features are accepted. Free with mpp_request_free() in every case. */
int mpp_request_parse(const char *body, size_t len, size_t max_features,
		      mpp_request *q, char *err, size_t errlen);

void mpp_request_free(mpp_request *q);

#endif
