// SPDX-License-Identifier: GPL-2.0-or-later
// One TRES weight value as Slurm reads it (PriorityWeightTRES,
// TRESBillingWeights): slurm_get_tres_weight_array in Slurm 22.05.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace fairway {

// The weight written as "VALUE[UNIT]" for TRES type `type` ("cpu", "mem",
// "gres", ...). A unit is a weight per that unit, so the value is divided
// by 1024 for each step the unit lies above the TRES's base unit: MB for
// mem and bb, none for every other TRES ("mem=1G" is 1/1024 per MB,
// "cpu=1K" is 1/1024 per CPU). A unit at or below the base unit leaves the
// value unchanged, as in Slurm. Only the unit's first character counts (K,
// M, G, T or P, any case: "2GB" is "2G"). nullopt with *why for a value
// that is not a number or an unknown unit.
std::optional<double> ParseTresWeightValue(std::string_view type, std::string_view value,
                                           std::string* why);

}  // namespace fairway
