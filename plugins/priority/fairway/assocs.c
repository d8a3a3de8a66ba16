/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Between assoc_mgr's association and QOS records and the core: the tree
 * copied out for fairshare and the usage bootstrap, the results written
 * back, and usage decayed or reset in place by the core's factor. */
#include "fw_plugin.h"

#include "assocs.h"
#include "fw_prefetch.h"
#include "ledger_file.h"
#include "lock_witness.h"
#include "locks.h"
#include "remote_sync.h"

/* The decay thread's snapshot, reused pass after pass (only that thread
 * takes one). */
static slurmdb_assoc_rec_t **walk_records = NULL;
static fw_assoc_input_t *walk_inputs = NULL;
static size_t walk_capacity = 0;
static slurmdb_assoc_rec_t **listed_records =
	NULL; /* assoc_mgr's list, in order */
static size_t *unreached = NULL; /* positions in listed_records */
static size_t listed_capacity = 0;
static fw_assoc_result_t *results = NULL;
static size_t results_capacity = 0;

struct walk {
	size_t count, limit; /* limit: more than the list holds, a cycle */
};

static int visit_listed(void *assoc, void *arg);

/* Depth-first in children-list order: one read lock per list, taken by
 * list_for_each_ro. A record met twice (not a tree) is passed on as met;
 * the core keeps its first place. */
static void visit(slurmdb_assoc_rec_t *assoc, struct walk *w)
{
	if (w->count >= w->limit)
		return;
	walk_records[w->count++] = assoc;
	if (assoc->usage && assoc->usage->children_list)
		list_for_each_ro(assoc->usage->children_list, visit_listed, w);
}

static int visit_listed(void *assoc, void *arg)
{
	struct walk *w = arg;
	visit(assoc, w);
	return w->count >= w->limit ? -1 : 0;
}

static int append_listed(void *assoc, void *arg)
{
	struct walk *w = arg;
	if (w->count < w->limit && ((slurmdb_assoc_rec_t *) assoc)->usage)
		listed_records[w->count++] = assoc;
	return 0;
}

/* Room for n records (and their inputs) in the reused arrays. */
static void ensure_walk(size_t n)
{
	if (n <= walk_capacity)
		return;
	walk_capacity = n + n / 4;
	xrecalloc(walk_records, walk_capacity, sizeof(*walk_records));
	xrecalloc(walk_inputs, walk_capacity, sizeof(*walk_inputs));
}

/* The records are scattered on the heap: ask for the next ones' lines a
 * few records ahead of the copy. */
FW_PREFETCH_HELPER void prefetch_assoc(const slurmdb_assoc_rec_t *a)
{
	FW_PREFETCH(&a->id);
	FW_PREFETCH(&a->shares_raw);
	FW_PREFETCH(&a->usage);
	if (a->usage) {
		FW_PREFETCH(&a->usage->usage_raw);
		FW_PREFETCH(&a->usage->shares_norm);
	}
}

size_t fw_assocs_snapshot(fw_held_t *held, fw_assoc_input_t **inputs,
			  slurmdb_assoc_rec_t ***records)
{
	FW_REQUIRE(held, FW_NO_LOCK, FW_NO_LOCK, FW_READ_LOCK, FW_NO_LOCK, 0);
	if (!assoc_mgr_root_assoc || !assoc_mgr_assoc_list)
		return 0;
	size_t listed = list_count(assoc_mgr_assoc_list);
	/* The walk, then the listed records it did not reach (orphans; all
	 * of them after a cycle), which the core finds by address: the list
	 * is read for its pointers only, and the records are copied once. */
	ensure_walk(2 * listed + 2);
	if (listed > listed_capacity) {
		listed_capacity = listed + listed / 4;
		xrecalloc(listed_records, listed_capacity,
			  sizeof(*listed_records));
		xrecalloc(unreached, listed_capacity, sizeof(*unreached));
	}
	struct walk w = { .count = 0, .limit = listed + 1 };
	visit(assoc_mgr_root_assoc, &w);
	const size_t reached = w.count;
	struct walk l = { .count = 0, .limit = listed };
	list_for_each_ro(assoc_mgr_assoc_list, append_listed, &l);
	const size_t missed = fw_assocs_unreached(
		(const void *const *) walk_records, reached,
		(const void *const *) listed_records, l.count, unreached);
	for (size_t i = 0; i < missed; i++)
		walk_records[w.count++] = listed_records[unreached[i]];
	for (size_t i = 0; i < w.count; i++) {
		if (i + 8 < w.count)
			prefetch_assoc(walk_records[i + 8]);
		const slurmdb_assoc_rec_t *a = walk_records[i];
		const slurmdb_assoc_usage_t *u = a->usage;
		walk_inputs[i] = (fw_assoc_input_t){
			.key = a,
			.id = a->id,
			.parent_id = u->parent_assoc_ptr ? a->parent_id : 0,
			.parent_key = u->parent_assoc_ptr,
			.listed_only = i >= reached,
			.acct = a->acct ? a->acct : "",
			.user = a->user ? a->user : "",
			.partition = a->partition ? a->partition : "",
			.shares_raw = a->shares_raw,
			.priority = a->priority,
			.usage_raw = u->usage_raw,
			.level_shares = u->level_shares,
			.shares_norm = u->shares_norm,
			.priority_norm = u->priority_norm,
		};
	}
	/* The root's removed children's usage (assoc_mgr keeps it in an
	 * account's leaf_usage): what lies under it besides its children. */
	const slurmdb_assoc_rec_t *root = walk_records[0];
	if (root->leaf_usage && root->leaf_usage != root->usage)
		walk_inputs[0].removed_usage_raw = root->leaf_usage->usage_raw;
	*inputs = walk_inputs;
	*records = walk_records;
	return w.count;
}

/* Requires assoc W. The root's usage_raw and per-TRES usage set to what
 * lies under it (fw_fairshare found it counted twice): the sum of its
 * children's and of its removed children's. The children are the entries
 * whose parent is the root, as fw_fairshare counts them (a listed record
 * the walk missed included: its usage reached the root too). */
static void repair_root_usage(slurmdb_assoc_rec_t **records,
			      const fw_assoc_input_t *in, size_t n,
			      long double usage_raw)
{
	slurmdb_assoc_usage_t *root = records[0]->usage;
	const long double **children = xcalloc(n + 1, sizeof(*children));
	size_t count = 0;
	for (size_t i = 1; i < n; i++) {
		if (in[i].parent_key == records[0])
			children[count++] = records[i]->usage->usage_tres_raw;
	}
	const slurmdb_assoc_usage_t *removed = records[0]->leaf_usage;
	const long double *removed_tres =
		removed && removed != root ? removed->usage_tres_raw : NULL;
	root->usage_raw = usage_raw;
	if (slurmctld_tres_cnt > 0 && root->usage_tres_raw)
		fw_sum_usage_tres(children, count, removed_tres,
				  slurmctld_tres_cnt, root->usage_tres_raw);
	xfree(children);
}

void fw_assocs_fairshare(const fw_config_t *config, time_t now)
{
	const fw_settings_t *s = fw_settings(config);
	if (!s->calc_fairshare)
		return;
	fw_held_t held = { 0 };
	fw_lock(&held, FW_FAIRSHARE);
	fw_assoc_input_t *in;
	slurmdb_assoc_rec_t **records;
	size_t n = fw_assocs_snapshot(&held, &in, &records);
	if (n > results_capacity) {
		results_capacity = walk_capacity;
		xrecalloc(results, results_capacity, sizeof(*results));
	}
	fw_ledger_t *ledger =
		s->mode == FW_MODE_PLANNED_USE ? fw_ledger_acquire() : NULL;
	bool slurm_fair_tree =
		slurm_conf.priority_flags & PRIORITY_FLAGS_FAIR_TREE;
	uint32_t cpus = cluster_cpus == NO_VAL ? 0 : cluster_cpus;
	/* The other clusters' usage (fairshare_clusters), under its mutex,
	 * held until the file of what was added is made, after slurmctld's
	 * locks are released. */
	fw_remote_t *remote =
		s->remote_cluster_cnt ? fw_remote_acquire() : NULL;
	bool computed = n && fw_fairshare_with_remote(
				     config, in, n, slurm_fair_tree, ledger,
				     cpus, remote, time(NULL), results);
	if (ledger)
		fw_ledger_release();
	for (size_t i = 0; computed && i < n; i++) {
		slurmdb_assoc_usage_t *u = records[i]->usage;
		const fw_assoc_result_t *r = &results[i];
		if (r->write_usage) {
			u->usage_norm = r->usage_norm;
			u->usage_efctv = r->usage_efctv;
		}
		if (r->write_level_fs)
			u->level_fs = r->level_fs;
		if (r->write_fs_factor)
			u->fs_factor = r->fs_factor;
	}
	if (computed && results[0].write_usage_raw)
		repair_root_usage(records, in, n, results[0].usage_raw);
	fw_unlock(&held, FW_FAIRSHARE);
	if (remote) {
		fw_remote_prepare_used(remote, config);
		fw_remote_release();
	}
}

/* Association and QOS usage are different types with the same fields. */
#define SCALE_USAGE(u, factor) \
	do { \
		(u)->usage_raw *= (factor); \
		for (int t = 0; t < slurmctld_tres_cnt; t++) \
			(u)->usage_tres_raw[t] *= (factor); \
		(u)->grp_used_wall *= (factor); \
	} while (0)
#define ZERO_USAGE(u) \
	do { \
		(u)->usage_raw = 0; \
		for (int t = 0; t < slurmctld_tres_cnt; t++) \
			(u)->usage_tres_raw[t] = 0; \
		(u)->grp_used_wall = 0; \
	} while (0)

/* Decay reads three allocations per association, cold after a minute:
 * the record, its usage and the usage's TRES array. Listed first, each is
 * asked for a few associations ahead, one allocation per stage. */
FW_PREFETCH_HELPER void prefetch_for_decay(slurmdb_assoc_rec_t **assocs,
					   size_t i, size_t n)
{
	if (i + 12 < n)
		FW_PREFETCH(&assocs[i + 12]->usage);
	if (i + 8 < n) {
		slurmdb_assoc_usage_t *u = assocs[i + 8]->usage;
		__builtin_prefetch(&u->usage_raw, 1);
		__builtin_prefetch(&u->grp_used_wall, 1);
		FW_PREFETCH(&u->usage_tres_raw);
	}
	if (i + 4 < n && assocs[i + 4]->usage->usage_tres_raw)
		__builtin_prefetch(assocs[i + 4]->usage->usage_tres_raw, 1);
}

static int list_into(void *assoc, void *arg)
{
	struct walk *w = arg;
	walk_records[w->count++] = assoc;
	return 0;
}

void fw_assocs_decay(const fw_config_t *config, double factor)
{
	if (!fw_settings(config)->calc_fairshare || factor == 1.0)
		return;
	fw_held_t held = { 0 };
	fw_lock(&held, FW_USAGE_WRITE);
	struct walk w = { 0 };
	ensure_walk(list_count(assoc_mgr_assoc_list));
	list_for_each_ro(assoc_mgr_assoc_list, list_into, &w);
	for (size_t i = 0; i < w.count; i++) {
		prefetch_for_decay(walk_records, i, w.count);
		slurmdb_assoc_rec_t *a = walk_records[i];
		SCALE_USAGE(a->usage, factor);
		if (a->leaf_usage && a->leaf_usage != a->usage)
			SCALE_USAGE(a->leaf_usage, factor);
	}
	list_itr_t *it = list_iterator_create(assoc_mgr_qos_list);
	slurmdb_qos_rec_t *qos;
	while ((qos = list_next(it))) {
		if (!(qos->flags & QOS_FLAG_NO_DECAY))
			SCALE_USAGE(qos->usage, factor);
	}
	list_iterator_destroy(it);
	fw_unlock(&held, FW_USAGE_WRITE);
}

void fw_assocs_reset(const fw_config_t *config)
{
	if (!fw_settings(config)->calc_fairshare)
		return;
	fw_held_t held = { 0 };
	fw_lock(&held, FW_USAGE_WRITE);
	list_itr_t *it = list_iterator_create(assoc_mgr_assoc_list);
	slurmdb_assoc_rec_t *a;
	while ((a = list_next(it))) {
		ZERO_USAGE(a->usage);
		if (a->leaf_usage && a->leaf_usage != a->usage) {
			slurmdb_destroy_assoc_usage(a->leaf_usage);
			a->leaf_usage = NULL;
		}
	}
	list_iterator_destroy(it);
	it = list_iterator_create(assoc_mgr_qos_list);
	slurmdb_qos_rec_t *qos;
	while ((qos = list_next(it)))
		ZERO_USAGE(qos->usage);
	list_iterator_destroy(it);
	fw_unlock(&held, FW_USAGE_WRITE);
	fw_info("usage of every association and QOS was reset (PriorityUsageResetPeriod)");
}

/* Requires assoc R. The core's input for one association: its fairshare
 * parent's values and, in DEPTH_OBLIVIOUS, its fairshare siblings' usage
 * (*siblings: xmalloc'd, the caller frees it). */
static void one_assoc_input(const slurmdb_assoc_rec_t *a,
			    const fw_config_t *config, fw_one_assoc_input_t *in,
			    long double **siblings)
{
	const slurmdb_assoc_rec_t *parent = a->usage->fs_assoc_ptr;
	*siblings = NULL;
	*in = (fw_one_assoc_input_t){
		.usage_raw = a->usage->usage_raw,
		.root_usage_raw = assoc_mgr_root_assoc->usage->usage_raw,
		.has_fs_parent = parent != NULL,
		.self_index = (size_t) -1,
	};
	if (!parent)
		return;
	in->parent_is_root = parent == assoc_mgr_root_assoc;
	in->parent_efctv = parent->usage->usage_efctv;
	in->shares_raw = a->shares_raw;
	in->level_shares = a->usage->level_shares;
	in->shares_norm = a->usage->shares_norm;
	in->parent_shares_norm = parent->usage->shares_norm;
	if (fw_settings(config)->mode != FW_MODE_DEPTH_OBLIVIOUS ||
	    !parent->usage->children_list)
		return;
	*siblings = xcalloc(list_count(parent->usage->children_list) + 1,
			    sizeof(**siblings));
	list_itr_t *it = list_iterator_create(parent->usage->children_list);
	const slurmdb_assoc_rec_t *sibling;
	while ((sibling = list_next(it))) {
		if (!fw_depth_oblivious_sibling(sibling->shares_raw))
			continue;
		if (sibling == a)
			in->self_index = in->sibling_count;
		(*siblings)[in->sibling_count++] = sibling->usage->usage_norm;
	}
	list_iterator_destroy(it);
	in->sibling_usage_norm = *siblings;
}

void fw_assocs_set_fs_factor(slurmdb_assoc_rec_t *assoc,
			     const fw_config_t *config)
{
	const slurmdb_assoc_rec_t *fs_assoc = assoc;
	if (fw_fairshare_from_parent(assoc->shares_raw,
				     assoc->usage->fs_assoc_ptr != NULL))
		fs_assoc = assoc->usage->fs_assoc_ptr;
	assoc->usage->fs_factor = fw_calc_fs_factor(
		fs_assoc->usage->usage_efctv, fs_assoc->usage->shares_norm,
		fw_settings(config)->damp_factor);
}

long double fw_assocs_efctv(fw_held_t *held, const slurmdb_assoc_rec_t *assoc,
			    const fw_config_t *config)
{
	FW_REQUIRE(held, FW_NO_LOCK, FW_NO_LOCK, FW_READ_LOCK, FW_NO_LOCK,
		   assoc->usage->usage_efctv);
	fw_one_assoc_input_t in;
	fw_one_assoc_usage_t out;
	long double *siblings;
	one_assoc_input(assoc, config, &in, &siblings);
	fw_one_assoc_usage(config, &in, &out);
	xfree(siblings);
	return out.has_efctv ? out.usage_efctv : assoc->usage->usage_efctv;
}

/* Slurm calls priority_p_set_assoc_usage when an association's usage_efctv
 * is NO_VAL, holding assoc R (assoc_mgr_get_shares, for sshare) or no
 * assoc lock (job_limits_check): slurm-22-05-8-1:src/common/assoc_mgr.c,
 * slurm-22-05-8-1:src/slurmctld/job_mgr.c. Fairway never leaves
 * usage_efctv at NO_VAL (every pass stores one under assoc W), so it is
 * not called in practice; should it be, writers are serialised here, and
 * readers under the read lock race with the store as with multifactor. */
void fw_assocs_set_usage(slurmdb_assoc_rec_t *assoc, const fw_config_t *config)
{
	static pthread_mutex_t writers = PTHREAD_MUTEX_INITIALIZER;
	if (!assoc || !assoc->usage || !assoc_mgr_root_assoc)
		return;
	fw_one_assoc_input_t in;
	fw_one_assoc_usage_t out;
	long double *siblings;
	slurm_mutex_lock(&writers);
	one_assoc_input(assoc, config, &in, &siblings);
	fw_one_assoc_usage(config, &in, &out);
	assoc->usage->usage_norm = out.usage_norm;
	if (out.has_efctv)
		assoc->usage->usage_efctv = out.usage_efctv;
#if FW_SLURM_AT_LEAST(25, 11, 0) /* sshare copies fs_factor after this call */
	if (!fw_settings(config)->fair_tree_shares)
		fw_assocs_set_fs_factor(assoc, config);
#endif
	slurm_mutex_unlock(&writers);
	xfree(siblings);
}
