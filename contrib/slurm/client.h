/*
 * client.h: asks the daemons for a prediction, within one hard deadline.
 *
 * Not for: building the body (request.h) or applying the answer
 * (policy.h).
 */
#ifndef MPP_CONTRIB_SLURM_CLIENT_H
#define MPP_CONTRIB_SLURM_CLIENT_H

#include <stddef.h>

#include <jansson.h>

/* A prediction as the daemon answered it. */
struct mpp_prediction {
	double runtime_s, lower_s, upper_s;
	char app[256];
	json_int_t version; /* -1: not given */
};

/* MPP_ASK_REFUSED: the daemon works but will not predict this job (404: no
 * model for the app; another 4xx: it rejects the request). Only
 * MPP_ASK_FAILED counts towards the circuit breaker. */
enum mpp_outcome { MPP_ASK_OK, MPP_ASK_REFUSED, MPP_ASK_FAILED };

/* POSTs body to the configured urls and returns before deadline (monotonic
 * seconds, mpp_now_s()), whatever the network or DNS does: host names are
 * never resolved here, only the addresses pin.h holds are used. p is
 * filled on MPP_ASK_OK; why says what went wrong otherwise. Thread-safe
 * (per-url results go to the breaker). */
enum mpp_outcome mpp_ask(const char *body, double deadline,
			 struct mpp_prediction *p, char *why, size_t whylen);

#endif
