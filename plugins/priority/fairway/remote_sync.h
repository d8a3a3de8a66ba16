/* SPDX-License-Identifier: GPL-2.0-or-later */
/* remote_sync.c: the other clusters' usage
 * (PriorityParameters=fairshare_clusters), fetched from slurmdbd by a
 * thread of its own and kept behind one mutex. No Slurm type here. */
#ifndef FAIRWAY_PLUGIN_REMOTE_SYNC_H_
#define FAIRWAY_PLUGIN_REMOTE_SYNC_H_

#include <stdbool.h>

#include "api/fairway_api.h"

/* The remote usage, locked (create it on first use). The remote mutex is
 * a leaf: the caller may hold Slurm's locks and the ledger's, and takes
 * none while holding it. Never NULL unless out of memory. */
fw_remote_t *fw_remote_acquire(void);
void fw_remote_release(void);

/* Writes StateSaveLocation/fairway_remote_used: what the last fairshare
 * added of the other clusters' usage (fw_remote_used_serialize), for
 * `fairway explain`. Requires no lock (takes the remote mutex, then writes
 * without it). */
void fw_remote_save_used(void);

/* Reads StateSaveLocation/fairway_remote_usage when a cluster is named
 * (in the caller, so that the decay thread's first pass sees it) and
 * starts the "fw_remote" thread (once; before the decay thread), which
 * syncs every configured cluster every fairshare_sync seconds (0:
 * PriorityCalcPeriod) and saves the file after each sync. It idles while
 * no cluster is configured. Requires no lock. */
void fw_remote_thread_start(void);
/* Wakes it, waits for its current sync to end and joins it. Requires no
 * lock. */
void fw_remote_thread_stop(void);

#endif /* FAIRWAY_PLUGIN_REMOTE_SYNC_H_ */
