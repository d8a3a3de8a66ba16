/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lock_witness.c: the check at the top of a function whose contract needs
 * a lock (see locks.h). No Slurm type here. */
#ifndef FAIRWAY_PLUGIN_LOCK_WITNESS_H_
#define FAIRWAY_PLUGIN_LOCK_WITNESS_H_

#include "locks.h"

/* Whether *held has at least the levels asked (FW_NO_LOCK: not needed);
 * when not, says so once per function ("BUG: ...", error level) and
 * returns false. Any thread. */
bool fw_holds(const fw_held_t *held, const char *function, fw_lock_level_t job,
	      fw_lock_level_t part, fw_lock_level_t assoc, fw_lock_level_t qos);
/* At the top of a function: return (with the value given, if any) unless
 * its caller holds what it requires. */
#define FW_REQUIRE(held, job, part, assoc, qos, ...) \
	do { \
		if (!fw_holds((held), __func__, (job), (part), (assoc), \
			      (qos))) \
			return __VA_ARGS__; \
	} while (0)

#endif /* FAIRWAY_PLUGIN_LOCK_WITNESS_H_ */
