/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The differential test's input: an association tree with leaf usage,
 * generated from a seed (test/host/differential_host.c).
 *
 * Contract: diff_tree_generate(seed, dup) is a pure function of its two
 * arguments (its own PRNG, no clock, no rand()), so one seed names one
 * tree on every machine and every run. The records come in depth-first
 * order (root first, an account before its children), which is the order
 * slurmdbd hands them over (by lft) and so the order of assoc_mgr's
 * children lists. No Slurm header: plain data only.
 */
#ifndef FAIRWAY_TEST_HOST_DIFF_TREE_H
#define FAIRWAY_TEST_HOST_DIFF_TREE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Slurm's SLURMDB_FS_USE_PARENT (slurm/slurmdb.h): Fairshare=parent. */
#define DIFF_SHARES_PARENT 0x7fffffffu
/* Slurm's INFINITE: the database's unset association priority. */
#define DIFF_PRIORITY_UNSET 0xffffffffu

typedef struct {
	uint32_t id;
	int parent;        /* index in diff_tree_t.assocs; -1 for root */
	uint32_t parent_id; /* 0 for root */
	char acct[16];
	char user[16];     /* "" for an account */
	char partition[8]; /* "" for none */
	uint32_t shares;   /* DIFF_SHARES_PARENT for Fairshare=parent */
	uint32_t priority; /* Priority; DIFF_PRIORITY_UNSET when not set */
	long double usage; /* leaf usage (an account's: of deleted children) */
	bool has_usage;    /* written to assoc_usage */
	uint32_t lft, rgt; /* nested set, as slurmdbd keeps them */
	int depth;
} diff_assoc_t;

typedef struct {
	uint64_t seed;
	int count;
	diff_assoc_t *assocs;
	int duplicated;    /* index of the record given another's id, or -1 */
	int duplicate_of;  /* index of the record whose id it took, or -1 */
} diff_tree_t;

/* dup: give one user association the id of another one. */
diff_tree_t *diff_tree_generate(uint64_t seed, bool dup);
/* The tree, indented, one record a line (for a failing case's report). */
void diff_tree_print(const diff_tree_t *tree, FILE *out);
void diff_tree_free(diff_tree_t *tree);

#endif
