/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ledger_file.c: the planned-use ledger behind its mutex, and its state
 * file StateSaveLocation/fairway_planned_use. The mutex comes after the
 * assoc_mgr locks in the lock order (locks.h) and before the state-file
 * lock. No Slurm type here. */
#ifndef FAIRWAY_PLUGIN_LEDGER_FILE_H_
#define FAIRWAY_PLUGIN_LEDGER_FILE_H_

#include "api/fairway_api.h"

/* Takes the ledger's mutex and returns the ledger (created on first use,
 * never NULL); fw_ledger_release releases the mutex. The caller holds no
 * state-file lock. */
fw_ledger_t *fw_ledger_acquire(void);
void fw_ledger_release(void);
/* Requires not the ledger. Loads StateSaveLocation/fairway_planned_use once
 * (later calls do nothing); falls back to .old; logs as it goes. */
void fw_ledger_load_once(void);
/* Requires no Slurm lock and not the ledger: writes the ledger's state
 * file (the ledger is copied under its mutex, written outside it). */
void fw_ledger_save(void);
/* Requires not the ledger. The bootstrap replaced the ledger: nothing to
 * load any more. */
void fw_ledger_mark_loaded(void);

#endif /* FAIRWAY_PLUGIN_LEDGER_FILE_H_ */
