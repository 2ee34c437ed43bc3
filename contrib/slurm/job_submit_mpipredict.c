/*
 * job_submit_mpipredict.c: Slurm job_submit plugin that asks mpipredictd how
 * long a submitted job will run and writes the answer into the job.
 *
 * At every submission it sends what the job carries (the batch script as
 * written, argv, the submit line, task and node counts, uid, partition,
 * time limit, name, work dir) to POST <url>/v1/predict within one hard time
 * budget. It does not read the script itself: the daemon finds the
 * application and its arguments (its script reader, or argv for srun and
 * salloc jobs) and names the app in its answer. The answer is applied as
 * mpipredict.conf says (see contrib/slurm/mpipredict.conf):
 *   annotate  append "mpipredict: 812s [770,861] jacobi@3" to the comment,
 *             if the comment stays within what slurmctld accepts;
 *   time_min  also set --time-min to ceil(upper * safety / 60) minutes, but
 *             only if that is within the user's time limit;
 *   fill      also set the time limit to that value when the user gave none
 *             (or lower the user's limit to it with lower_user_limit = yes),
 *             never below the job's own time_min.
 *
 * It fails open: whatever goes wrong (no config, bad config, daemon down,
 * hung, slow, garbage, 5xx, no model), the job is submitted exactly as the
 * user asked and slurmctld logs one line. With several urls, a url that
 * fails moves on to the next at once, and one that has not answered after
 * hedge_ms is joined by the next in parallel (first good answer wins), all
 * within timeout_ms. After breaker_failures failures in a row it stops
 * calling for breaker_seconds (circuit breaker); a url that fails or stays
 * silent that often is asked last for that long.
 *
 * It runs inside slurmctld, under the controller's locks: it never exits,
 * forks or touches signals (libcurl runs with CURLOPT_NOSIGNAL), it makes no
 * user-database or DNS lookup at submission (opt_out_users are resolved to
 * uids in init(); url host names in init() and then by a thread of its
 * own), every string it hands to Slurm comes from Slurm's allocator
 * (slurm_xstrdup), and the shared mutable state (the breaker, the pinned
 * addresses) is behind mutexes. It is not linked with libslurm: the few Slurm
 * functions it calls are resolved in slurmctld, at load time (-Wl,-z,now), so a
 * mismatch fails at startup, not at a job.
 *
 * Not for: re-predicting on job updates (job_modify accepts every update
 * unchanged), parsing batch scripts (the daemon does), or learning from
 *
 * This file holds what slurmctld looks up (plugin_name, plugin_type,
 * plugin_version, init, fini, job_submit, job_modify) and the order of a
 * submission; the parts are in files of their own, linked into the one
 * job_submit_mpipredict.so: config.c (mpipredict.conf, read once in
 * init()), pin.c (url host names resolved outside any job), request.c (the
 * body), client.c (asking the daemons, hedged, within the deadline),
 * breaker.c (circuit breaker), policy.c (applying the answer).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include <curl/curl.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "contrib/slurm/breaker.h"
#include "contrib/slurm/client.h"
#include "contrib/slurm/config.h"
#include "contrib/slurm/pin.h"
#include "contrib/slurm/policy.h"
#include "contrib/slurm/request.h"
#include "contrib/slurm/slurm_api.h"

MPP_SLURM_EXPORT const char plugin_name[] =
    "job_submit mpipredict: runtime predictions";
MPP_SLURM_EXPORT const char plugin_type[] = "job_submit/mpipredict";
MPP_SLURM_EXPORT const uint32_t plugin_version = SLURM_VERSION_NUMBER;

MPP_SLURM_EXPORT int init(void);
MPP_SLURM_EXPORT int fini(void);
MPP_SLURM_EXPORT int job_submit(job_desc_msg_t *job, uint32_t submit_uid,
				char **err_msg);
#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
MPP_SLURM_EXPORT int job_modify(job_desc_msg_t *job, void *job_ptr,
				uint32_t submit_uid, char **err_msg);
#else
MPP_SLURM_EXPORT int job_modify(job_desc_msg_t *job, void *job_ptr,
				uint32_t submit_uid);
#endif

/* Reads mpipredict.conf and resolves the urls' host names: the only place
 * the plugin blocks (slurmctld's start, before any job). Never fails:
 * slurmctld must start; a problem disables the plugin with one log line. */
int init(void)
{
	char err[1024], *path = NULL;
	const char *env = getenv("MPIPREDICT_CONF");

	mpp_cfg_defaults();
	mpp_breaker_reset();
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK) {
		slurm_error(PFX "libcurl did not initialise; disabled, jobs "
				"are submitted unchanged");
		return SLURM_SUCCESS;
	}
	if (!env || !*env)
		path = slurm_get_extra_conf_path("mpipredict.conf");
	if (!(env && *env) && !path) {
		slurm_error(PFX "no path for mpipredict.conf; disabled, jobs "
				"are submitted unchanged");
	} else if (mpp_cfg_load(env && *env ? env : path, err, sizeof(err)) ||
		   mpp_pin_start(err, sizeof(err))) {
		mpp_pin_stop();
		mpp_cfg_defaults();
		slurm_error(PFX "%s; disabled, jobs are submitted unchanged",
			    err);
	} else {
		mpp_cfg.enabled = true;
		slurm_info(PFX "%d url(s), timeout %ld ms, hedge %ld ms, mode "
			       "%s",
			   mpp_cfg.nurls, mpp_cfg.timeout_ms, mpp_cfg.hedge_ms,
			   mpp_mode_name(mpp_cfg.mode));
	}
	slurm_xfree((void **)&path);
	return SLURM_SUCCESS;
}

int fini(void)
{
	mpp_pin_stop();
	mpp_cfg_clear();
	curl_global_cleanup();
	return SLURM_SUCCESS;
}

/* Called under slurmctld's job locks: returns within timeout_ms whatever
 * the daemons, the network or DNS do, and leaves the job as submitted on
 * any failure. */
int job_submit(job_desc_msg_t *job, uint32_t submit_uid, char **err_msg)
{
	double t0 = mpp_now_s(), ms;
	struct mpp_prediction p = {0};
	const char *name = job->name ? job->name : "";
	char why[1024];
	enum mpp_outcome res;
	char *body;

	(void)submit_uid;
	(void)err_msg;
	if (!mpp_cfg.enabled || mpp_user_opted_out(job->user_id) ||
	    (job->script && mpp_script_opts_out(job->script)) ||
	    !mpp_breaker_allows())
		return SLURM_SUCCESS;
	if (!(body = mpp_build_request(job, why, sizeof(why)))) {
		slurm_info(PFX
			   "job '%s' of uid %u: %s; job submitted unchanged",
			   name, job->user_id, why);
		return SLURM_SUCCESS;
	}
	res = mpp_ask(body, t0 + mpp_cfg.timeout_ms / 1000.0, &p, why,
		      sizeof(why));
	free(body);
	ms = (mpp_now_s() - t0) * 1000.0;
	if (res != MPP_ASK_OK) {
		mpp_breaker_record(res == MPP_ASK_FAILED);
		slurm_info(PFX "job '%s' of uid %u: %s after %.1f ms; job "
			       "submitted unchanged",
			   name, job->user_id, why, ms);
		return SLURM_SUCCESS;
	}
	mpp_breaker_record(false);
	if (!mpp_app_allowed(p.app)) {
		slurm_debug(PFX "job '%s' of uid %u: app %s is not in apps, in "
				"%.2f ms; job submitted unchanged",
			    name, job->user_id, p.app, ms);
		return SLURM_SUCCESS;
	}
	mpp_apply(job, &p);
	slurm_debug(PFX "job '%s' of uid %u: app %s %.0fs [%.0f,%.0f] in "
			"%.2f ms",
		    name, job->user_id, p.app, p.runtime_s, p.lower_s,
		    p.upper_s, ms);
	return SLURM_SUCCESS;
}

#if SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(23, 2, 0)
int job_modify(job_desc_msg_t *job, void *job_ptr, uint32_t submit_uid,
	       char **err_msg)
{
	(void)err_msg;
#else
int job_modify(job_desc_msg_t *job, void *job_ptr, uint32_t submit_uid)
{
#endif
	(void)job;
	(void)job_ptr;
	(void)submit_uid;
	return SLURM_SUCCESS;
}
