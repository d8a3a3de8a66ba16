// SPDX-License-Identifier: GPL-2.0-or-later
// The Slurm internal headers the adapter needs, with C linkage. Include this
// after every C++ and core header in a translation unit: Slurm defines
// function-like macros with common names (info, debug, verbose, xfree, MAX).
// Only files in plugins/priority/fairway/ may include it.
#ifndef FAIRWAY_PLUGIN_SLURM_API_H_
#define FAIRWAY_PLUGIN_SLURM_API_H_

extern "C" {
#include "config.h"

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/pack.h"
#include "src/common/read_config.h"
#include "src/common/slurm_accounting_storage.h"
#include "src/common/slurmdb_defs.h"
#include "src/common/site_factor.h"
#include "src/common/slurm_mcs.h"
#include "src/common/slurm_priority.h"
#include "src/common/slurm_protocol_api.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"
}

#endif  // FAIRWAY_PLUGIN_SLURM_API_H_
