// Planted faults of NsaSelectedAttention (ops/core/planted_fault.h), each a `planted<kFault>`
// branch of the kernels or phase 1. Memory-safe, except kTopkReadAtRun once topkIndices change
// between the phases (what the between_phases law exists to see, in a child process).
#ifndef GRADCONF_OPS_NSA_SELECTED_ATTENTION_FAULTS_H_
#define GRADCONF_OPS_NSA_SELECTED_ATTENTION_FAULTS_H_

#include <array>
#include <cstdint>
#include <string_view>

#include "core/planted_fault.h"

namespace gradconf::nsa {

enum class Fault : uint8_t {
  kNone,
  kCausalOffByOne,    ///< sparseMode 2 masks kv position >= s (the query's own position too)
  kStatsLane1,        ///< the backward reads lane 1 of softmaxMax/softmaxSum instead of lane 0
  kDkScaleMissing,    ///< dk lacks the factor scaleValue
  kGroupModulo,       ///< query head n1 uses kv head n1 % N2 instead of n1 / G
  kDuplicatesMerged,  ///< a block selected twice by one query is attended once
  kDrFromGradGrad,    ///< Dr = dO . dO instead of dO . O
  kTopkReadAtRun,     ///< phase 2 reads topkIndices from the caller's tensor, trusting that they
                      ///< still hold what phase 1 validated (no copy)
  kFormatUnchecked,   ///< phase 1 skips NSA-FORMAT-01 (any aclFormat accepted)
  kAbsGradOutput,     ///< dq and dk read |dO| (not linear in the incoming gradient)
  kIgnoredDvStride,   ///< dv rows written as if their last stride were 1
  kCacheAssumedZero,  ///< P is added into the workspace's cache instead of stored (the
                      ///< workspace is trusted to arrive zeroed)
  kKvOfFirstBatch,    ///< selected blocks are read from batch 0's keys for every batch
  kLiveRowsShort,     ///< the products stop one row before a slot's last unmasked row
  kCount,
};

inline constexpr std::array<std::string_view, static_cast<size_t>(Fault::kCount)> kFaultNames = {
    "none",
    "causal_off_by_one",
    "stats_lane_1",
    "dk_scale_missing",
    "group_modulo",
    "duplicates_merged",
    "dr_from_grad_grad",
    "topk_read_at_run",
    "format_unchecked",
    "abs_grad_output",
    "ignored_dv_stride",
    "cache_assumed_zero",
    "kv_of_first_batch",
    "live_rows_short",
};
static_assert(all_named(kFaultNames));

inline constexpr std::string_view fault_name(Fault fault) {
  return fault_name_in(kFaultNames, fault);
}

}  // namespace gradconf::nsa

#endif  // GRADCONF_OPS_NSA_SELECTED_ATTENTION_FAULTS_H_
