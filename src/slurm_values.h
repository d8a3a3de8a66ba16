// SPDX-License-Identifier: GPL-2.0-or-later
// Numeric conventions shared with Slurm 22.05, restated so that the core needs
// no Slurm header: sentinel values, the nice offset and the PriorityFlags bits.
// Values are those of slurm-22-05-8-1:slurm/slurm.h and slurm-22-05-8-1:slurm/slurmdb.h.
#ifndef FAIRWAY_SLURM_VALUES_H_
#define FAIRWAY_SLURM_VALUES_H_

#include <cstdint>

namespace fairway {

constexpr uint32_t kNoVal = 0xfffffffe;           // Slurm's NO_VAL
constexpr uint64_t kNoVal64 = 0xfffffffffffffffe;  // NO_VAL64
constexpr uint64_t kNoConsumeVal64 = 0xfffffffffffffffd;
constexpr uint32_t kSharesUseParent = 0x7fffffff;  // Fairshare=parent
constexpr uint32_t kNiceOffset = 0x80000000;       // bias of nice and site
constexpr uint32_t kMaxPriority = 0xffffffff;
constexpr uint32_t kInfinite = 0xffffffff;        // Slurm's INFINITE (time limits)

// PriorityFlags bits (slurm.h PRIORITY_FLAGS_*).
enum PriorityFlag : uint32_t {
  kFlagAccrueAlways = 1u << 0,
  kFlagMaxTres = 1u << 1,
  kFlagSizeRelative = 1u << 2,  // SMALL_RELATIVE_TO_TIME
  kFlagDepthOblivious = 1u << 3,
  kFlagCalculateRunning = 1u << 4,
  kFlagFairTree = 1u << 5,
  kFlagIncrOnly = 1u << 6,
  kFlagNoNormalAssoc = 1u << 7,
  kFlagNoNormalPart = 1u << 8,
  kFlagNoNormalQos = 1u << 9,
  kFlagNoNormalTres = 1u << 10,
  kFlagNoNormalAll = kFlagNoNormalAssoc | kFlagNoNormalPart | kFlagNoNormalQos |
                     kFlagNoNormalTres,
  // From 25.05 (slurm-25-05-8-1:slurm/slurm.h): billing is the MAX of a
  // node's CPU, memory and node TRES plus the sum of its GRES. Only
  // slurmctld computes billing (calc_job_billable_tres); Fairway reads the
  // billing it recorded, so the core never looks at this bit.
  kFlagMaxTresGres = 1u << 11,
};

// A Slurm release as SLURM_VERSION_NUM(a, b, c) encodes it
// (slurm/slurm_version.h): the reader and writer of slurm.conf values
// follow the release a tool was built for.
constexpr uint32_t SlurmVersionNum(uint32_t major, uint32_t minor, uint32_t micro) {
  return (major << 16) | (minor << 8) | micro;
}
constexpr uint32_t kSlurm2205 = SlurmVersionNum(22, 5, 0);

// PriorityUsageResetPeriod, in slurm.h's numbering (PRIORITY_RESET_*).
enum class ResetPeriod : uint16_t {
  kNone = 0,
  kNow = 1,
  kDaily = 2,
  kWeekly = 3,
  kMonthly = 4,
  kQuarterly = 5,
  kYearly = 6,
};

}  // namespace fairway

#endif  // FAIRWAY_SLURM_VALUES_H_
