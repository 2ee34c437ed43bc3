/*
 * breaker.c: the circuit breaker's state and rules (see breaker.h), behind
 * one mutex shared by every submitting thread.
 *
 * Not for: anything that waits; the lock is only held to read or update a
 * few numbers (and to log a state change).
 */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "contrib/slurm/breaker.h"
#include "contrib/slurm/config.h"
#include "contrib/slurm/slurm_api.h"

static pthread_mutex_t breaker_lock = PTHREAD_MUTEX_INITIALIZER;
static long breaker_fails;
static double breaker_open_until; /* monotonic seconds; 0: closed */
static long url_fails[MPP_MAX_URLS];
static double url_last_until[MPP_MAX_URLS]; /* asked last until then */

void mpp_breaker_reset(void)
{
	pthread_mutex_lock(&breaker_lock);
	breaker_fails = 0;
	breaker_open_until = 0;
	memset(url_fails, 0, sizeof(url_fails));
	memset(url_last_until, 0, sizeof(url_last_until));
	pthread_mutex_unlock(&breaker_lock);
}

/* True when the daemon may be called now. While open, nothing is called
 * until breaker_seconds have passed; then one call is let through. */
bool mpp_breaker_allows(void)
{
	bool ok;

	pthread_mutex_lock(&breaker_lock);
	ok = breaker_open_until == 0 || mpp_now_s() >= breaker_open_until;
	pthread_mutex_unlock(&breaker_lock);
	return ok;
}

/* The urls in the order to ask them: config order, those asked last for
 * now at the end. */
void mpp_url_order(int *order)
{
	double t = mpp_now_s();
	int n = 0;

	pthread_mutex_lock(&breaker_lock);
	for (int i = 0; i < mpp_cfg.nurls; i++)
		if (url_last_until[i] <= t)
			order[n++] = i;
	for (int i = 0; i < mpp_cfg.nurls; i++)
		if (url_last_until[i] > t)
			order[n++] = i;
	pthread_mutex_unlock(&breaker_lock);
}

void mpp_url_record(int u, bool failed)
{
	pthread_mutex_lock(&breaker_lock);
	if (!failed) {
		url_fails[u] = 0;
		url_last_until[u] = 0;
	} else if (mpp_cfg.breaker_failures &&
		   ++url_fails[u] >= mpp_cfg.breaker_failures) {
		if (url_fails[u] == mpp_cfg.breaker_failures &&
		    mpp_cfg.nurls > 1)
			slurm_info(PFX "%s: %ld failures or silences in a row; "
				       "asking it last for %ld s",
				   mpp_cfg.urls[u], url_fails[u],
				   mpp_cfg.breaker_seconds);
		url_last_until[u] = mpp_now_s() + mpp_cfg.breaker_seconds;
	}
	pthread_mutex_unlock(&breaker_lock);
}

void mpp_breaker_record(bool failed)
{
	pthread_mutex_lock(&breaker_lock);
	if (!failed) {
		if (breaker_open_until != 0)
			slurm_info(PFX "daemon answers again; calling it");
		breaker_fails = 0;
		breaker_open_until = 0;
	} else if (mpp_cfg.breaker_failures &&
		   ++breaker_fails >= mpp_cfg.breaker_failures) {
		if (breaker_fails == mpp_cfg.breaker_failures ||
		    breaker_open_until != 0)
			slurm_info(PFX "%ld failures in a row; not calling the "
				       "daemon for %ld s",
				   breaker_fails, mpp_cfg.breaker_seconds);
		breaker_open_until = mpp_now_s() + mpp_cfg.breaker_seconds;
	}
	pthread_mutex_unlock(&breaker_lock);
}
