/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The configuration in force: an immutable, reference-counted object that
 * a reconfigure replaces. Readers (sprio RPCs, the decay thread, job
 * updates) keep the one they took for as long as they use it, so none sees
 * a half-written configuration (multifactor frees and re-reads its weights
 * in place: priority_p_reconfig in
 * slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
 * Also the plugin's formatted logging. No Slurm header here. */
#define _GNU_SOURCE /* vasprintf */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "config_store.h"
#include "fw_host.h"

/* Guards only the pointer swap and the reference taken: never held while
 * a configuration is used. */
static pthread_mutex_t current_mutex = PTHREAD_MUTEX_INITIALIZER;
static fw_config_t *current = NULL;

void fw_config_publish(fw_config_t *config)
{
	pthread_mutex_lock(&current_mutex);
	fw_config_t *old = current;
	current = config;
	pthread_mutex_unlock(&current_mutex);
	if (old)
		fw_config_unref(old);
}

fw_config_t *fw_config_get(void)
{
	pthread_mutex_lock(&current_mutex);
	if (!current) {
		/* Before init (a client calling in): Slurm's defaults. */
		fw_config_input_t defaults = { .damp_factor = 1 };
		current = fw_config_create(&defaults, fw_log_line, false);
	}
	fw_config_t *config = fw_config_ref(current);
	pthread_mutex_unlock(&current_mutex);
	return config;
}

/* The formatted text (malloc), NULL only out of memory. Whatever length
 * the message needs: a hostile PriorityParameters value can be kilobytes
 * long. */
static char *vformat(const char *format, va_list args)
{
	char *text = NULL;
	if (vasprintf(&text, format, args) < 0)
		text = NULL;
	return text;
}

void fw_log(fw_log_level_t level, const char *format, ...)
{
	va_list args;
	va_start(args, format);
	char *line = vformat(format, args);
	va_end(args);
	if (line)
		fw_log_line(level, line);
	free(line);
}

char *fw_format(const char *format, ...)
{
	va_list args;
	va_start(args, format);
	char *text = vformat(format, args);
	va_end(args);
	return text;
}
