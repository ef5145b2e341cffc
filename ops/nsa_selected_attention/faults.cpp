#include "nsa_selected_attention/faults.h"

namespace gradconf::nsa {

std::string_view fault_name(Fault fault) {
  switch (fault) {
    case Fault::kNone:
      return "none";
    case Fault::kCausalOffByOne:
      return "causal_off_by_one";
    case Fault::kStatsLane1:
      return "stats_lane_1";
    case Fault::kDkScaleMissing:
      return "dk_scale_missing";
    case Fault::kGroupModulo:
      return "group_modulo";
    case Fault::kDuplicatesMerged:
      return "duplicates_merged";
    case Fault::kDrFromGradGrad:
      return "dr_from_grad_grad";
    case Fault::kTopkReadAtRun:
      return "topk_read_at_run";
    case Fault::kFormatUnchecked:
      return "format_unchecked";
    case Fault::kAbsGradOutput:
      return "abs_grad_output";
    case Fault::kIgnoredDvStride:
      return "ignored_dv_stride";
    case Fault::kCacheAssumedZero:
      return "cache_assumed_zero";
    case Fault::kKvOfFirstBatch:
      return "kv_of_first_batch";
    case Fault::kCount:
      break;
  }
  return "unknown";
}

}  // namespace gradconf::nsa
