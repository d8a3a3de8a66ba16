/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config_store.c: the configuration in force, and the plugin's formatted
 * logging. No Slurm type here. */
#ifndef FAIRWAY_PLUGIN_CONFIG_STORE_H_
#define FAIRWAY_PLUGIN_CONFIG_STORE_H_

#include "api/fairway_api.h"

/* Makes config the configuration in force, taking over the caller's
 * reference; readers that took the previous one keep it until they unref
 * it. Any thread. */
void fw_config_publish(fw_config_t *config);
/* The configuration in force, as a reference: fw_config_unref it. Never
 * NULL after fw_load_config (fw_host.h). Any thread; no lock. */
fw_config_t *fw_config_get(void);
/* A formatted line through fw_log_line (fw_host.h). */
void fw_log(fw_log_level_t level, const char *format, ...)
	__attribute__((format(printf, 2, 3)));
/* The formatted string (malloc; free it), NULL only out of memory. */
char *fw_format(const char *format, ...) __attribute__((format(printf, 1, 2)));

#endif /* FAIRWAY_PLUGIN_CONFIG_STORE_H_ */
