/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the plugin takes from slurmctld besides its records: the log, the
 * state directory and its lock, a few settings, and the configuration
 * (slurm_conf's priority settings copied into the core's input and
 * published through config_store.c). */
#include "fw_plugin.h"

#include "fw_host.h"
#include "config_store.h"
#include "locks.h"

void fw_log_line(fw_log_level_t level, const char *line)
{
	switch (level) {
	case FW_LOG_ERROR:
		fw_error("%s", line);
		break;
	case FW_LOG_INFO:
		fw_info("%s", line);
		break;
	case FW_LOG_VERBOSE:
		fw_verbose("%s", line);
		break;
	case FW_LOG_PRIO:
		fw_prio("%s", line);
		break;
	}
}

/* PriorityWeightTRES in slurmctld's TRES order (xmalloc'd), or NULL. A bad
 * value is logged, never fatal (fail=false). */
static double *tres_weights(void)
{
	if (!slurm_conf.priority_weight_tres || slurmctld_tres_cnt <= 0)
		return NULL;
	double *weights = slurm_get_tres_weight_array(
		slurm_conf.priority_weight_tres, slurmctld_tres_cnt, false);
	if (!weights)
		fw_error(
			"PriorityWeightTRES: cannot use '%s' (TRES factors disabled)",
			slurm_conf.priority_weight_tres);
	return weights;
}

void fw_load_config(bool with_slurmdbd, bool log_summary)
{
	double *weights = tres_weights();
	fw_config_input_t in = {
		.weight_age = slurm_conf.priority_weight_age,
		.weight_assoc = slurm_conf.priority_weight_assoc,
		.weight_fairshare = slurm_conf.priority_weight_fs,
		.weight_job_size = slurm_conf.priority_weight_js,
		.weight_partition = slurm_conf.priority_weight_part,
		.weight_qos = slurm_conf.priority_weight_qos,
		.weight_tres = weights,
		.tres_cnt = weights ? (uint32_t) slurmctld_tres_cnt : 0,
		.weight_tres_text = slurm_conf.priority_weight_tres,
		.flags = slurm_conf.priority_flags,
		.decay_half_life_s = slurm_conf.priority_decay_hl,
		.calc_period_s = slurm_conf.priority_calc_period,
		.max_age_s = slurm_conf.priority_max_age,
		.reset_period = slurm_conf.priority_reset_period,
		.favor_small = slurm_conf.priority_favor_small,
		.favor_small_clamps_nodes = FW_SLURM_AT_LEAST(23, 2, 0),
		.damp_factor = slurm_conf.fs_dampening_factor,
		.priority_parameters = slurm_conf.priority_params,
		.with_slurmdbd = with_slurmdbd,
		.prio_debug = fw_prio_enabled(),
		.cluster_name = slurm_conf.cluster_name,
	};
	fw_config_publish(fw_config_create(&in, fw_log_line, log_summary));
	xfree(weights);
}

const char *fw_host_state_dir(void)
{
	return slurm_conf.state_save_location ? slurm_conf.state_save_location :
						".";
}

void fw_host_lock_state_files(void)
{
	lock_state_files();
}

void fw_host_unlock_state_files(void)
{
	unlock_state_files();
}

void fw_host_protocol_versions(uint16_t *min_version, uint16_t *max_version)
{
	*min_version = SLURM_MIN_PROTOCOL_VERSION;
	*max_version = SLURM_PROTOCOL_VERSION;
}

bool fw_host_has_jobs(void)
{
	return job_list != NULL;
}

void fw_host_update_site_factors(void)
{
	fw_held_t held = { 0 };
	const char *plugin = slurm_conf.site_factor_plugin;
	if (!plugin || !xstrcmp(plugin, "site_factor/none"))
		return; /* updates nothing: no job W for it */
	fw_lock(&held, FW_SITE_FACTORS);
	site_factor_g_update();
	fw_unlock(&held, FW_SITE_FACTORS);
}

uint32_t fw_host_calc_period(void)
{
	return slurm_conf.priority_calc_period;
}
