/*
 * pin.h: the addresses of the urls' host names, resolved when the plugin
 * loads and refreshed by a thread of its own, so that no job waits on DNS.
 *
 * libcurl resolves a host name in a thread, and when a transfer is dropped
 * at the deadline it waits for that thread to finish, whatever the
 * timeout: with a resolver that took 3 s, job_submit took 3 s inside
 * slurmctld's locks. Here names are resolved with getaddrinfo() in init()
 * (slurmctld's start, before any job) and again every resolve_seconds in a
 * background thread; a transfer only ever gets the addresses already held
 * (CURLOPT_RESOLVE) and libcurl is forbidden to start a resolver
 * (CURLOPT_RESOLVER_START_FUNCTION refuses), so a call's time does not
 * depend on DNS at all. A refresh that fails keeps the last addresses.
 * https keeps checking the certificate against the host name.
 *
 * Not for: urls with an address literal (nothing to resolve).
 */
#ifndef MPP_CONTRIB_SLURM_PIN_H
#define MPP_CONTRIB_SLURM_PIN_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

/* Resolves the host of each of mpp_cfg's urls now (blocking: call from
 * init() only), logging each result, and starts the refresh thread when a
 * url names a host. A name that does not resolve is logged, not fatal: its
 * url fails open until a refresh resolves it. 0, or -1 with err filled
 * when a url cannot be parsed or the thread cannot start. */
int mpp_pin_start(char *err, size_t errlen);

/* Stops the refresh thread and forgets every address. Waits for a resolve
 * under way to end (fini(), at shutdown). Safe to call when not started. */
void mpp_pin_stop(void);

/* Sets up handle h for url u: the pinned addresses (a list *list the
 * caller frees with curl_slist_free_all after curl_easy_cleanup(h)), and
 * no resolver. False with why filled when the host has no address yet. */
bool mpp_pin_use(CURL *h, int u, struct curl_slist **list, char *why,
		 size_t whylen);

#endif
