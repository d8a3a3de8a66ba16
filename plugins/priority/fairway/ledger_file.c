/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The planned-use ledger, behind one mutex (the decay thread and job-end
 * charges share it), and its state file StateSaveLocation/fairway_planned_use
 * (checksummed by the core, written by state_files.c). Missing: an empty
 * ledger; damaged: set aside, .old tried, the controller keeps running. The
 * lines logged here are grepped for by the tests: keep them word for word. */
#define _GNU_SOURCE /* asprintf */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "ledger_file.h"
#include "config_store.h"
#include "state_files.h"

#include <sys/stat.h>

#define FW_LEDGER_FILE "fairway_planned_use"

static pthread_mutex_t ledger_mutex = PTHREAD_MUTEX_INITIALIZER;
static fw_ledger_t
	*ledger; /* created at first use, kept until the process exits */
static bool loaded; /* under ledger_mutex */

fw_ledger_t *fw_ledger_acquire(void)
{
	pthread_mutex_lock(&ledger_mutex);
	if (!ledger)
		ledger = fw_ledger_create();
	return ledger;
}

void fw_ledger_release(void)
{
	pthread_mutex_unlock(&ledger_mutex);
}

/* Requires the ledger. Replaces it by StateSaveLocation/<file><suffix>;
 * UNREADABLE covers a file that does not parse, with *why (xfree it). */
static fw_read_t try_load(const char *suffix, char **why)
{
	char *bytes = NULL, *parse_why = NULL,
	     *path = fw_state_path(FW_LEDGER_FILE, suffix);
	size_t length = 0;
	struct stat st;
	/* The file is written after each pass's charges: its mtime is when the
   * ledger was last charged. */
	const int64_t charged_until = stat(path, &st) == 0 ? st.st_mtime : 0;
	fw_read_t result =
		fw_state_read(FW_LEDGER_FILE, suffix, &bytes, &length, why);
	if (result == FW_READ_MISSING)
		*why = fw_format("missing");
	if (result == FW_READ_OK &&
	    !fw_ledger_parse(ledger, bytes, length, charged_until,
			     &parse_why)) {
		*why = fw_format("%s", parse_why ? parse_why : "unreadable");
		free(parse_why); /* the core's malloc */
		result = FW_READ_UNREADABLE;
	}
	free(bytes);
	free(path);
	return result;
}

/* Requires the ledger: the file, else its previous copy, else empty. */
static void load(void)
{
	char *why = NULL, *old_why = NULL,
	     *path = fw_state_path(FW_LEDGER_FILE, ""),
	     *old_path = fw_state_path(FW_LEDGER_FILE, ".old");
	fw_read_t result = try_load("", &why);
	if (result == FW_READ_OK) {
		fw_log(FW_LOG_INFO,
		       "planned use: ledger of %zu associations restored from %s",
		       fw_ledger_entries(ledger), path);
	} else if (result == FW_READ_MISSING) {
		/* Deleted while its previous copy is there: that copy is the ledger
     * (a first start has neither). */
		if (try_load(".old", &old_why) == FW_READ_OK)
			fw_log(FW_LOG_ERROR,
			       "planned use: state file %s is missing; ledger restored from %s (usage since "
			       "its last write is lost)",
			       path, old_path);
		else
			fw_log(FW_LOG_INFO,
			       "planned use: no ledger (%s) to recover; starting empty",
			       path);
	} else {
		fw_log(FW_LOG_ERROR,
		       "planned use: state file %s is damaged (%s); kept as %s.damaged, trying %s",
		       path, why, path, old_path);
		fw_state_set_aside(FW_LEDGER_FILE);
		if (try_load(".old", &old_why) == FW_READ_OK)
			fw_log(FW_LOG_ERROR,
			       "planned use: ledger restored from %s (usage since its last write is lost)",
			       old_path);
		else
			fw_log(FW_LOG_ERROR,
			       "planned use: no usable previous copy (%s); the ledger starts empty",
			       old_why);
	}
	free(why);
	free(old_why);
	free(path);
	free(old_path);
}

void fw_ledger_load_once(void)
{
	fw_ledger_acquire();
	if (!loaded)
		load(); /* else loaded already, or replaced by the bootstrap */
	loaded = true;
	fw_ledger_release();
}

void fw_ledger_save(void)
{
	size_t length = 0;
	char *bytes = fw_ledger_serialize(fw_ledger_acquire(), &length);
	fw_ledger_release();
	/* Written outside the mutex: a charge at job end does not wait on the disk. */
	fw_state_write(FW_LEDGER_FILE, bytes, length);
	free(bytes); /* the core's malloc */
}

void fw_ledger_mark_loaded(void)
{
	fw_ledger_acquire();
	loaded = true;
	fw_ledger_release();
}
