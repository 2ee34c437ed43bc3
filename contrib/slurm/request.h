/*
 * request.h: the body the plugin sends to POST /v1/predict, built from the
 * job as slurmctld hands it over, and the script's own opt-out line.
 *
 * Not for: sending it (client.h) or reading scripts beyond that one line
 * (the daemon finds the app and its arguments).
 */
#ifndef MPP_CONTRIB_SLURM_REQUEST_H
#define MPP_CONTRIB_SLURM_REQUEST_H

#include <stdbool.h>
#include <stddef.h>

#include <slurm/slurm.h>

/* True when a line of script s is "#MPIPREDICT" followed by words one of
 * which is "off" (the user opted the job out). */
bool mpp_script_opts_out(const char *s);

/* The JSON body for the job (malloc'd, the caller frees it), at most
 * mpp_cfg.max_body bytes as encoded. NULL with why filled when it cannot be
 * built or would be longer. Bytes that are not UTF-8 are sent as '?'. */
char *mpp_build_request(const job_desc_msg_t *job, char *why, size_t whylen);

#endif
