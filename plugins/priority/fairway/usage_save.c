/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Slurm's usage files, written by the plugin rather than by
 * dump_assoc_mgr_state: Slurm's save removes the old name before the new
 * file takes it, and from 25.05 a controller killed in between does not
 * start (doc/reliability.md, gap 8). Here the new file is renamed over the
 * old one. The format is dump_assoc_mgr_state's, unchanged from
 * slurm-22-05-8-1 to slurm-26-11-0-0rc1 (src/common/assoc_mgr.c), packed
 * with Slurm's own functions; reliability_crash.sh compares the files with
 * slurmctld's. */
#include "fw_plugin.h"

#include "src/common/pack.h"

#include "usage_save.h"
#include "locks.h"
#include "state_files.h"

/* Requires tres R. Slurm's raw TRES usage text (xfree it), or NULL when
 * every count is zero, as _make_usage_tres_raw_str writes it. */
static char *tres_raw_text(const long double *tres_cnt)
{
	char *text = NULL;
	if (!tres_cnt)
		return NULL;
	for (uint32_t i = 0; i < g_tres_count; i++) {
		if (!assoc_mgr_tres_array[i] || !tres_cnt[i])
			continue;
		xstrfmtcat(text, "%s%u=%Lf", text ? "," : "",
			   assoc_mgr_tres_array[i]->id, tres_cnt[i]);
	}
	return text;
}

/* Requires tres R. One record of assoc_usage or qos_usage. */
static void pack_usage(uint32_t id, long double usage_raw,
		       const long double *tres_raw, uint32_t grp_used_wall,
		       buf_t *buf)
{
	char *text = tres_raw_text(tres_raw);
	pack32(id, buf);
	packlongdouble(usage_raw, buf);
	packstr(text, buf);
	xfree(text);
	pack32(grp_used_wall, buf);
}

/* list_for_each callbacks; require assoc R (qos R) and tres R. */
static int pack_assoc(void *x, void *arg)
{
	const slurmdb_assoc_rec_t *assoc = x;
	const slurmdb_assoc_usage_t *u = assoc->leaf_usage;
	if (u) /* only associations with their own usage, as Slurm writes */
		pack_usage(assoc->id, u->usage_raw, u->usage_tres_raw,
			   u->grp_used_wall, arg);
	return 0;
}

static int pack_qos(void *x, void *arg)
{
	const slurmdb_qos_rec_t *qos = x;
	const slurmdb_qos_usage_t *u = qos->usage;
	pack_usage(qos->id, u->usage_raw, u->usage_tres_raw, u->grp_used_wall,
		   arg);
	return 0;
}

/* Requires the locks of pack. Writes one file of one list. */
static bool save_list(const char *name, list_t *list, ListForF pack)
{
	buf_t *buf = init_buf(BUF_SIZE);
	pack16(SLURM_PROTOCOL_VERSION, buf);
	pack_time(time(NULL), buf);
	if (list)
		list_for_each(list, pack, buf);
	const bool ok =
		fw_state_write(name, get_buf_data(buf), get_buf_offset(buf));
	FREE_NULL_BUFFER(buf);
	return ok;
}

bool fw_usage_save(void)
{
	fw_held_t held = { 0 };
	/* file W: no dump_assoc_mgr_state of slurmctld's runs meanwhile, so
	 * an older snapshot never replaces this one. */
	fw_lock(&held, FW_USAGE_SAVE);
	bool ok = save_list("assoc_usage", assoc_mgr_assoc_list, pack_assoc);
	ok = save_list("qos_usage", assoc_mgr_qos_list, pack_qos) && ok;
	fw_unlock(&held, FW_USAGE_SAVE);
	return ok;
}
