/* SPDX-License-Identifier: GPL-2.0-or-later */
/* assocs.c: between assoc_mgr's association and QOS records and the core. */
#ifndef FAIRWAY_PLUGIN_ASSOCS_H_
#define FAIRWAY_PLUGIN_ASSOCS_H_

#include <stddef.h>

#include "api/fairway_api.h"
#include "locks.h"

/* The decay pass's steps. Each requires no assoc_mgr lock and not the
 * ledger, and takes what it needs itself:
 * fw_assocs_fairshare takes FW_FAIRSHARE (and, in planned use, the ledger)
 * and writes one pass's fairshare back; fw_assocs_decay and
 * fw_assocs_reset take FW_USAGE_WRITE and decay or reset every association
 * and QOS in place (QOS with NoDecay are reset, not decayed). */
void fw_assocs_fairshare(const fw_config_t *config);
void fw_assocs_decay(const fw_config_t *config, double factor);
void fw_assocs_reset(const fw_config_t *config);

#ifdef FW_SLURM_AT_LEAST /* Slurm's types: files that include fw_plugin.h */
/* Requires assoc R or W. The tree for the core (fw_fairshare's order):
 * (*records)[i] is the record of (*inputs)[i]. Arrays are reused between
 * calls of the same thread (the decay thread); returns the count, 0
 * without a root. Valid while the lock is held. */
size_t fw_assocs_snapshot(fw_held_t *held, fw_assoc_input_t **inputs,
			  slurmdb_assoc_rec_t ***records);
/* Requires assoc R at least. The effective usage of an association whose
 * usage_efctv is still NO_VAL (computed, not stored). */
long double fw_assocs_efctv(fw_held_t *held, const slurmdb_assoc_rec_t *assoc,
			    const fw_config_t *config);
/* Requires assoc W. The association's fs_factor in classic and
 * DEPTH_OBLIVIOUS modes: 2^(-UE/S/damping) of its fairshare association. */
void fw_assocs_set_fs_factor(slurmdb_assoc_rec_t *assoc,
			     const fw_config_t *config);
/* priority_p_set_assoc_usage: Slurm's caller holds assoc R or no assoc
 * lock (see assocs.c); writers are serialised inside. */
void fw_assocs_set_usage(slurmdb_assoc_rec_t *assoc, const fw_config_t *config);
#endif

#endif /* FAIRWAY_PLUGIN_ASSOCS_H_ */
