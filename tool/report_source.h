// SPDX-License-Identifier: GPL-2.0-or-later
// report::Input read from slurmdbd's database (tool/slurmdbd/db_client):
// the association table, the usage roll-ups of one TRES and the cluster's
// capacity, with other clusters' usage joined by association path. Used by
// `fairway report` and by `fairway metrics --delivered-days`.
#ifndef FAIRWAY_TOOL_REPORT_SOURCE_H_
#define FAIRWAY_TOOL_REPORT_SOURCE_H_

#include <cstddef>
#include <string>
#include <vector>

#include "params.h"
#include "report_model.h"

namespace fairway {

struct ReportSource {
  std::string slurmdbd_conf;  // "" = beside $SLURM_CONF
  std::string cluster;        // the table prefix, lower case
  std::string tres = "cpu";   // "cpu", "billing", "mem", "gres/gpu", ...
  std::vector<Params::RemoteCluster> others;  // joined by path, scaled
};

// Fills in's assocs, usage and cluster rows for the buckets of
// [in->start, in->end) at in->by (which the caller sets). Rows of other
// clusters whose path this cluster lacks are counted in *unmatched. False
// with *error (naming the file, server, table or TRES); *bad_input then
// tells a caller's mistake (an unknown TRES) from a database failure.
bool LoadReportInput(const ReportSource& source, report::Input* in, size_t* unmatched,
                     std::string* error, bool* bad_input);

}  // namespace fairway

#endif  // FAIRWAY_TOOL_REPORT_SOURCE_H_
