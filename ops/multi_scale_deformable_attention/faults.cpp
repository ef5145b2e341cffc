#include "multi_scale_deformable_attention/faults.h"

namespace gradconf::msda {

std::string_view fault_name(Fault fault) {
  switch (fault) {
    case Fault::kNone:
      return "none";
    case Fault::kSwappedXY:
      return "swapped_xy";
    case Fault::kMissingWidthFactor:
      return "missing_width_factor";
    case Fault::kGuardInclusive:
      return "guard_inclusive";
    case Fault::kLevelStartIgnored:
      return "level_start_ignored";
    case Fault::kSwappedTapWeights:
      return "swapped_tap_weights";
    case Fault::kDroppedChannelBlock:
      return "dropped_channel_block";
    case Fault::kThreadDependentScatter:
      return "thread_dependent_scatter";
    case Fault::kEmptyKeepsWorkspace:
      return "empty_keeps_workspace";
    case Fault::kFormatUnchecked:
      return "format_unchecked";
    case Fault::kAbsGradOutput:
      return "abs_grad_output";
    case Fault::kIgnoredGradValueStride:
      return "ignored_grad_value_stride";
    case Fault::kWorkspaceAssumedZero:
      return "workspace_assumed_zero";
    case Fault::kValueOfFirstBatch:
      return "value_of_first_batch";
    case Fault::kCount:
      break;
  }
  return "unknown";
}

}  // namespace gradconf::msda
