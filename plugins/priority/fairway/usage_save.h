/* SPDX-License-Identifier: GPL-2.0-or-later */
/* usage_save.c: assoc_mgr's usage written to Slurm's own files after a
 * pass that charged or reset it. No Slurm type here. */
#ifndef FAIRWAY_PLUGIN_USAGE_SAVE_H_
#define FAIRWAY_PLUGIN_USAGE_SAVE_H_

#include <stdbool.h>

/* Requires no lock: takes FW_USAGE_SAVE (assoc R, qos R, tres R, file W),
 * then the state-file lock inside it. Replaces StateSaveLocation/assoc_usage
 * and qos_usage, in the format slurmctld reads at start, by rename: at every
 * instant each name holds either the previous file or the new one, never
 * nothing. False when a file could not be written (said once, the previous
 * file kept). */
bool fw_usage_save(void);

#endif /* FAIRWAY_PLUGIN_USAGE_SAVE_H_ */
