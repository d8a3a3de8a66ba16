// SPDX-License-Identifier: GPL-2.0-or-later
// The sprio RPC: builds the list of weighted factor objects of the jobs a
// requester may see, as priority/multifactor selects and filters them
// (priority_p_get_priority_factors_list in
// slurm-22-05-8-1:src/plugins/priority/multifactor/priority_multifactor.c).
#ifndef FAIRWAY_PLUGIN_FACTORS_LIST_H_
#define FAIRWAY_PLUGIN_FACTORS_LIST_H_

#include <sys/types.h>

#include "slurm_api.h"

namespace fairway::plugin {

// Takes {job R, node R, part R} itself. Returns NULL when nothing matches.
List BuildPriorityFactorsList(priority_factors_request_msg_t* request, uid_t uid);

}  // namespace fairway::plugin

#endif  // FAIRWAY_PLUGIN_FACTORS_LIST_H_
