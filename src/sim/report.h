// SPDX-License-Identifier: GPL-2.0-or-later
// The simulator's outputs as text (doc/simulate.md, "Outputs"): per policy
// daily_usage.csv, cumulative.csv, summary.csv/.json, and the whitespace
// table gnuplot reads. Pure: writes to the given stream only.
#ifndef FAIRWAY_SIM_REPORT_H_
#define FAIRWAY_SIM_REPORT_H_

#include <nlohmann/json.hpp>
#include <ostream>
#include <vector>

#include "simulator.h"

namespace fairway::sim {

// day,user,node_days
void WriteDailyUsageCsv(const SimResult& result, std::ostream& out);
// day,user,cumulative_node_days,cumulative_allocation_node_days,usage_over_allocation
// (allocation = rate x days elapsed at the end of the day).
void WriteCumulativeCsv(const SimResult& result, std::ostream& out);
// policy,user,rate_nodes,submitted,started,pending_at_end,starved_days,
// usage_over_allocation,mean_wait_hours,max_wait_hours
void WriteSummaryCsvHeader(std::ostream& out);
void WriteSummaryCsvRows(const SimResult& result, std::ostream& out);
nlohmann::json SummaryJson(const SimResult& result);
// "day u1_daily u2_daily ... u1_ratio u2_ratio ..." for plots.
void WritePlotTable(const SimResult& result, std::ostream& out);

// job,user,submit,start,end,recorded_start (seconds from the start of the
// simulation; start/end empty for a job that never started, recorded_start
// empty unless the scenario gave one), in submission order. job = the
// scenario's job id ("id N") or the 1-based position in submission order.
void WriteJobsCsv(const SimResult& result, std::ostream& out);

// Final cumulative usage / (rate x days).
double UsageOverAllocation(const SimResult& result, size_t user);

}  // namespace fairway::sim

#endif  // FAIRWAY_SIM_REPORT_H_
