/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One decay pass, top to bottom, in fw_decay_pass: reset and decay, find
 * the jobs, charge their usage, fairshare, gather and compute priorities,
 * store them, persist. Each step's locks are taken and released at the
 * call, in Slurm's order. Order and cadence follow priority/multifactor's
 * _decay_thread (slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
 * Start-up (fw_decay_recover_clock, fw_decay_recover_usage) is here too:
 * the thread only runs them.
 * No Slurm header here: the steps that touch Slurm's records are the
 * boundary's (assocs.h, charge.h, job_*.h), and the locks are locks.h's named
 * sets. */
#include <stdlib.h>
#include <string.h>

#include "decay_pass.h"
#include "assocs.h"
#include "bootstrap.h"
#include "changes.h"
#include "charge.h"
#include "config_store.h"
#include "decay_thread.h"
#include "fw_host.h"
#include "fw_thread.h"
#include "job_find.h"
#include "job_gather.h"
#include "job_store.h"
#include "ledger_file.h"
#include "locks.h"
#include "remote_sync.h"
#include "state_files.h"
#include "usage_save.h"

/* Adds the CPU spent since *mark to *phase and moves the mark. */
static void lap(double *mark, double *phase)
{
	double now = fw_thread_cpu_ms();
	*phase += now - *mark;
	*mark = now;
}

void fw_decay_recover_clock(const fw_config_t *config, time_t now,
			    fw_decay_clock_t *clock)
{
	const fw_settings_t *s = fw_settings(config);
	fw_recovery_t recovery;
	/* Read before anything of ours runs, while slurmctld waits in our
	 * init: assoc_mgr rewrites assoc_usage on its next state save. */
	fw_state_recover(s->reset_period, now, &recovery);
	*clock = (fw_decay_clock_t){ .last_ran = recovery.charge_from };
	clock->reset = (fw_reset_state_t){
		.period = s->reset_period,
		.last_reset = recovery.last_reset ? recovery.last_reset : now
	};
	clock->rebuild_usage = recovery.rebuild_usage;
	clock->bootstrap_pending =
		fw_bootstrap_wanted(config, recovery.rebuild_usage);
	free(recovery.message);
}

void fw_decay_recover_usage(const fw_config_t *config, time_t now,
			    fw_decay_clock_t *clock)
{
	const fw_settings_t *s = fw_settings(config);
	fw_charge_restart_release(clock->last_ran);
	/* In memory before the first charge (a pass or a job end), or loading
	 * it later would drop those charges. */
	if (s->mode == FW_MODE_PLANNED_USE)
		fw_ledger_load_once();
	fw_decay_bootstrap(config, now, clock, false);
}

void fw_decay_bootstrap(const fw_config_t *config, time_t now,
			fw_decay_clock_t *clock, bool retry)
{
	if (!clock->bootstrap_pending)
		return;
	/* The rebuild reaches back to the reset the configuration implies,
	 * not to a last_reset that may come from a lost clock. */
	time_t boundary = fw_last_reset_boundary(clock->reset.period, now);
	switch (fw_bootstrap_run(config, now, boundary, clock->rebuild_usage,
				 retry)) {
	case FW_BOOT_REBUILT:
		/* Everything up to now is counted: charge from here on. */
		clock->last_ran = now;
		clock->bootstrap_pending = false;
		break;
	case FW_BOOT_NOT_NEEDED:
		clock->bootstrap_pending = false;
		break;
	case FW_BOOT_RETRY:
		break;
	}
}

/* 5, end. With looks for changes on: the associations' usage as the pass
 * left it, for the thread to compare later looks with (its own decay and
 * charges are no change). Taken here, where the fairshare snapshot has
 * just read these records, not by a whole look after the pass. Job ends
 * later in the pass show as usage changes too, and are noted as job ends
 * anyway. */
static void usage_after(const fw_config_t *config, fw_held_t *held,
			fw_pass_report_t *r)
{
	if (fw_settings(config)->change_check_s <= 0)
		return;
	fw_lock(held, FW_ASSOCS_READ);
	r->usage_after = fw_changes_usage(held);
	fw_unlock(held, FW_ASSOCS_READ);
}

/* The steps of a pass, numbered as in doc/architecture.md, and the locks
 * each takes (the caller holds none). "here": taken and released in
 * fw_decay_pass, recorded in held; "inside": by the function called, which
 * requires that none of it is held.
 *   1. reset (when due), decay     FW_USAGE_WRITE inside, each
 *   2. site factor plugin update   FW_SITE_FACTORS inside (job W)
 *   3. find the job records        FW_JOBS_READ here, held through 6
 *   4. charge running jobs         FW_USAGE_WRITE and the ledger inside, per job
 *   5. fairshare                   the ledger here (rolled), then
 *                                  FW_FAIRSHARE (and the ledger) inside;
 *                                  then FW_ASSOCS_READ here for the usage
 *                                  the looks compare with
 *   6. gather and compute          FW_ASSOCS_READ here, inside job R
 *   7. store the changed jobs      FW_JOBS_WRITE here, one hold per slice;
 *                                  then no lock (fw_pass_trim unmaps)
 *   8. persist                     the ledger and the state-file lock inside
 *                                  (ledger file, clock); FW_USAGE_SAVE
 *                                  then the state-file lock inside
 *                                  (assoc_usage, qos_usage)
 * Without the job steps (no clock advance in a classic mode), 2-4, 6 and
 * 7 are skipped. */
void fw_decay_pass(const fw_config_t *config, time_t now,
		   fw_decay_clock_t *clock, fw_pass_report_t *r)
{
	const fw_settings_t *s = fw_settings(config);
	const bool classic = s->mode == FW_MODE_CLASSIC ||
			     s->mode == FW_MODE_DEPTH_OBLIVIOUS;
	const bool planned_use = s->mode == FW_MODE_PLANNED_USE;
	/* No clock (first run) or one that did not advance: nothing to decay.
	 * Classic modes then skip the job steps too, as multifactor does;
	 * Fair Tree still charges, from each job's start. */
	const bool skip = clock->last_ran == 0 || now - clock->last_ran <= 0;
	/* Without accounting (init, once) there is no clock: jobs only. */
	const bool jobs_step = !(skip && classic) || clock->without_accounting;
	const bool jobs = fw_host_has_jobs();
	fw_pass_t *pass = fw_jobs_pass();
	fw_held_t held = { 0 };
	const time_t reset_before = clock->reset.last_reset;
	double mark = fw_thread_cpu_ms();
	memset(r, 0, sizeof(*r));

	/* 1. Reset and decay. */
	if (fw_reset_due(&clock->reset, now))
		fw_assocs_reset(config);
	if (!skip)
		fw_assocs_decay(config,
				fw_decay_over(config, now - clock->last_ran));
	lap(&mark, &r->cpu.decay);

	if (!jobs_step) {
		/* 5. Fairshare only. */
		fw_assocs_fairshare(config, now);
		usage_after(config, &held, r);
		lap(&mark, &r->cpu.fairshare);
	} else {
		/* 2. The site factor plugin's update. */
		if (!skip)
			fw_host_update_site_factors();
		/* 3. Find the records. 3-6 under one hold of job R + part R: one
		 * finding of the records serves the charge and the priorities. */
		if (jobs)
			fw_lock(&held, FW_JOBS_READ);
		r->walked = fw_jobs_find(&held, pass);
		lap(&mark, &r->cpu.find);
		/* 4. Charge running jobs. */
		r->charged = fw_charge_running(&held, pass, config,
					       clock->last_ran, now);
		/* Running jobs are charged up to now: a job that ends from here
		 * on is charged from now. Published while job R is held, so no
		 * job end (job W) falls between the charge and this; published
		 * only at step 8, a job ending during steps 7-8 (the slices'
		 * gaps, the fsyncs) would be charged [last_ran, now] twice.
		 * With no job list no job ends. */
		if (jobs && !clock->without_accounting)
			fw_decay_charged_until(&held, now);
		lap(&mark, &r->cpu.charge);
		/* 5. Fairshare from the usage just charged. */
		if (planned_use) {
			fw_ledger_roll(fw_ledger_acquire(), config, now);
			fw_ledger_release();
		}
		fw_assocs_fairshare(config, now);
		usage_after(config, &held, r);
		lap(&mark, &r->cpu.fairshare);
		/* 6. Gather and compute; job queries still run. */
		double gather_start = fw_wall_ms();
		if (jobs) {
			fw_lock(&held, FW_ASSOCS_READ);
			fw_jobs_gather(&held, pass, config, now);
			fw_unlock(&held, FW_ASSOCS_READ);
			fw_unlock(&held, FW_JOBS_READ);
		}
		r->gather_ms = fw_wall_ms() - gather_start;
		/* 7. Store the changed jobs, a slice per hold. */
		bool stored_all = !jobs;
		while (!stored_all) {
			fw_lock(&held, FW_JOBS_WRITE);
			double hold_start = fw_wall_ms();
			stored_all = fw_jobs_store_slice(&held, pass, config,
							 now, &r->recomputed);
			double hold = fw_wall_ms() - hold_start;
			fw_unlock(&held, FW_JOBS_WRITE);
			r->holds++;
			r->held_ms += hold;
			if (hold > r->longest_hold_ms)
				r->longest_hold_ms = hold;
		}
		fw_pass_trim(pass);
		fw_pass_stats(pass, &r->jobs);
		r->job_records = fw_pass_jobs(pass, NULL);
		lap(&mark, &r->cpu.priority);
	}

	/* 8. Persist. The ledger's file first, with no lock held (file I/O
	 * under the job lock would keep job writers waiting on the disk);
	 * planned use always runs the job steps. */
	if (planned_use)
		fw_ledger_save();
	/* The other clusters' usage this pass added (fairway explain). */
	if (s->remote_cluster_cnt)
		fw_remote_save_used();
	/* Then the clock, then the usage this pass charged
	 * (slurmctld writes assoc_usage only every few minutes, so a crash
	 * would lose more than one pass). In this order a crash in between
	 * loses at most one pass and never charges one twice. Decay alone
	 * loses nothing if a crash replays it from the older state. */
	if (clock->without_accounting)
		return;
	clock->last_ran = now;
	fw_state_write_clock(now, clock->reset.last_reset);
	if (s->calc_fairshare &&
	    (r->charged || clock->reset.last_reset != reset_before))
		fw_usage_save();
	lap(&mark, &r->cpu.state);
}

void fw_decay_pass_log(const fw_pass_report_t *r)
{
	const struct fw_pass_cpu *c = &r->cpu;
	if (r->recomputed)
		fw_log(FW_LOG_PRIO,
		       "%zu of %zu jobs changed during the pass and were recomputed",
		       r->recomputed, r->jobs.computed);
	/* One line a pass (SlurmctldDebug=verbose): where the CPU went, and
	 * how long the pass kept job queries and job writers waiting. */
	fw_log(FW_LOG_VERBOSE,
	       "decay pass CPU %.3f ms: decay %.3f, find %.3f, charge %.3f, fairshare %.3f, priority %.3f, state %.3f",
	       c->decay + c->find + c->charge + c->fairshare + c->priority +
		       c->state,
	       c->decay, c->find, c->charge, c->fairshare, c->priority,
	       c->state);
	/* The first line keeps its format from before the triggers: the
	 * benchmarks and reliability_concurrency.sh read it. */
	fw_log(FW_LOG_VERBOSE,
	       "priority pass: %zu jobs computed, %zu stored; job write lock held %.3f ms, longest %.3f ms of %zu holds (gathering and computing under the read lock, waits included, %.3f ms); %zu job records %s",
	       r->jobs.computed, r->jobs.stored, r->held_ms, r->longest_hold_ms,
	       r->holds, r->gather_ms, r->job_records,
	       r->walked ? "listed by walking the job list" : "found by id");
	fw_log(FW_LOG_VERBOSE,
	       "priority pass trigger %s, took %.3f ms; %zu looks for changes since the last pass, locks held %.3f ms on average (CPU %.3f ms), longest %.3f ms, %zu records each",
	       r->trigger[0] ? r->trigger : "none", r->wall_ms, r->looks,
	       r->look_ms, r->look_cpu_ms, r->longest_look_ms, r->look_records);
}

void fw_decay_pass_save(const fw_pass_report_t *r, time_t started, time_t ended)
{
	const struct fw_pass_cpu *c = &r->cpu;
	/* Keys are stable (doc/metrics.md); a reader ignores ones it does not
	 * know. Times in ms with 3 decimals, counts whole. */
	char *text = fw_format(
		"# priority/fairway: the last decay pass (doc/metrics.md)\n"
		"format=1\n"
		"pass_start=%lld\n"
		"pass_end=%lld\n"
		"duration_ms=%.3f\n"
		"cpu_ms=%.3f\n"
		"jobs_computed=%zu\n"
		"jobs_stored=%zu\n"
		"jobs_recomputed=%zu\n"
		"jobs_charged=%zu\n"
		"job_records=%zu\n"
		"job_write_lock_held_ms=%.3f\n"
		"job_write_lock_longest_ms=%.3f\n"
		"job_write_lock_holds=%zu\n"
		"trigger=%s\n"
		"change_checks=%zu\n"
		"change_check_ms=%.3f\n"
		"change_check_longest_ms=%.3f\n"
		"change_check_cpu_ms=%.3f\n"
		"change_check_records=%zu\n",
		(long long) started, (long long) ended, r->wall_ms,
		c->decay + c->find + c->charge + c->fairshare + c->priority +
			c->state,
		r->jobs.computed, r->jobs.stored, r->recomputed, r->charged,
		r->job_records, r->held_ms, r->longest_hold_ms, r->holds,
		r->trigger[0] ? r->trigger : "none", r->looks, r->look_ms,
		r->longest_look_ms, r->look_cpu_ms, r->look_records);
	if (text)
		fw_state_write_report("fairway_pass_stats", text);
	free(text);
}

void fw_decay_pass_once_without_thread(time_t now)
{
	/* No slurmdbd: no decay clock, no fairshare; the jobs get their
	 * factors once. No decay thread exists, so the pass is ours. */
	fw_config_t *config = fw_config_get();
	fw_decay_clock_t clock = { .without_accounting = true };
	fw_pass_report_t report;
	fw_decay_pass(config, now, &clock, &report);
	fw_config_unref(config);
}
