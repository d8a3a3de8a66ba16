// SPDX-License-Identifier: GPL-2.0-or-later
// A job's allocated TRES as slurmdbd stores them ("1=2,2=1024,4=1,5=2": TRES
// id=count) and the billing Slurm charges for them. Shared by the plugin's
// usage bootstrap and `fairway usage`, which must charge a job alike.
#ifndef FAIRWAY_TRES_COUNTS_H_
#define FAIRWAY_TRES_COUNTS_H_

#include <cstdint>
#include <map>
#include <string_view>

namespace fairway {

// Slurm's TRES ids (src/common/slurmdb_defs.h): fixed for the first ones.
constexpr uint32_t kTresCpu = 1;
constexpr uint32_t kTresBilling = 5;

// Parses "id=count,..." (ids 1..2^32-1, counts up to 2^64-1, blanks around
// items allowed). Empty text is valid: no TRES. False for anything else,
// leaving *tres empty.
bool ParseTresCounts(std::string_view text, std::map<uint32_t, uint64_t>* tres);

// The billing of an allocation: the billing TRES, else the CPUs, else 0.
double AllocationBilling(const std::map<uint32_t, uint64_t>& tres);

}  // namespace fairway

#endif  // FAIRWAY_TRES_COUNTS_H_
