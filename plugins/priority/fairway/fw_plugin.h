/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Slurm's headers, by release, and the plugin's logging. Every file of the
 * boundary that touches a Slurm record includes this one first, then its
 * own header and the headers of the files it calls (each .c has one, named
 * after it). Those headers declare their functions that take a Slurm type
 * under #ifdef FW_SLURM_AT_LEAST, so that the files that need no Slurm
 * header (decay_pass.c, decay_thread.c, state_files.c, ledger_file.c,
 * config_store.c, lock_witness.c, fw_thread.c, remote_sync.c) include
 * them too and still see no Slurm type. */
#ifndef FAIRWAY_PLUGIN_FW_PLUGIN_H_
#define FAIRWAY_PLUGIN_FW_PLUGIN_H_

#include "config.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

/* Every Slurm release from 22.05 to 26.05, and the 26.11.0-0rc1
 * pre-release, builds this boundary (one .so per micro release: Slurm
 * refuses any other). Each difference between
 * releases is an #if on this, here, in the file that uses it or at an entry point;
 * doc/slurm-integration.md lists them. */
#define FW_SLURM_AT_LEAST(a, b, c) \
	(SLURM_VERSION_NUMBER >= SLURM_VERSION_NUM(a, b, c))

#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/slurmdb_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#if FW_SLURM_AT_LEAST(23, 2, 0) /* plugin interfaces moved to src/interfaces */
#include "src/interfaces/accounting_storage.h"
#include "src/interfaces/mcs.h"
#include "src/interfaces/priority.h"
#include "src/interfaces/site_factor.h"
#else
#include "src/common/site_factor.h"
#include "src/common/slurm_accounting_storage.h"
#include "src/common/slurm_mcs.h"
#include "src/common/slurm_priority.h"
#endif
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
#if FW_SLURM_AT_LEAST(24, 5, 0) /* per-account and per-user QOS usage */
#include "src/slurmctld/acct_policy.h"
#endif
#if FW_SLURM_AT_LEAST(24, 11, 0) /* lock_state_files moved */
#include "src/common/state_save.h"
#endif

#if !FW_SLURM_AT_LEAST(23, 2, 0)
/* 22.05's spellings of what 23.02 and later name list_t, list_itr_t,
 * job_details_t, and (job->prio_factors, the factors themselves)
 * priority_factors_t. */
typedef struct xlist list_t;
typedef struct listIterator list_itr_t;
typedef struct job_details job_details_t;
typedef priority_factors_object_t priority_factors_t;
#endif

/* ---- logging: one prefix for every line ---------------------------------- */
#define FW_PREFIX "priority/fairway: "
#define fw_error(fmt, ...) error(FW_PREFIX fmt, ##__VA_ARGS__)
#define fw_info(fmt, ...) info(FW_PREFIX fmt, ##__VA_ARGS__)
#define fw_verbose(fmt, ...) verbose(FW_PREFIX fmt, ##__VA_ARGS__)
#define fw_prio_enabled() ((slurm_conf.debug_flags & DEBUG_FLAG_PRIO) != 0)
#define fw_prio(fmt, ...) \
	do { \
		if (fw_prio_enabled()) \
			info("PRIO: " FW_PREFIX fmt, ##__VA_ARGS__); \
	} while (0)

#endif /* FAIRWAY_PLUGIN_FW_PLUGIN_H_ */
