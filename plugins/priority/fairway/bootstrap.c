/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Usage rebuilt from slurmdbd's job records, when the controller starts
 * without usage state (the recovery rule decides) or with
 * PriorityParameters=usage_bootstrap=force. The decay thread asks slurmdbd
 * through the controller's own accounting connection, so it never blocks
 * slurmctld's start; the core computes the usage (fw_bootstrap_usage) and
 * this file writes it back. The lines logged here are grepped for by the
 * tests: keep them word for word. */
#include "fw_plugin.h"

#include "bootstrap.h"
#include "assocs.h"
#include "ledger_file.h"
#include "locks.h"

#include <unistd.h>

static bool told_no_connection; /* decay thread only */

list_t *fw_fetch_cluster_jobs(const char *cluster, time_t since, time_t now)
{
	slurmdb_job_cond_t cond = {
		.usage_start = since,
		.usage_end = now,
		.flags = JOBCOND_FLAG_NO_STEP | JOBCOND_FLAG_NO_TRUNC,
		.db_flags =
			SLURMDB_JOB_FLAG_NOTSET, /* 0 would select only jobs without flags */
	};
	cond.cluster_list = list_create(NULL);
	list_append(cond.cluster_list, (void *) cluster);
	list_t *records =
		jobacct_storage_g_get_jobs_cond(acct_db_conn, getuid(), &cond);
	FREE_NULL_LIST(cond.cluster_list);
	return records;
}

/* Copies a record's fields; the strings stay the record's. A record that
 * never started or has no association carries no usage. */
static int copy_job(void *object, void *arg)
{
	slurmdb_job_rec_t *record = object;
	fw_db_job_t **next = arg;
	if (!record->start || !record->associd)
		return 0;
	(*next)->assoc_id = record->associd;
	(*next)->start = record->start;
	(*next)->end = record->end;
	(*next)->tres_alloc =
		record->tres_alloc_str ? record->tres_alloc_str : "";
	(*next)++;
	return 0;
}

fw_boot_t fw_bootstrap_run(const fw_config_t *config, time_t now,
			   time_t configured_last_reset, bool replace,
			   bool retry)
{
	const fw_settings_t *settings = fw_settings(config);
	if (!acct_db_conn) { /* none configured, or none yet */
		if (!told_no_connection)
			fw_error(
				"usage bootstrap: slurmctld has no accounting connection; usage is not rebuilt "
				"from slurmdbd until it has one (each decay pass checks)");
		told_no_connection = true;
		return FW_BOOT_RETRY;
	}
	const int64_t since =
		fw_bootstrap_since(config, configured_last_reset, now);
	list_t *records = fw_fetch_cluster_jobs(
		slurm_conf.cluster_name, since,
		now); /* no assoc_mgr lock held across slurmdbd's answer */
	if (!records) {
		if (!retry)
			fw_error(
				"usage bootstrap: slurmdbd returned no job records (is it reachable?); usage "
				"starts from what slurmctld has, and every decay pass retries until slurmdbd "
				"answers");
		return FW_BOOT_RETRY;
	}
	fw_db_job_t *jobs = xcalloc(list_count(records) + 1, sizeof(*jobs)),
		    *end = jobs;
	list_for_each(records, copy_job, &end);

	fw_held_t held = { 0 };
	fw_lock(&held, FW_BOOTSTRAP);
	fw_assoc_input_t *assocs = NULL;
	slurmdb_assoc_rec_t **assoc_records = NULL;
	const size_t n = fw_assocs_snapshot(&held, &assocs, &assoc_records);
	/* Per-TRES usage only where GrpTRESMins limits read it. */
	const uint32_t tres_cnt = slurmctld_tres_cnt;
	const bool limits =
		(accounting_enforce & ACCOUNTING_ENFORCE_LIMITS) && tres_cnt;
	uint32_t *tres_ids =
		limits ? xcalloc(tres_cnt, sizeof(*tres_ids)) : NULL;
	for (uint32_t t = 0; limits && t < tres_cnt; t++)
		tres_ids[t] = assoc_mgr_tres_array[t]->id;
	long double *usage = xcalloc(n + 1, sizeof(*usage));
	long double *tres_usage =
		limits ? xcalloc(n * tres_cnt + 1, sizeof(*tres_usage)) : NULL;
	const bool planned_use = settings->mode == FW_MODE_PLANNED_USE;
	fw_ledger_t *ledger = planned_use ? fw_ledger_acquire() : NULL;
	const bool force =
		replace || settings->usage_bootstrap == FW_BOOTSTRAP_FORCE;
	fw_bootstrap_result_t result = fw_bootstrap_usage(
		config, assocs, n, jobs, (size_t) (end - jobs), tres_ids,
		tres_ids ? tres_cnt : 0, TRES_ENERGY, force, since, now, retry,
		ledger, usage, tres_usage);
	if (ledger)
		fw_ledger_release();
	for (size_t i = 0; result == FW_BOOTSTRAP_REBUILT && i < n; i++) {
		slurmdb_assoc_usage_t *u = assoc_records[i]->usage;
		u->usage_raw = usage[i];
		for (uint32_t t = 0; tres_usage && t < tres_cnt; t++)
			u->usage_tres_raw[t] = tres_usage[i * tres_cnt + t];
	}
	fw_unlock(&held, FW_BOOTSTRAP);
	/* The core replaced the ledger, or kept the one fw_ledger_load_once
   * loaded before (the decay thread loads it before the first bootstrap):
   * either way there is nothing left to load. */
	if (planned_use && result == FW_BOOTSTRAP_REBUILT)
		fw_ledger_mark_loaded();
	xfree(tres_ids);
	xfree(usage);
	xfree(tres_usage);
	xfree(jobs);
	FREE_NULL_LIST(records); /* after the core: jobs[] pointed into it */
	return result == FW_BOOTSTRAP_REBUILT ? FW_BOOT_REBUILT :
						FW_BOOT_NOT_NEEDED;
}
