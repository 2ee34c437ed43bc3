/*
 * breaker.h: the circuit breaker, for the whole call and per url.
 *
 * Shared by every thread that submits jobs (behind one mutex). After
 * breaker_failures failed calls in a row nothing is called for
 * breaker_seconds, then one call is let through; a url that failed or
 * stayed silent breaker_failures times in a row is asked last for
 * breaker_seconds, so that a hung first daemon does not cost every job
 * hedge_ms while a second one answers.
 *
 * Not for: deciding what a failure is (client.c does).
 */
#ifndef MPP_CONTRIB_SLURM_BREAKER_H
#define MPP_CONTRIB_SLURM_BREAKER_H

#include <stdbool.h>

/* Closes the breaker and forgets every url's failures (init()). */
void mpp_breaker_reset(void);

/* True when the daemon may be called now. */
bool mpp_breaker_allows(void);

/* One call's result: failed or not (a prediction or a refusal). */
void mpp_breaker_record(bool failed);

/* Fills order[0..mpp_cfg.nurls) with the url indexes in the order to ask
 * them: config order, those asked last for now at the end. */
void mpp_url_order(int *order);

/* One url's result: failed (or stayed silent) or answered. */
void mpp_url_record(int u, bool failed);

#endif
