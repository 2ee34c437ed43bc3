/*
 * policy.h: what the plugin does with a job and a prediction, as
 * mpipredict.conf says (mode, caps, safety, allow-list, opt-outs).
 *
 * Not for: asking the daemon (client.h).
 */
#ifndef MPP_CONTRIB_SLURM_POLICY_H
#define MPP_CONTRIB_SLURM_POLICY_H

#include <stdbool.h>
#include <sys/types.h>

#include <slurm/slurm.h>

#include "contrib/slurm/client.h"

/* True when the allow-list (apps) is empty or names app. */
bool mpp_app_allowed(const char *app);

/* True when uid is one of opt_out_users. */
bool mpp_user_opted_out(uid_t uid);

/* Writes the prediction into the job: the comment note in every mode, and
 * time_min or the time limit as the mode says. Strings handed to Slurm
 * come from slurm_xstrdup. */
void mpp_apply(job_desc_msg_t *job, const struct mpp_prediction *p);

#endif
