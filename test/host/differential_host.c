/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One case of the differential test: a priority plugin's fairshare on a
 * generated association tree, dumped as sshare shows it. Run once with
 * priority_multifactor.so and once with priority_fairway.so on the same
 * arguments, the two dumps must be identical (test/host/differential.sh).
 *
 * Usage: differential_host WORK_DIR PLUGIN_SO SEED MODE DAMP [dup] [settle] [boundary]
 *        differential_host --tree SEED [dup]
 *        differential_host --same-slurm
 *   MODE: fair_tree, classic (PriorityFlags=NO_FAIR_TREE) or
 *   depth_oblivious; DAMP: FairShareDampeningFactor; dup: one user
 *   association carries another's id (diff_tree.h); settle: see below.
 *   WORK_DIR must be empty or hold an earlier case's files only: it
 *   receives slurm.conf, the state files and the plugin's own state.
 *   boundary: instead of the dump, the boundary test (diff_boundary.h):
 *   more kinds of jobs, jobs changed between the pass's gather and store,
 *   and every job's stored priority, array and factors compared with the
 *   plugin's single-job path; exit status 1 when any differs.
 *   --tree prints the tree alone. --same-slurm exits 0 when the Slurm
 *   this program was compiled for is the libslurmfull it runs with (a
 *   build against another release's tree cannot run here).
 *
 * settle, for multifactor outside Fair Tree: its first pass computes
 * accounts' effective usage, and sshare users' lazily, from siblings'
 * usage_norm of earlier passes, which on a first pass were never computed
 * (NO_VAL); Fairway computes every association from one snapshot
 * (doc/differences.md, difference 1). What a controller shows in steady
 * state, after an sshare and a second pass, is what is compared: settle
 * reads the shares once (every user's usage_norm computed), then does
 * what multifactor's next pass does first outside Fair Tree
 * (_set_children_usage_efctv, slurm-22-05-8-1:src/plugins/priority/
 * multifactor/priority_multifactor.c: top-down, each account through
 * priority_g_set_assoc_usage, each user's usage_efctv back to NO_VAL),
 * and only then dumps.
 *
 * Output (stdout): one header line, then one line per association in
 * assoc_mgr's order: id|Account|User|Partition|RawShares|NormShares|
 * RawUsage|NormUsage|EffectvUsage|FairShare|LevelFS, each value printed as
 * `sshare -P` prints it (slurm-22-05-8-1:src/sshare/process.c with
 * src/common/print_fields.c): doubles "%f", blank for NO_VAL and INFINITE,
 * RawUsage as an integer, RawShares "parent" for Fairshare=parent; FairShare
 * is the association's fs_factor in Fair Tree (blank for accounts), and
 * outside it priority_g_calc_fs_factor(EffectvUsage, NormShares) computed
 * in this process, as sshare computes it; LevelFS is blank for
 * Fairshare=parent. Then, except in depth_oblivious mode, the generated
 * pending jobs' sprio rows (diff_jobs.h): multifactor's DEPTH_OBLIVIOUS
 * job priorities on a first pass come from the never-computed siblings
 * settle repairs for sshare only (doc/differences.md, difference 1).
 * Exit status 0 once the dump is written; 1 when the plugin did not start
 * or its first decay pass did not end in 10 s.
 *
 * How the association tree gets into assoc_mgr, and why this way: the
 * tree is written as the state files a controller saves (last_tres,
 * assoc_mgr_state, assoc_usage; diff_state.c, packed by Slurm's own
 * functions) and loaded with load_assoc_mgr_last_tres, load_assoc_mgr_state
 * and load_assoc_usage after assoc_mgr_init with no database, which is
 * what slurmctld does when slurmdbd is down (ctld_assoc_mgr_init in
 * slurm-22-05-8-1:src/slurmctld/controller.c). That path runs assoc_mgr's
 * own _post_assoc_list (parent and fairshare-parent pointers, children
 * lists, level shares, shares_norm by the configured mode, the sort) and
 * its own usage roll-up, so both plugins meet the structures a controller
 * would hand them. It also keeps a record whose id is duplicated, as a
 * controller's saved state can; assoc_mgr_update's SLURMDB_ADD_ASSOC path
 * (assoc_mgr_update_assocs) finds a second record with a known id and
 * skips it, and adds nothing while assoc_mgr holds no list at all.
 *
 * The plugin is loaded by Slurm's own loader (priority_g_init, which
 * dlopens PluginDir/priority_NAME.so, NAME from PLUGIN_SO's file name),
 * not by a dlopen of ours: assoc_mgr_get_shares calls
 * priority_g_set_assoc_usage and sshare calls priority_g_calc_fs_factor
 * through that generic layer, so the plugin has to be the one it loaded.
 * Its init() starts the decay thread (this program defines slurmctld's
 * globals, ctld_stubs.c). The decay clock priority_last_decay_ran is
 * written 100 s back first: without one, multifactor's first pass outside
 * Fair Tree computes no job priority (it skips to the clock's write). With
 * PriorityDecayHalfLife=0 and no running job, that pass decays and charges
 * nothing in either plugin and computes fairshare and priorities; it ends
 * when the clock is rewritten, and then the shares and jobs are read.
 */
#include "config.h"

#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ctld_stubs.h"
#include "diff_boundary.h"
#include "diff_jobs.h"
#include "diff_state.h"
#include "diff_tree.h"

#include "host_slurm.h"
#include "src/common/node_conf.h"

#ifndef DIFF_SLURM_PLUGIN_DIR /* Makefile.am: where libslurmfull is */
#define DIFF_SLURM_PLUGIN_DIR "/usr/lib/x86_64-linux-gnu/slurm-wlm"
#endif

/* The mode's PriorityFlags name ("" for Fair Tree, 22.05's default), or
 * NULL for an unknown mode. */
static const char *mode_flag(const char *mode)
{
	if (!strcmp(mode, "fair_tree"))
		return "";
	if (!strcmp(mode, "classic"))
		return "NO_FAIR_TREE";
	if (!strcmp(mode, "depth_oblivious"))
		return "DEPTH_OBLIVIOUS";
	return NULL;
}

/* The job factors' settings, drawn from the seed (a stream of its own):
 * each of the flags that change a job factor in 1 seed of 4, favouring
 * small jobs in 1 of 2. Fairshare is not affected by any of them. */
static void draw_job_settings(uint64_t seed, char *flags, size_t size, bool *favor_small)
{
	static const char *const names[] = {"SMALL_RELATIVE_TO_TIME", "MAX_TRES",
					    "NO_NORMAL_ASSOC", "NO_NORMAL_PART",
					    "NO_NORMAL_QOS", "NO_NORMAL_TRES",
					    "ACCRUE_ALWAYS", "INCR_ONLY"};
	uint64_t r = seed * 0x9e3779b97f4a7c15ULL + 0x7365747473ULL;
	r ^= r >> 29;
	r *= 0xbf58476d1ce4e5b9ULL;
	r ^= r >> 32;
	flags[0] = '\0';
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (((r >> (2 * i)) & 3) == 0)
			snprintf(flags + strlen(flags), size - strlen(flags), ",%s", names[i]);
	*favor_small = (r >> 20) & 1;
}

/* slurm.conf for the case; PluginDir: the plugin's own directory first,
 * then the system's (site_factor/none, auth). No decay
 * (PriorityDecayHalfLife=0, so a reset period is required; the next yearly
 * one is months away): neither plugin decays on its first pass from a
 * state without a decay clock in principle, but Fairway decays restored
 * usage over the time since assoc_usage was saved (doc/reliability.md),
 * and a second ticking between its init and its first pass would show in
 * RawUsage. Decay is not what this test compares. Every job factor has a
 * weight; PriorityWeightJobSize needs node_record_count (set in main). */
static int write_conf(const char *dir, const char *plugin_dir, const char *type,
		      const char *mode, const char *damp, uint64_t seed, char **path)
{
	char flags[256], line[300] = "";
	bool favor_small;
	draw_job_settings(seed, flags, sizeof(flags), &favor_small);
	/* "PriorityFlags=" alone is a parse error: no line for Fair Tree alone */
	const char *all = mode_flag(mode)[0] ? flags : flags + (flags[0] == ',');
	if (mode_flag(mode)[0] || all[0])
		snprintf(line, sizeof(line), "PriorityFlags=%s%s\n", mode_flag(mode), all);
	*path = xstrdup_printf("%s/slurm.conf", dir);
	FILE *f = fopen(*path, "w");
	if (!f) {
		perror(*path);
		return -1;
	}
	fprintf(f,
		"ClusterName=difftest\n"
		"SlurmctldHost=localhost\n"
		"AuthType=auth/none\n"
		"CredType=cred/none\n"
		"PluginDir=%s:%s\n"
		"StateSaveLocation=%s\n"
		"AccountingStorageType=accounting_storage/slurmdbd\n"
		"PriorityType=%s\n%s"
		"FairShareDampeningFactor=%s\n"
		"PriorityWeightFairshare=100000\n"
		"PriorityWeightAge=1000\n"
		"PriorityWeightAssoc=2000\n"
		"PriorityWeightJobSize=3000\n"
		"PriorityWeightPartition=1000\n"
		"PriorityWeightQOS=5000\n"
		"PriorityWeightTRES=CPU=1000,Mem=2000\n"
		"PriorityFavorSmall=%s\n"
		"PriorityMaxAge=7-0\n"
		"PriorityDecayHalfLife=0\n"
		"PriorityUsageResetPeriod=YEARLY\n"
		"PriorityCalcPeriod=5\n"
		"NodeName=n1 CPUs=2\n"
		"PartitionName=p1 Nodes=n1 Default=YES\n",
		plugin_dir, DIFF_SLURM_PLUGIN_DIR, dir, type, line, damp,
		favor_small ? "YES" : "NO");
	fclose(f);
	return 0;
}

/* print_fields_double's value or blank (parsable output). */
static void put_double(double v)
{
	if (v == (double) NO_VAL64 || v == (double) INFINITE64 || v == (double) NO_VAL ||
	    v == (double) INFINITE)
		printf("|");
	else
		printf("|%f", v);
}

static void dump_shares(void)
{
	shares_request_msg_t req;
	shares_response_msg_t resp;
	/* sshare's FairShare: the stored fs_factor in Fair Tree, and from
	 * 25.11 in every mode (slurm-25-11-7-1:src/sshare/process.c) */
#if HOST_SLURM_AT_LEAST(25, 11, 0)
	bool stored_fs = true;
#else
	bool stored_fs = slurm_conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE;
#endif

	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	assoc_mgr_get_shares(NULL, 0, &req, &resp);
	printf("id|Account|User|Partition|RawShares|NormShares|RawUsage|NormUsage|"
	       "EffectvUsage|FairShare|LevelFS\n");
	if (!resp.assoc_shares_list)
		return;
	list_itr_t *it = list_iterator_create(resp.assoc_shares_list);
	assoc_shares_object_t *s;
	while ((s = list_next(it))) {
		printf("%u|%s|%s|%s", s->assoc_id, s->user ? s->parent : s->name,
		       s->user ? s->name : "", s->partition ? s->partition : "");
		if (s->shares_raw == SLURMDB_FS_USE_PARENT)
			printf("|parent");
		else if (s->shares_raw == NO_VAL || s->shares_raw == INFINITE)
			printf("|");
		else
			printf("|%u", s->shares_raw);
		put_double(s->shares_norm);
		if (s->usage_raw == NO_VAL64 || s->usage_raw == INFINITE64)
			printf("|");
		else
			printf("|%llu", (unsigned long long) s->usage_raw);
		put_double(s->usage_norm);
		put_double(s->usage_efctv);
		if (stored_fs) {
			if (s->user)
				put_double(s->fs_factor);
			else
				printf("|");
		} else {
#if !HOST_SLURM_AT_LEAST(25, 11, 0)
			put_double(priority_g_calc_fs_factor((long double) s->usage_efctv,
							     (long double) s->shares_norm));
#endif
		}
		if (s->shares_raw == SLURMDB_FS_USE_PARENT)
			printf("|");
		else
			put_double((double) s->level_fs);
		printf("\n");
	}
	list_iterator_destroy(it);
	FREE_NULL_LIST(resp.assoc_shares_list);
}

/* multifactor's _set_children_usage_efctv, through the generic layer;
 * assoc W held. */
static void recompute_children(list_t *children)
{
	if (!children)
		return;
	list_itr_t *it = list_iterator_create(children);
	slurmdb_assoc_rec_t *a;
	while ((a = list_next(it))) {
		if (a->user) {
			a->usage->usage_efctv = (long double) NO_VAL;
			continue;
		}
		priority_g_set_assoc_usage(a);
		recompute_children(a->usage->children_list);
	}
	list_iterator_destroy(it);
}

static void settle(void)
{
	shares_request_msg_t req;
	shares_response_msg_t resp;
	assoc_mgr_lock_t write_assoc = {.assoc = WRITE_LOCK};

	memset(&req, 0, sizeof(req));
	memset(&resp, 0, sizeof(resp));
	assoc_mgr_get_shares(NULL, 0, &req, &resp); /* an sshare between passes */
	FREE_NULL_LIST(resp.assoc_shares_list);
	assoc_mgr_lock(&write_assoc);
	recompute_children(assoc_mgr_root_assoc->usage->children_list);
	assoc_mgr_unlock(&write_assoc);
}

/* multifactor's 16 bytes (last_ran, last_reset), both `ago` s back. */
static time_t write_clock(const char *path, time_t ago)
{
	time_t then = time(NULL) - ago;
	buf_t *buffer = init_buf(16);
	pack_time(then, buffer);
	pack_time(then, buffer);
	FILE *f = fopen(path, "w");
	if (!f || fwrite(get_buf_data(buffer), 1, get_buf_offset(buffer), f) != 16)
		perror(path);
	if (f)
		fclose(f);
	free_buf(buffer);
	return then;
}

/* The clock's last_ran, or -1 while it cannot be read. */
static time_t read_clock(const char *path)
{
	unsigned char b[8];
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	size_t n = fread(b, 1, sizeof(b), f);
	fclose(f);
	if (n != sizeof(b))
		return -1;
	uint64_t v = 0;
	for (int i = 0; i < 8; i++)
		v = (v << 8) | b[i];
	return (time_t) v;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	log_options_t log_opts = LOG_OPTS_STDERR_ONLY;
	struct timespec start;

	if (argc == 2 && !strcmp(argv[1], "--same-slurm")) {
		/* The API version changes with every major release. */
		long runtime = slurm_api_version();
		printf("compiled for Slurm %s (API 0x%lx), running with API 0x%lx\n",
		       SLURM_VERSION_STRING, (long) SLURM_API_VERSION, runtime);
		return runtime == (long) SLURM_API_VERSION ? 0 : 1;
	}
	if (argc >= 3 && !strcmp(argv[1], "--tree")) {
		diff_tree_t *t = diff_tree_generate(strtoull(argv[2], NULL, 10),
						    argc > 3 && !strcmp(argv[3], "dup"));
		diff_tree_print(t, stdout);
		diff_tree_free(t);
		return 0;
	}
	if (argc < 6 || argc > 9 || !mode_flag(argv[4])) {
		fprintf(stderr,
			"usage: %s WORK_DIR PLUGIN_SO SEED fair_tree|classic|depth_oblivious DAMP [dup] [settle] [boundary]\n"
			"       %s --tree SEED [dup]\n",
			argv[0], argv[0]);
		return 2;
	}
	const char *dir = argv[1];
	bool dup = false, settled = false, boundary = false;
	for (int i = 6; i < argc; i++) {
		dup |= !strcmp(argv[i], "dup");
		settled |= !strcmp(argv[i], "settle");
		boundary |= !strcmp(argv[i], "boundary");
	}
	diff_tree_t *tree = diff_tree_generate(strtoull(argv[3], NULL, 10), dup);

	/* PLUGIN_SO = DIR/priority_NAME.so: PriorityType=priority/NAME. */
	char *so_copy = xstrdup(argv[2]), *base_copy = xstrdup(argv[2]);
	const char *plugin_dir = dirname(so_copy), *base = basename(base_copy);
	char *type = NULL;
	if (strncmp(base, "priority_", 9) || strlen(base) < 13 ||
	    strcmp(base + strlen(base) - 3, ".so")) {
		fprintf(stderr, "%s: not a priority_NAME.so\n", argv[2]);
		return 2;
	}
	xstrfmtcat(type, "priority/%.*s", (int) (strlen(base) - 12), base + 9);

	char *conf = NULL, *clock_path = NULL;
	if (write_conf(dir, plugin_dir, type, argv[4], argv[5], tree->seed, &conf))
		return 2;
	xstrfmtcat(clock_path, "%s/priority_last_decay_ran", dir);
	setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	log_opts.stderr_level = LOG_LEVEL_ERROR;
	log_init("differential_host", log_opts, 0, NULL);
	setenv("SLURM_CONF", conf, 1);
	slurm_init(conf);
	if (diff_state_write(tree, dir, slurm_conf.cluster_name))
		return 2;

	ctld_assoc_mgr_init_without_db();
	if (load_assoc_mgr_last_tres() != SLURM_SUCCESS ||
#if HOST_SLURM_AT_LEAST(24, 11, 0)
	    load_assoc_mgr_state() != SLURM_SUCCESS
#else
	    load_assoc_mgr_state(false) != SLURM_SUCCESS
#endif
 || !assoc_mgr_root_assoc) {
		fprintf(stderr, "the association manager did not load the generated state\n");
		return 2;
	}
	(void) load_assoc_usage();
	slurmctld_tres_cnt = g_tres_count;
	node_record_count = 1; /* slurmctld's, from NodeName=n1 */
#if HOST_SLURM_AT_LEAST(23, 2, 0)
	active_node_record_count = 1; /* the job-size factor's from 23.02 */
#endif
	job_list = list_create(NULL); /* slurmctld frees jobs itself */
	diff_jobs_create(tree->seed, job_list);
	if (boundary) {
		diff_boundary_add_jobs(tree->seed, job_list);
		diff_boundary_arm(tree->seed); /* before the thread can start */
	}
	last_job_update = time(NULL);

	time_t written = write_clock(clock_path, 100);
	clock_gettime(CLOCK_MONOTONIC, &start);
	if (priority_g_init() != SLURM_SUCCESS) {
		fprintf(stderr, "%s did not start\n", type);
		return 1;
	}
	/* What slurmctld does next, by release (controller.c, job_mgr.c's
	 * sync_job_priorities): from 23.02 init() comes before the jobs are
	 * loaded and priority_g_recover after, with no lock held; from
	 * 23.11.6 the decay thread starts in priority_g_thread_start. */
#if HOST_SLURM_AT_LEAST(23, 2, 0)
	(void) priority_g_recover(0);
#endif
#if HOST_SLURM_AT_LEAST(23, 11, 6)
	priority_g_thread_start();
#endif
	/* -1: between the unlink and the link of the clock's rewrite */
	time_t last_ran;
	while (((last_ran = read_clock(clock_path)) == written || last_ran == -1) &&
	       seconds_since(&start) < 10.0)
		usleep(500);
	if (last_ran == written || last_ran == -1) {
		fprintf(stderr, "%s: no decay pass ended within 10 s\n", type);
		return 1;
	}
	if (boundary) {
		int failed = diff_boundary_check();
		fflush(stdout);
		priority_g_fini();
		return failed ? 1 : 0;
	}
	if (settled)
		settle();
	dump_shares();
	if (strcmp(argv[4], "depth_oblivious"))
		diff_jobs_dump();
	fflush(stdout);
	priority_g_fini();
	diff_tree_free(tree);
	xfree(so_copy);
	xfree(base_copy);
	xfree(type);
	xfree(conf);
	xfree(clock_path);
	return 0;
}
