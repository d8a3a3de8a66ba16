/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The seeded association-tree generator of the differential test
 * (diff_tree.h states the contract). Every seed draws its own shape (depth
 * 1-7, up to 14 children per account, up to 400 records), so that a few
 * hundred seeds cover flat and deep, narrow and wide trees, and each draws
 * the corner cases multifactor and Fairway must agree on: zero shares,
 * Fairshare=parent users and sub-accounts, zero usage (of a user, and of
 * the whole cluster in 5 % of the seeds), usage equal to a sibling's or a
 * cousin's (ties), usage up to 10^15, accounts with no children, usage
 * left on an account or on root by deleted children, the same user in several
 * accounts and with per-partition associations, siblings in an order
 * other than their names'.
 */
#include "diff_tree.h"

#include <stdlib.h>
#include <string.h>

/* splitmix64: small, and the same sequence everywhere. */
static uint64_t next(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static uint32_t below(uint64_t *state, uint32_t n)
{
	return n ? (uint32_t) (next(state) % n) : 0;
}

static bool chance(uint64_t *state, uint32_t percent)
{
	return below(state, 100) < percent;
}

typedef struct {
	uint64_t rng;
	diff_tree_t *tree;
	int capacity;
	int max_depth, width, user_percent, zero_percent, parent_percent;
	int users_in_pool, next_user, next_acct;
	bool no_usage; /* the whole cluster: root's usage 0 */
	long double tie_pool[3];
} gen_t;

static uint32_t draw_shares(gen_t *g)
{
	static const uint32_t common[] = {1, 1, 1, 2, 3, 4, 5, 10, 50, 100};
	if (chance(&g->rng, g->zero_percent))
		return 0;
	if (chance(&g->rng, g->parent_percent))
		return DIFF_SHARES_PARENT;
	return common[below(&g->rng, sizeof(common) / sizeof(common[0]))];
}

/* Zero, one of three values shared across the tree (ties), or anything
 * from a fraction of a second to about 10^7 CPU-seconds. */
static long double draw_usage(gen_t *g)
{
	uint32_t kind = below(&g->rng, 100);
	if (g->no_usage || kind < 25)
		return 0;
	if (kind < 55)
		return g->tie_pool[below(&g->rng, 3)];
	if (kind < 58) /* years of a large cluster */
		return (long double) (next(&g->rng) % 1000000000000000ULL) +
		       (long double) below(&g->rng, 1000) / 1000.0L;
	return (long double) below(&g->rng, 10000000) +
	       (long double) below(&g->rng, 1000) / 1000.0L;
}

static int add(gen_t *g, int parent, int depth)
{
	diff_tree_t *t = g->tree;
	if (t->count >= g->capacity)
		return -1;
	diff_assoc_t *a = &t->assocs[t->count];
	memset(a, 0, sizeof(*a));
	a->parent = parent;
	a->depth = depth;
	/* the association factor's input: mostly unset, as at most sites */
	a->priority = chance(&g->rng, 75) ? DIFF_PRIORITY_UNSET : below(&g->rng, 101);
	return t->count++;
}

static void grow(gen_t *g, int acct, int depth);

static void add_user(gen_t *g, int acct, int depth, int *used, int n_used)
{
	diff_tree_t *t = g->tree;
	/* A user name not yet in this account. */
	int u = 0;
	for (int tries = 0; tries < 4 * g->users_in_pool; tries++) {
		u = (g->next_user++) % g->users_in_pool;
		bool taken = false;
		for (int k = 0; k < n_used; k++)
			taken |= used[k] == u;
		if (!taken)
			break;
	}
	used[n_used] = u;
	int partitions = chance(&g->rng, 8) ? 2 : 1; /* one record per partition */
	for (int p = 0; p < partitions; p++) {
		int i = add(g, acct, depth);
		if (i < 0)
			return;
		diff_assoc_t *a = &t->assocs[i];
		memcpy(a->acct, t->assocs[acct].acct, sizeof(a->acct));
		snprintf(a->user, sizeof(a->user), "u%03d", u);
		if (partitions > 1)
			snprintf(a->partition, sizeof(a->partition), "p%d", (p + 1) % 10);
		a->shares = draw_shares(g);
		a->usage = draw_usage(g);
		a->has_usage = !chance(&g->rng, 10) || a->usage != 0; /* a user with no job */
	}
}

/* Children of account `acct`, depth-first. */
static void grow(gen_t *g, int acct, int depth)
{
	diff_tree_t *t = g->tree;
	int n = (int) below(&g->rng, (uint32_t) g->width + 1);
	if (acct == 0 && n == 0)
		n = 1;
	int used[64];
	int n_used = 0;
	for (int c = 0; c < n && c < 64 && t->count < g->capacity; c++) {
		bool user = depth >= g->max_depth || chance(&g->rng, g->user_percent);
		if (user) {
			add_user(g, acct, depth, used, n_used);
			n_used++;
			continue;
		}
		int i = add(g, acct, depth);
		if (i < 0)
			return;
		diff_assoc_t *a = &t->assocs[i];
		snprintf(a->acct, sizeof(a->acct), "a%03d", g->next_acct++);
		a->shares = draw_shares(g);
		if (chance(&g->rng, 5)) { /* usage of deleted children */
			a->usage = draw_usage(g);
			a->has_usage = true;
		}
		grow(g, i, depth + 1);
	}
}

/* Nested-set numbers, depth-first, siblings in a shuffled order: in
 * slurmdbd, lft follows creation, not names, so assoc_mgr's children
 * lists (lft order) differ from sshare's rows (sorted by name), and Fair
 * Tree's ties are broken by the children lists' order. */
static uint32_t number(gen_t *g, int i, uint32_t next_lft)
{
	diff_tree_t *t = g->tree;
	int children[512], n = 0;
	t->assocs[i].lft = next_lft++;
	for (int c = i + 1; c < t->count && n < 512; c++)
		if (t->assocs[c].parent == i)
			children[n++] = c;
	for (int k = n - 1; k > 0; k--) {
		int j = (int) below(&g->rng, (uint32_t) k + 1), tmp = children[k];
		children[k] = children[j];
		children[j] = tmp;
	}
	for (int k = 0; k < n; k++)
		next_lft = number(g, children[k], next_lft);
	t->assocs[i].rgt = next_lft++;
	return next_lft;
}

static int by_lft(const void *a, const void *b)
{
	const diff_assoc_t *x = a, *y = b;
	return x->lft < y->lft ? -1 : x->lft > y->lft;
}

/* The records in lft order (slurmdbd's), parents' indices renumbered. */
static void sort_by_lft(diff_tree_t *t)
{
	int *new_index = malloc(sizeof(int) * (size_t) t->count);
	/* the old index through the sort, in parent_id (set afterwards) */
	for (int i = 0; i < t->count; i++)
		t->assocs[i].parent_id = (uint32_t) i;
	qsort(t->assocs, (size_t) t->count, sizeof(diff_assoc_t), by_lft);
	for (int i = 0; i < t->count; i++)
		new_index[t->assocs[i].parent_id] = i;
	for (int i = 0; i < t->count; i++)
		if (t->assocs[i].parent >= 0)
			t->assocs[i].parent = new_index[t->assocs[i].parent];
	free(new_index);
}

diff_tree_t *diff_tree_generate(uint64_t seed, bool dup)
{
	gen_t g = {.rng = seed};
	diff_tree_t *t = calloc(1, sizeof(*t));
	t->seed = seed;
	t->duplicated = t->duplicate_of = -1;
	g.tree = t;
	g.capacity = 8 + (int) below(&g.rng, 393);
	/* two records more than the shape may fill: users for a duplicate */
	t->assocs = calloc((size_t) g.capacity + 2, sizeof(diff_assoc_t));
	g.max_depth = 1 + (int) below(&g.rng, 7);
	g.width = 1 + (int) below(&g.rng, 14);
	g.user_percent = 30 + (int) below(&g.rng, 51);
	g.zero_percent = (int) below(&g.rng, 15);
	g.parent_percent = (int) below(&g.rng, 20);
	g.users_in_pool = g.width + 1 + (int) below(&g.rng, 20);
	for (int k = 0; k < 3; k++)
		g.tie_pool[k] = (long double) (1 + below(&g.rng, 100000));
	g.no_usage = chance(&g.rng, 5);

	int root = add(&g, -1, 0);
	snprintf(t->assocs[root].acct, sizeof(t->assocs[root].acct), "root");
	t->assocs[root].shares = 1;
	if (chance(&g.rng, 8)) { /* usage of deleted users directly under root */
		t->assocs[root].usage = draw_usage(&g);
		t->assocs[root].has_usage = true;
	}
	if (chance(&g.rng, 50)) { /* slurmdbd's user root in account root */
		int r = add(&g, root, 1);
		snprintf(t->assocs[r].acct, sizeof(t->assocs[r].acct), "root");
		snprintf(t->assocs[r].user, sizeof(t->assocs[r].user), "root");
		t->assocs[r].shares = 1;
	}
	grow(&g, root, 1);
	if (dup) { /* a duplicate needs two user records: add them under root */
		int users = 0;
		for (int i = 0; i < t->count; i++)
			users += t->assocs[i].user[0] != 0;
		g.capacity += 2;
		for (int used[2] = {-1, -1}; users < 2; users++)
			add_user(&g, root, 1, used, 0);
	}
	number(&g, root, 1);
	sort_by_lft(t);

	/* Ids in creation order, which is not the tree's order: a shuffle. */
	uint32_t *ids = malloc(sizeof(uint32_t) * (size_t) t->count);
	for (int i = 0; i < t->count; i++)
		ids[i] = (uint32_t) i + 1;
	for (int i = t->count - 1; i > 1; i--) { /* root keeps id 1 */
		int j = 1 + (int) below(&g.rng, (uint32_t) i);
		uint32_t tmp = ids[i];
		ids[i] = ids[j];
		ids[j] = tmp;
	}
	for (int i = 0; i < t->count; i++)
		t->assocs[i].id = ids[i];
	free(ids);

	if (dup) { /* a later user record takes an earlier user's id */
		int users[2] = {-1, -1}, found = 0;
		int start = (int) below(&g.rng, (uint32_t) t->count);
		for (int k = 0; k < t->count && found < 2; k++) {
			int i = (start + k) % t->count;
			if (t->assocs[i].user[0])
				users[found++] = i;
		}
		if (found == 2) {
			t->duplicated = users[0] > users[1] ? users[0] : users[1];
			t->duplicate_of = users[0] > users[1] ? users[1] : users[0];
			t->assocs[t->duplicated].id = t->assocs[t->duplicate_of].id;
		}
	}
	for (int i = 0; i < t->count; i++)
		t->assocs[i].parent_id =
			t->assocs[i].parent < 0 ? 0 : t->assocs[t->assocs[i].parent].id;
	return t;
}

void diff_tree_print(const diff_tree_t *t, FILE *out)
{
	fprintf(out, "tree of seed %llu: %d associations", (unsigned long long) t->seed,
		t->count);
	if (t->duplicated >= 0)
		fprintf(out, ", id %u twice", t->assocs[t->duplicated].id);
	fprintf(out, "\n");
	for (int i = 0; i < t->count; i++) {
		const diff_assoc_t *a = &t->assocs[i];
		char shares[16];
		if (a->shares == DIFF_SHARES_PARENT)
			snprintf(shares, sizeof(shares), "parent");
		else
			snprintf(shares, sizeof(shares), "%u", a->shares);
		fprintf(out, "%*s%s%s%s%s%s id=%u parent=%u shares=%s", 2 * a->depth, "",
			a->user[0] ? "user " : "account ", a->user[0] ? a->user : a->acct,
			a->partition[0] ? " partition " : "", a->partition,
			a->user[0] ? "" : "", a->id, a->parent_id, shares);
		if (a->priority != DIFF_PRIORITY_UNSET)
			fprintf(out, " priority=%u", a->priority);
		if (a->has_usage)
			fprintf(out, " usage=%.3Lf", a->usage);
		fprintf(out, "\n");
	}
}

void diff_tree_free(diff_tree_t *t)
{
	if (!t)
		return;
	free(t->assocs);
	free(t);
}
