/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The generated tree as slurmctld's saved association state (diff_state.h
 * states the contract). */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "diff_state.h"

#include "host_slurm.h"
#include "src/common/slurmdb_defs.h"
#include "src/common/slurmdbd_defs.h"
#include "src/common/slurmdbd_pack.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"

static int write_buffer(buf_t *buffer, const char *dir, const char *name)
{
	char *path = xstrdup_printf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	int rc = 0;
	if (fd < 0) {
		perror(path);
		rc = -1;
	} else {
		const char *data = get_buf_data(buffer);
		size_t left = get_buf_offset(buffer);
		while (left > 0) {
			ssize_t n = write(fd, data, left);
			if (n <= 0) {
				perror(path);
				rc = -1;
				break;
			}
			data += n;
			left -= (size_t) n;
		}
		close(fd);
	}
	xfree(path);
	return rc;
}

/* The header every one of the three files starts with: the protocol
 * version and when the file was saved (now). */
static buf_t *new_state_buffer(void)
{
	buf_t *buffer = init_buf(1 << 16);
	pack16(SLURM_PROTOCOL_VERSION, buffer);
	pack_time(time(NULL), buffer);
	return buffer;
}

/* The TRES a default 22.05 cluster has (cpu, mem, energy, node, billing,
 * fs/disk, vmem, pages): assoc_mgr refuses associations without TRES. */
static list_t *tres_list(void)
{
	static const struct {
		uint32_t id;
		const char *type, *name;
	} known[] = {{1, "cpu", NULL},    {2, "mem", NULL},     {3, "energy", NULL},
		     {4, "node", NULL},   {5, "billing", NULL}, {6, "fs", "disk"},
		     {7, "vmem", NULL},   {8, "pages", NULL}};
	list_t *list = list_create(slurmdb_destroy_tres_rec);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		slurmdb_tres_rec_t *tres = xmalloc(sizeof(*tres));
		tres->id = known[i].id;
		tres->type = xstrdup(known[i].type);
		tres->name = xstrdup(known[i].name);
		tres->count = known[i].id == 1 ? 2 : 0;
		list_append(list, tres);
	}
	return list;
}

/* The QOS every cluster has, and one with a priority (the QOS factor's
 * input: normal 0, high 1). */
static list_t *qos_list(void)
{
	static const struct {
		uint32_t id, priority;
		const char *name;
	} known[] = {{1, 0, "normal"}, {2, 10, "high"}};
	list_t *list = list_create(slurmdb_destroy_qos_rec);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		slurmdb_qos_rec_t *qos = xmalloc(sizeof(*qos));
		slurmdb_init_qos_rec(qos, 0, NO_VAL);
		qos->id = known[i].id;
		qos->name = xstrdup(known[i].name);
		qos->priority = known[i].priority;
		qos->usage_factor = 1.0;
		qos->usage_thres = (double) NO_VAL;
		list_append(list, qos);
	}
	return list;
}

#if HOST_SLURM_AT_LEAST(23, 11, 0)
/* The record's lineage, as slurmdbd writes it (_set_lineage in
 * slurm-25-05-8-1:src/plugins/accounting_storage/mysql/as_mysql_assoc.c):
 * root "/", an account its parent's and "ACCT/", a user its account's and
 * "0-USER/" then "PARTITION/"; xmalloc'ed. */
static char *lineage_of(const diff_tree_t *t, int i)
{
	const diff_assoc_t *g = &t->assocs[i];
	if (g->parent < 0)
		return xstrdup("/");
	char *lineage = lineage_of(t, g->parent);
	if (!g->user[0])
		xstrfmtcat(lineage, "%s/", g->acct);
	else if (g->partition[0])
		xstrfmtcat(lineage, "0-%s/%s/", g->user, g->partition);
	else
		xstrfmtcat(lineage, "0-%s/", g->user);
	return lineage;
}
#endif

static list_t *assoc_list(const diff_tree_t *t, const char *cluster)
{
	list_t *list = list_create(slurmdb_destroy_assoc_rec);
	for (int i = 0; i < t->count; i++) {
		const diff_assoc_t *g = &t->assocs[i];
		slurmdb_assoc_rec_t *a = xmalloc(sizeof(*a));
		slurmdb_init_assoc_rec(a, 0);
		a->id = g->id;
		a->parent_id = g->parent_id;
		a->cluster = xstrdup(cluster);
		a->acct = xstrdup(g->acct);
		a->user = g->user[0] ? xstrdup(g->user) : NULL;
		a->partition = g->partition[0] ? xstrdup(g->partition) : NULL;
		a->parent_acct = g->parent >= 0 && !g->user[0] ?
					 xstrdup(t->assocs[g->parent].acct) : NULL;
		a->shares_raw = g->shares;
#if !HOST_SLURM_AT_LEAST(25, 5, 0) /* 25.05 keeps the lineage alone */
		a->lft = g->lft;
		a->rgt = g->rgt;
#endif
#if HOST_SLURM_AT_LEAST(23, 11, 0)
		a->lineage = lineage_of(t, i);
#endif
		a->is_def = 0;
		a->def_qos_id = 0;
		a->priority = g->priority; /* INFINITE: unset in the database */
		/* a uid, so that assoc_mgr does not look the name up */
		a->uid = g->user[0] ? 20000 + (uint32_t) i : NO_VAL;
		list_append(list, a);
	}
	return list;
}

static void pack_list(list_t *list, uint16_t type, buf_t *buffer, bool typed)
{
	dbd_list_msg_t msg;
	memset(&msg, 0, sizeof(msg));
	msg.my_list = list;
	if (typed) /* assoc_mgr_state: the type first, then the list */
		pack16(type, buffer);
	slurmdbd_pack_list_msg(&msg, SLURM_PROTOCOL_VERSION, type, buffer);
}

int diff_state_write(const diff_tree_t *t, const char *dir, const char *cluster)
{
	int rc = 0;
	list_t *tres = tres_list(), *qos = qos_list(), *assocs = assoc_list(t, cluster);

	buf_t *buffer = new_state_buffer();
	pack_list(tres, DBD_ADD_TRES, buffer, false);
	rc |= write_buffer(buffer, dir, "last_tres");
	free_buf(buffer);

	/* QOS before associations, as dump_assoc_mgr_state orders them. */
	buffer = new_state_buffer();
	pack_list(qos, DBD_ADD_QOS, buffer, true);
	pack_list(assocs, DBD_ADD_ASSOCS, buffer, true);
	rc |= write_buffer(buffer, dir, "assoc_mgr_state");
	free_buf(buffer);

	/* assoc_usage: each record's leaf usage by id; load_assoc_usage adds
	 * it up the parent chain. */
	buffer = new_state_buffer();
	for (int i = 0; i < t->count; i++) {
		const diff_assoc_t *g = &t->assocs[i];
		if (!g->has_usage)
			continue;
		pack32(g->id, buffer);
		packlongdouble(g->usage, buffer);
		packnull(buffer); /* no per-TRES usage: sshare's columns only */
		pack32(0, buffer);     /* grp_used_wall */
	}
	rc |= write_buffer(buffer, dir, "assoc_usage");
	free_buf(buffer);

	FREE_NULL_LIST(tres);
	FREE_NULL_LIST(qos);
	FREE_NULL_LIST(assocs);
	return rc ? -1 : 0;
}
