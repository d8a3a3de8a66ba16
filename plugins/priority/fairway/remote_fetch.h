/* SPDX-License-Identifier: GPL-2.0-or-later */
/* remote_fetch.c: one sync of one other cluster from slurmdbd. No Slurm
 * type here. */
#ifndef FAIRWAY_PLUGIN_REMOTE_FETCH_H_
#define FAIRWAY_PLUGIN_REMOTE_FETCH_H_

#include <stdbool.h>

#include "api/fairway_api.h"

/* Asks slurmdbd for cluster's associations and jobs since
 * fw_remote_fetch_since and charges them (fw_remote_sync), logging what it
 * charged; false, with nothing changed, when there is no accounting
 * connection or slurmdbd did not answer. Requires no lock (takes the
 * remote mutex itself, never while it waits on slurmdbd). */
bool fw_remote_sync_cluster(const fw_config_t *config, const char *cluster);

#endif /* FAIRWAY_PLUGIN_REMOTE_FETCH_H_ */
