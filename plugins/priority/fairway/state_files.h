/* SPDX-License-Identifier: GPL-2.0-or-later */
/* state_files.c: the plugin's files under StateSaveLocation. Each function
 * takes the state-file lock itself (last in the lock order) and needs no
 * other lock. No Slurm type here. */
#ifndef FAIRWAY_PLUGIN_STATE_FILES_H_
#define FAIRWAY_PLUGIN_STATE_FILES_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "api/fairway_api.h"

/* At start: reads the decay clock, its .old copy and assoc_usage's header,
 * applies the recovery rule, sets a damaged clock aside and logs one line.
 * out->message is logged and freed here (NULL on return). */
void fw_state_recover(uint16_t reset_period, time_t now, fw_recovery_t *out);
/* Writes priority_last_decay_ran atomically; false on failure (said once). */
bool fw_state_write_clock(time_t last_ran, time_t last_reset);
typedef enum {
	FW_READ_OK,
	FW_READ_MISSING,
	FW_READ_UNREADABLE
} fw_read_t;
/* StateSaveLocation/<name><suffix> into *bytes (malloc; free it), under
 * the state-file lock. On UNREADABLE, *why says why (free it). */
fw_read_t fw_state_read(const char *name, const char *suffix, char **bytes,
			size_t *length, char **why);
/* Atomically replaces StateSaveLocation/<name>, keeping <name>.old. */
bool fw_state_write(const char *name, const char *bytes, size_t length);
/* Atomically replaces StateSaveLocation/<name> with text, mode 0644,
 * without .old and without fsync (a report for other programs, such as the
 * pass statistics: nothing the plugin recovers from). False on failure,
 * said once until a write succeeds. */
bool fw_state_write_report(const char *name, const char *text);
/* Moves a damaged file aside to <name>.damaged; see state_files.c. */
bool fw_state_set_aside(const char *name);
/* StateSaveLocation/<name><suffix> (malloc; free it). */
char *fw_state_path(const char *name, const char *suffix);

#endif /* FAIRWAY_PLUGIN_STATE_FILES_H_ */
