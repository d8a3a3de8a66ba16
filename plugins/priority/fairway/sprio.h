/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sprio.c: what sprio and job->prio_factors show. */
#ifndef FAIRWAY_PLUGIN_SPRIO_H_
#define FAIRWAY_PLUGIN_SPRIO_H_

#include "fw_plugin.h"

#include "api/fairway_api.h"

/* What a 22.05 sprio asks for (later clients filter themselves): any may
 * be NULL. */
typedef struct {
	list_t *job_ids, *uids; /* of uint32_t */
	const char *partitions; /* comma-separated names */
} fw_sprio_filter_t;
/* sprio's factors list (priority_p_get_priority_factors_list), for the jobs
 * uid may see. caller_locked: slurmctld holds job R, node R, part R and
 * QOS R (23.02 and later, FW_HELD_BY_SPRIO_CALLER); else it takes
 * FW_SPRIO itself (22.05, as multifactor). Returns a list Slurm frees. */
list_t *fw_sprio_factors_list(const fw_sprio_filter_t *filter, uid_t uid,
			      bool caller_locked);
/* Writes in's factors into *f: the numbers and, when in has TRES, TRES
 * arrays from xcalloc (Slurm frees them), weights from settings (which may
 * be NULL when in has no TRES). *f must be zeroed or hold factors written
 * by this function: TRES arrays found there are freed. Requires job W when
 * *f is a job's prio_factors. */
void fw_factors_fill(priority_factors_t *f, const fw_factors_t *in,
		     const fw_settings_t *settings);

#endif /* FAIRWAY_PLUGIN_SPRIO_H_ */
