/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The part of the plugin that needs no Slurm header: the decay thread, the
 * state files and the planned-use ledger's file. Keeping them free of
 * Slurm's headers keeps the code every Slurm release difference can touch
 * (fw_plugin.h and the files that include it) small. What they need of
 * Slurm comes through the fw_host_* functions (host.c). */
#ifndef FAIRWAY_PLUGIN_FW_HOST_H_
#define FAIRWAY_PLUGIN_FW_HOST_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "api/fairway_api.h"

/* ---- host.c: what these files need of slurmctld --------------------------- */
/* One line to slurmctld's log, with the plugin's prefix. */
void fw_log(fw_log_level_t level, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* The formatted string (malloc; free it), NULL only out of memory. */
char *fw_format(const char *format, ...) __attribute__((format(printf, 1, 2)));
/* StateSaveLocation ("." when unset). */
const char *fw_host_state_dir(void);
/* Slurm's state-file lock (lock_state_files), last in the lock order. */
void fw_host_lock_state_files(void);
void fw_host_unlock_state_files(void);
/* The protocol versions this Slurm reads assoc_usage in. */
void fw_host_protocol_versions(uint16_t *min_version, uint16_t *max_version);
/* The configuration in force, as a reference: fw_config_unref it. Never
 * NULL after fw_load_config. Any thread. */
fw_config_t *fw_config_get(void);
/* PriorityCalcPeriod in seconds, read live. */
uint32_t fw_host_calc_period(void);

/* ---- planned_use.c: the ledger and its state file -------------------------- */
/* The ledger, under its mutex (after the assoc_mgr locks in the order). */
fw_ledger_t *fw_ledger_acquire(void);
void fw_ledger_release(void);
/* Loads StateSaveLocation/fairway_planned_use once (later calls do
 * nothing); falls back to .old; logs as it goes. */
void fw_ledger_load_once(void);
/* Writes the ledger's state file (no Slurm lock held). */
void fw_ledger_save(void);
/* The bootstrap replaced the ledger: nothing to load any more. */
void fw_ledger_mark_loaded(void);

/* ---- state_files.c: files under StateSaveLocation ------------------------- */
/* At start: reads the decay clock, its .old copy and assoc_usage's header,
 * applies the recovery rule, sets a damaged clock aside and logs one line.
 * out->message is logged and freed here (NULL on return). */
void fw_state_recover(uint16_t reset_period, time_t now, fw_recovery_t *out);
/* Writes priority_last_decay_ran atomically; false on failure (said once). */
bool fw_state_write_clock(time_t last_ran, time_t last_reset);
typedef enum { FW_READ_OK, FW_READ_MISSING, FW_READ_UNREADABLE } fw_read_t;
/* StateSaveLocation/<name><suffix> into *bytes (malloc; free it), under
 * the state-file lock. On UNREADABLE, *why says why (free it). */
fw_read_t fw_state_read(const char *name, const char *suffix, char **bytes, size_t *length,
                        char **why);
/* Atomically replaces StateSaveLocation/<name>, keeping <name>.old. */
bool fw_state_write(const char *name, const char *bytes, size_t length);
/* Moves a damaged file aside to <name>.damaged; see state_files.c. */
bool fw_state_set_aside(const char *name);
/* StateSaveLocation/<name><suffix> (malloc; free it). */
char *fw_state_path(const char *name, const char *suffix);

/* ---- decay_thread.c / decay_pass.c ---------------------------------------- */
void fw_decay_thread_start(void);
void fw_decay_thread_stop(void);
void fw_decay_thread_reconfig(void);
/* When the last pass ran (0 before the first), for job-end charging. */
time_t fw_last_decay_ran(void);

#endif /* FAIRWAY_PLUGIN_FW_HOST_H_ */
