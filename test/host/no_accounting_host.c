/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A process that loads priority_fairway.so with the association manager and
 * no accounting connection (acct_db_conn NULL), the way a test program or a
 * controller whose slurmdbd connection was never made does.
 *
 * Usage: no_accounting_host STATE_DIR PLUGIN_SO [PLUGIN_STATE]
 *   SLURM_CONF names a slurm.conf with AccountingStorageType=slurmdbd (so
 *   init() starts the decay thread). The association manager is loaded from
 *   STATE_DIR's assoc_mgr_state, assoc_mgr_last_tres and, when present,
 *   assoc_usage and qos_usage, as slurmctld loads them when slurmdbd is down
 *   (ctld_assoc_mgr_init in slurm-22-05-8-1:src/slurmctld/controller.c).
 *   The plugin's own state files are written to STATE_DIR too, or, with
 *   PLUGIN_STATE, StateSaveLocation is PLUGIN_STATE once the association
 *   manager is loaded (a path that is not a directory, say): then only
 *   init, one pass's time and fini are checked here, and the caller reads
 *   what the plugin logged (stderr).
 *
 * Asserts: init() succeeds, the first decay pass ends (priority_last_decay_ran
 * appears) within a second, and the process does not crash. With no state
 * at all the first pass decays nothing. With assoc_usage but no decay clock,
 * the usage is as of assoc_usage's save (doc/reliability.md's recovery
 * rule): the first pass decays it over at most the time since then (the
 * file's mtime, which the caller keeps), never more, and adds nothing (no
 * job runs). Prints PASS/FAIL lines and "N passed, M failed"; exits
 * non-zero on any failure.
 *
 * It stands in for slurmctld: ctld_stubs.c defines the slurmctld globals and
 * functions the plugin uses (locks, job and partition lookups), here with an
 * empty job list, and it is linked with -rdynamic so that the plugin binds
 * to them.
 */
#include "config.h"

#include <dlfcn.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "host_slurm.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include "ctld_stubs.h"

/* slurmctld's globals and functions: ctld_stubs.c (acct_db_conn NULL, the
 * point of this program; an empty job list). */

/* ---- the checks --------------------------------------------------------- */
static int passes, failures;

static void check(bool ok, const char *what)
{
	printf("%s: %s\n", ok ? "PASS" : "FAIL", what);
	if (ok)
		passes++;
	else
		failures++;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) +
	       (now.tv_nsec - start->tv_nsec) / 1e9;
}

/* Copies every association's usage_raw into a new array (count in *n). */
static long double *usage_of_all(int *n)
{
	assoc_mgr_lock_t read_assoc = {.assoc = READ_LOCK};
	long double *usage;
	slurmdb_assoc_rec_t *assoc;
	list_itr_t *it;
	int i = 0;

	assoc_mgr_lock(&read_assoc);
	*n = list_count(assoc_mgr_assoc_list);
	usage = xcalloc(*n ? *n : 1, sizeof(*usage));
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((assoc = list_next(it)) && i < *n)
		usage[i++] = assoc->usage->usage_raw;
	list_iterator_destroy(it);
	assoc_mgr_unlock(&read_assoc);
	return usage;
}

int main(int argc, char **argv)
{
	log_options_t log_opts = LOG_OPTS_STDERR_ONLY;
	char *clock_path = NULL, *usage_path = NULL;
	struct stat st;
	struct timespec start;
	long double *before, *after;
	int n_before, n_after, changed = 0, out_of_bounds = 0;
	bool have_usage;
	time_t usage_saved = 0;
	double floor_factor = 1.0;
	double first_pass;
	void *plugin;
	int (*plugin_init)(void);
	int (*plugin_fini)(void);

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: %s STATE_DIR PLUGIN_SO [PLUGIN_STATE]\n", argv[0]);
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0); /* every line out before a crash */
	log_opts.stderr_level = LOG_LEVEL_INFO;
	log_init("no_accounting_host", log_opts, 0, NULL);
	slurm_init(NULL);
	xfree(slurm_conf.state_save_location);
	slurm_conf.state_save_location = xstrdup(argv[1]);
	xstrfmtcat(clock_path, "%s/priority_last_decay_ran", argv[1]);
	check(stat(clock_path, &st) != 0,
	      "no decay clock in the state directory before init");

	ctld_assoc_mgr_init_without_db();
	(void) load_assoc_mgr_last_tres();
	check(load_assoc_mgr_state(false) == SLURM_SUCCESS,
	      "association manager loaded from the state directory");
	(void) load_assoc_usage();
	(void) load_qos_usage();
	check(assoc_mgr_root_assoc != NULL, "the association manager has a root");
	if (!assoc_mgr_root_assoc)
		goto out;
	slurmctld_tres_cnt = g_tres_count;
	job_list = list_create(NULL);
	last_job_update = time(NULL);
	before = usage_of_all(&n_before);
	xstrfmtcat(usage_path, "%s/assoc_usage", argv[1]);
	have_usage = stat(usage_path, &st) == 0;
	if (have_usage) {
		usage_saved = st.st_mtime;
		check(assoc_mgr_root_assoc->usage->usage_raw > 0,
		      "assoc_usage holds usage (so that a decay would show)");
	}

	plugin = dlopen(argv[2], RTLD_LAZY | RTLD_GLOBAL);
	check(plugin != NULL, "the plugin loads");
	if (!plugin) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		goto out;
	}
	plugin_init = (int (*)(void)) dlsym(plugin, "init");
	plugin_fini = (int (*)(void)) dlsym(plugin, "fini");
	if (argc == 4) {
		xfree(slurm_conf.state_save_location);
		slurm_conf.state_save_location = xstrdup(argv[3]);
		check(plugin_init && plugin_init() == SLURM_SUCCESS,
		      "init() succeeds with StateSaveLocation elsewhere");
		sleep(1); /* the first pass: it writes nowhere the caller sees */
		check(plugin_fini && plugin_fini() == SLURM_SUCCESS,
		      "fini() stops the decay thread");
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &start);
	check(plugin_init && plugin_init() == SLURM_SUCCESS, "init() succeeds");

	/* The first pass ends with the decay clock written. */
	while (stat(clock_path, &st) != 0 && seconds_since(&start) < 10.0)
		usleep(2000);
	first_pass = seconds_since(&start);
	printf("first pass ended %.3f s after init\n", first_pass);
	check(stat(clock_path, &st) == 0 && first_pass < 1.0,
	      "the first decay pass ends within a second of init");

	after = usage_of_all(&n_after);
	/* The most decay the time since assoc_usage's save allows (2 s of
	 * slack for the mtime's resolution and the pass itself). */
	if (have_usage && slurm_conf.priority_decay_hl)
		floor_factor = pow(0.5, (double) (time(NULL) - usage_saved + 2) /
					slurm_conf.priority_decay_hl);
	for (int i = 0; i < n_before && i < n_after; i++) {
		if (before[i] != after[i])
			changed++;
		if (after[i] > before[i] || after[i] < before[i] * floor_factor)
			out_of_bounds++;
	}
	printf("%d associations, %d with usage changed by the first pass\n",
	       n_after, changed);
	if (!have_usage)
		check(n_before == n_after && changed == 0,
		      "no decay on the first pass when no state exists");
	else
		check(n_before == n_after && out_of_bounds == 0,
		      "the first pass decays saved usage at most over the time since its save, adds none");
	check(plugin_fini && plugin_fini() == SLURM_SUCCESS,
	      "fini() stops the decay thread");
	xfree(before);
	xfree(after);
out:
	printf("%d passed, %d failed\n", passes, failures);
	xfree(clock_path);
	xfree(usage_path);
	return failures ? 1 : 0;
}
