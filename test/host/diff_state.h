/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Writes a generated tree (diff_tree.h) as the state files slurmctld saves
 * and reloads when slurmdbd is unreachable: last_tres, assoc_mgr_state and
 * assoc_usage in DIR, packed with Slurm's own functions in the format of
 * slurm-22-05-8-1:src/common/assoc_mgr.c (dump_assoc_mgr_state,
 * dump_assoc_usage), so that load_assoc_mgr_last_tres, load_assoc_mgr_state
 * and load_assoc_usage build assoc_mgr's tree and usage from them exactly
 * as a controller does. Returns 0, or -1 with a message on stderr.
 */
#ifndef FAIRWAY_TEST_HOST_DIFF_STATE_H
#define FAIRWAY_TEST_HOST_DIFF_STATE_H

#include "diff_tree.h"

int diff_state_write(const diff_tree_t *tree, const char *dir, const char *cluster);

#endif
