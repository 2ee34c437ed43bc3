/*
 * slurm_api.h: what the job_submit/mpipredict plugin uses from slurmctld,
 * and the plugin's log prefix.
 *
 * These functions are provided by slurmctld (libslurmfull) and resolved when
 * it loads the plugin (-Wl,-z,now): the plugin is not linked with libslurm,
 * and Slurm does not ship headers for them. Strings Slurm frees must come
 * from slurm_xstrdup. Every plugin object is built with -fvisibility=hidden,
 * so that its own functions can never bind to a slurmctld symbol of the same
 * name; MPP_SLURM_EXPORT marks the few symbols slurmctld looks up.
 *
 * Not for: anything but the plugin's own files.
 */
#ifndef MPP_CONTRIB_SLURM_API_H
#define MPP_CONTRIB_SLURM_API_H

#include <time.h>

#define MPP_SLURM_EXPORT __attribute__((visibility("default")))

/* Every log line of the plugin starts with this. */
#define PFX "job_submit/mpipredict: "

extern char *slurm_xstrdup(const char *str);
extern void slurm_xfree(void **ptr);
extern char *slurm_get_extra_conf_path(char *conf_name);
extern void slurm_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
extern void slurm_info(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
extern void slurm_debug(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* Monotonic seconds: every deadline and breaker time of the plugin. */
static inline double mpp_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif
