/*
 * config.h: the plugin's settings (mpipredict.conf), read once by init().
 *
 * mpp_cfg is written by mpp_cfg_load() in init() and only read afterwards
 * (by every submitting thread, without a lock): nothing may change it while
 * jobs are submitted. The example contrib/slurm/mpipredict.conf documents
 * every setting.
 *
 * Not for: runtime state (the breaker and the pinned addresses keep theirs).
 */
#ifndef MPP_CONTRIB_SLURM_CONFIG_H
#define MPP_CONTRIB_SLURM_CONFIG_H

#include <stdbool.h>
#include <sys/types.h>

#define MPP_MAX_URLS 8
#define MPP_MAX_LIST 64

enum mpp_mode { MPP_MODE_ANNOTATE, MPP_MODE_TIME_MIN, MPP_MODE_FILL };

struct mpp_cfg {
	bool enabled;
	char *urls[MPP_MAX_URLS]; /* full endpoint: <url>/v1/predict */
	int nurls;
	long timeout_ms;
	long hedge_ms; /* never 0 after a load: timeout_ms / 4 by default */
	long max_body;
	enum mpp_mode mode;
	double safety;
	long min_minutes, max_minutes; /* max 0: no clamp */
	bool lower_user_limit;
	char *apps[MPP_MAX_LIST]; /* allow-list; empty: every app */
	int napps;
	uid_t opt_out[MPP_MAX_LIST];
	int nopt_out;
	struct {
		char *name;
		long minutes;
	} parts[MPP_MAX_LIST]; /* partition_max_minutes */
	int nparts;
	long breaker_failures; /* 0: never open */
	long breaker_seconds;
	long resolve_seconds; /* how often url host names are resolved again */
};

extern struct mpp_cfg mpp_cfg;

/* Resets mpp_cfg to the defaults (disabled, no urls), freeing what it held. */
void mpp_cfg_defaults(void);

/* Frees what mpp_cfg holds and zeroes it. */
void mpp_cfg_clear(void);

/* Reads the file at path into mpp_cfg (from the defaults). opt_out_users
 * are looked up in the user database here, once. 0 on success; -1 with
 * err filled ("path:line: why") on the first problem, mpp_cfg then holds
 * a partial load: call mpp_cfg_defaults(). Does not set enabled. */
int mpp_cfg_load(const char *path, char *err, size_t errlen);

/* "annotate", "time_min" or "fill". */
const char *mpp_mode_name(enum mpp_mode m);

#endif
